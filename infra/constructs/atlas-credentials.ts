import type { Construct } from 'constructs';
import { DeploySecret } from './deploy-secret.js';

export type { CredentialsSecret } from './deploy-secret.js';

export interface AtlasCredentialsProps {
  /** The complete ARN of an existing secret; when absent a new secret is created to fill in. */
  secretArn?: string | undefined;
  /** The customer managed key of the existing secret, when it is not the account's default key. */
  kmsKeyArn?: string | undefined;
  /**
   * The connection whose credentials these are, named in a created secret's description; absent
   * for the top-level settings, whose secret keeps the description it has always had.
   */
  connection?: { name: string; flavor: string; baseUrl: string } | undefined;
}

function secretDescription(connection: AtlasCredentialsProps['connection']): string {
  const shapes = '{"publicKey","privateKey"} or {"clientId","clientSecret"}';
  if (connection === undefined) return `Atlas Admin API credentials for atlas-audit-alerts: ${shapes}`;
  const api = connection.flavor === 'ops-manager' ? 'Ops Manager API' : 'Atlas Admin API';
  return `${api} credentials of the connection ${connection.name} (${connection.baseUrl}) for atlas-audit-alerts: ${shapes}`;
}

/**
 * The Secrets Manager secret that holds the Atlas credentials as JSON: `{"publicKey", "privateKey"}`
 * for an API key or `{"clientId", "clientSecret"}` for a service account. The template never holds a
 * value: a created secret starts with a random placeholder (`{"replaceMe": "…"}`) until
 * `aws secretsmanager put-secret-value` replaces it.
 */
export class AtlasCredentials extends DeploySecret {
  constructor(scope: Construct, id: string, props: AtlasCredentialsProps) {
    super(scope, id, {
      secretArn: props.secretArn,
      kmsKeyArn: props.kmsKeyArn,
      create: {
        description: secretDescription(props.connection),
        generateSecretString: {
          secretStringTemplate: '{}',
          generateStringKey: 'replaceMe',
          excludePunctuation: true,
        },
        noRotationReason:
          'Atlas API keys and service account secrets are issued by Atlas, not by AWS: they are rotated in Atlas, then put into this secret.',
      },
    });
  }
}
