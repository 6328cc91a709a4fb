import { Aws, type CfnResource, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import { type IGrantable, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { type ISecret, Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';

/** What the rest of the stack needs of the credentials secret, whether it was created or imported. */
export interface CredentialsSecret {
  readonly secretArn: string;
  /**
   * The longest `secretArn` can be once deployed, for the 4 KB check of the function environment:
   * an existing secret's own ARN; for a created one, a bound of the name CloudFormation gives it.
   */
  readonly longestSecretArn: string;
  /** Lets `grantee` read the secret's value, and decrypt it when it has a key of its own. */
  grantRead(grantee: IGrantable): void;
}

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

/** The longest ARN prefix: the longest partition and region names. */
const LONGEST_ARN_PREFIX = 'arn:aws-us-gov:secretsmanager:us-gov-west-1:123456789012:secret:';

/**
 * CloudFormation names a secret it creates `<logical id>-<12 random characters>`, and Secrets
 * Manager adds `-<6 characters>` to the ARN; the stack name is counted too, in case a name ever
 * carries it.
 */
function longestCreatedSecretArn(secret: Secret): string {
  const stack = Stack.of(secret);
  const logicalId = String(stack.resolve(stack.getLogicalId(secret.node.defaultChild as CfnResource)));
  return `${LONGEST_ARN_PREFIX}${stack.stackName}-${logicalId}-${'x'.repeat(12)}-AbCdEf`;
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
export class AtlasCredentials extends Construct implements CredentialsSecret {
  readonly secretArn: string;
  readonly longestSecretArn: string;
  private readonly secret: ISecret;
  private readonly kmsKeyArn: string | undefined;

  constructor(scope: Construct, id: string, props: AtlasCredentialsProps) {
    super(scope, id);
    this.kmsKeyArn = props.kmsKeyArn;
    if (props.secretArn !== undefined) {
      this.secret = Secret.fromSecretCompleteArn(this, 'Secret', props.secretArn);
      this.longestSecretArn = props.secretArn;
    } else {
      const secret = new Secret(this, 'Secret', {
        description: secretDescription(props.connection),
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
      this.longestSecretArn = longestCreatedSecretArn(secret);
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
