import { Aws, type CfnResource, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import { type IGrantable, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { type ISecret, Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import type { CredentialsSecret } from './atlas-credentials.js';

export interface WebhookSecretProps {
  /** The connection whose Atlas Webhook integrations sign with it. */
  connection: string;
  /** The complete ARN of an existing secret; when absent a new one is created with a random secret. */
  secretArn?: string | undefined;
  /** The customer managed key of the existing secret, when it is not the account's default key. */
  kmsKeyArn?: string | undefined;
}

const LONGEST_ARN_PREFIX = 'arn:aws-us-gov:secretsmanager:us-gov-west-1:123456789012:secret:';

/**
 * The secret one connection's Atlas Webhook integrations sign their pushes with (`X-MMS-Signature`),
 * its whole string the secret. A created one holds 40 random letters and digits from the start: copy
 * it into the Webhook integration of each project (`aws secretsmanager get-secret-value`). The
 * template never holds the value. Only the push receiver may read it.
 */
export class WebhookSecret extends Construct implements CredentialsSecret {
  readonly secretArn: string;
  readonly longestSecretArn: string;
  private readonly secret: ISecret;
  private readonly kmsKeyArn: string | undefined;

  constructor(scope: Construct, id: string, props: WebhookSecretProps) {
    super(scope, id);
    this.kmsKeyArn = props.kmsKeyArn;
    if (props.secretArn !== undefined) {
      this.secret = Secret.fromSecretCompleteArn(this, 'Secret', props.secretArn);
      this.longestSecretArn = props.secretArn;
    } else {
      const secret = new Secret(this, 'Secret', {
        description: `The secret the Atlas Webhook integrations of the connection ${props.connection} sign their pushes to atlas-audit-alerts with: copy it into each integration`,
        generateSecretString: { passwordLength: 40, excludePunctuation: true },
        removalPolicy: RemovalPolicy.DESTROY,
      });
      Validations.of(secret).acknowledge({
        id: 'AwsSolutions-SMG4',
        reason:
          'The webhook secret is shared with Atlas, which signs with it: it is rotated by putting a new value here and into the Atlas Webhook integrations, which no rotation function can reach.',
      });
      this.secret = secret as ISecret;
      const stack = Stack.of(secret);
      const logicalId = String(stack.resolve(stack.getLogicalId(secret.node.defaultChild as CfnResource)));
      this.longestSecretArn = `${LONGEST_ARN_PREFIX}${stack.stackName}-${logicalId}-${'x'.repeat(12)}-AbCdEf`;
    }
    this.secretArn = this.secret.secretArn;
  }

  grantRead(grantee: IGrantable): void {
    this.secret.grantRead(grantee);
    if (this.kmsKeyArn === undefined) return;
    grantee.grantPrincipal.addToPrincipalPolicy(
      new PolicyStatement({
        actions: ['kms:Decrypt'],
        resources: [this.kmsKeyArn],
        conditions: { StringEquals: { 'kms:ViaService': `secretsmanager.${Aws.REGION}.amazonaws.com` } },
      }),
    );
  }
}
