import { RemovalPolicy, Validations } from 'aws-cdk-lib';
import { Key } from 'aws-cdk-lib/aws-kms';
import { type ISecret, Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';

/** What the rest of the stack needs of the secret, whether it was created or imported. */
export type CredentialsSecret = Pick<ISecret, 'secretArn' | 'grantRead'>;

export interface AtlasCredentialsProps {
  /** The complete ARN of an existing secret; when absent a new secret is created to fill in. */
  secretArn?: string | undefined;
  /** The customer managed key of the existing secret, when it is not the account's default key. */
  kmsKeyArn?: string | undefined;
}

/**
 * The Secrets Manager secret that holds the Atlas credentials as JSON: `{"publicKey", "privateKey"}`
 * for an API key or `{"clientId", "clientSecret"}` for a service account. The template never holds a
 * value: a created secret starts with a random placeholder (`{"replaceMe": "…"}`) until
 * `aws secretsmanager put-secret-value` replaces it.
 */
export class AtlasCredentials extends Construct {
  readonly secret: CredentialsSecret;

  constructor(scope: Construct, id: string, props: AtlasCredentialsProps) {
    super(scope, id);
    if (props.secretArn !== undefined) {
      this.secret = Secret.fromSecretAttributes(this, 'Secret', {
        secretCompleteArn: props.secretArn,
        ...(props.kmsKeyArn === undefined
          ? {}
          : { encryptionKey: Key.fromKeyArn(this, 'Key', props.kmsKeyArn) }),
      });
      return;
    }
    const secret = new Secret(this, 'Secret', {
      description:
        'Atlas Admin API credentials for atlas-audit-alerts: {"publicKey","privateKey"} or {"clientId","clientSecret"}',
      generateSecretString: {
        secretStringTemplate: '{}',
        generateStringKey: 'replaceMe',
        excludePunctuation: true,
      },
      removalPolicy: RemovalPolicy.DESTROY,
    });
    Validations.of(secret).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason:
        'Atlas API keys and service account secrets are issued by Atlas, not by AWS: they are rotated in Atlas, then put into this secret.',
    });
    this.secret = secret;
  }
}
