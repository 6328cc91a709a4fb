import type { Construct } from 'constructs';
import { DeploySecret } from './deploy-secret.js';

export interface WebhookSecretProps {
  /** The connection whose Atlas Webhook integrations sign with it. */
  connection: string;
  /** The complete ARN of an existing secret; when absent a new one is created with a random secret. */
  secretArn?: string | undefined;
  /** The customer managed key of the existing secret, when it is not the account's default key. */
  kmsKeyArn?: string | undefined;
}

/**
 * The secret one connection's Atlas Webhook integrations sign their pushes with (`X-MMS-Signature`),
 * its whole string the secret. A created one holds 40 random letters and digits from the start: copy
 * it into the Webhook integration of each project (`aws secretsmanager get-secret-value`). The
 * template never holds the value. Only the push receiver may read it.
 */
export class WebhookSecret extends DeploySecret {
  constructor(scope: Construct, id: string, props: WebhookSecretProps) {
    super(scope, id, {
      secretArn: props.secretArn,
      kmsKeyArn: props.kmsKeyArn,
      create: {
        description: `The secret the Atlas Webhook integrations of the connection ${props.connection} sign their pushes to atlas-audit-alerts with: copy it into each integration`,
        generateSecretString: { passwordLength: 40, excludePunctuation: true },
        noRotationReason:
          'The webhook secret is shared with Atlas, which signs with it: it is rotated by putting a new value here and into the Atlas Webhook integrations, which no rotation function can reach.',
      },
    });
  }
}
