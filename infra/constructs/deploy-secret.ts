import { Aws, type CfnResource, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import { type IGrantable, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { type ISecret, Secret, type SecretStringGenerator } from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';

/** What the rest of the stack needs of a secret, whether it was created or imported. */
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

/** An existing secret to use, or how to create one. */
export interface DeploySecretProps {
  /** The complete ARN of an existing secret; when absent one is created as `create` says. */
  secretArn?: string | undefined;
  /** The customer managed key of the existing secret, when it is not the account's default key. */
  kmsKeyArn?: string | undefined;
  create: {
    description: string;
    /** What the created secret starts with: the template never holds a value. */
    generateSecretString: SecretStringGenerator;
    /** Why it has no rotation function (cdk-nag's AwsSolutions-SMG4, acknowledged with it). */
    noRotationReason: string;
  };
}

/** The longest ARN prefix: the longest partition and region names. */
const LONGEST_ARN_PREFIX = 'arn:aws-us-gov:secretsmanager:us-gov-west-1:123456789012:secret:';

/**
 * A Secrets Manager secret a function reads: an existing one by its ARN (with its own KMS key if it
 * has one), or one the stack creates with a generated value and no rotation (the values come from
 * Atlas, which no rotation function can reach). The Atlas credentials and the webhook secrets are
 * such secrets.
 */
export class DeploySecret extends Construct implements CredentialsSecret {
  readonly secretArn: string;
  readonly longestSecretArn: string;
  private readonly secret: ISecret;
  private readonly kmsKeyArn: string | undefined;

  constructor(scope: Construct, id: string, props: DeploySecretProps) {
    super(scope, id);
    this.kmsKeyArn = props.kmsKeyArn;
    if (props.secretArn !== undefined) {
      this.secret = Secret.fromSecretCompleteArn(this, 'Secret', props.secretArn);
      this.longestSecretArn = props.secretArn;
    } else {
      const secret = new Secret(this, 'Secret', {
        description: props.create.description,
        generateSecretString: props.create.generateSecretString,
        removalPolicy: RemovalPolicy.DESTROY,
      });
      Validations.of(secret).acknowledge({ id: 'AwsSolutions-SMG4', reason: props.create.noRotationReason });
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
