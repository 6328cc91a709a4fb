import { Aws, RemovalPolicy, Validations } from 'aws-cdk-lib';
import { type IGrantable, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { type ISecret, Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';

/** What the rest of the stack needs of the credentials secret, whether it was created or imported. */
export interface CredentialsSecret {
  readonly secretArn: string;
  /** Lets `grantee` read the secret's value, and decrypt it when it has a key of its own. */
  grantRead(grantee: IGrantable): void;
}

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
export class AtlasCredentials extends Construct implements CredentialsSecret {
  readonly secretArn: string;
  private readonly secret: ISecret;
  private readonly kmsKeyArn: string | undefined;

  constructor(scope: Construct, id: string, props: AtlasCredentialsProps) {
    super(scope, id);
    this.kmsKeyArn = props.kmsKeyArn;
    if (props.secretArn !== undefined) {
      this.secret = Secret.fromSecretCompleteArn(this, 'Secret', props.secretArn);
    } else {
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
      // A Secret is an ISecret; exactOptionalPropertyTypes disagrees over one optional attribute.
      this.secret = secret as ISecret;
    }
    this.secretArn = this.secret.secretArn;
  }

  grantRead(grantee: IGrantable): void {
    this.secret.grantRead(grantee);
    if (this.kmsKeyArn === undefined) return;
    // CDK grants nothing on an imported key: the decrypt Secrets Manager does for the reader is added here.
    grantee.grantPrincipal.addToPrincipalPolicy(
      new PolicyStatement({
        actions: ['kms:Decrypt'],
        resources: [this.kmsKeyArn],
        conditions: { StringEquals: { 'kms:ViaService': `secretsmanager.${Aws.REGION}.amazonaws.com` } },
      }),
    );
  }
}
