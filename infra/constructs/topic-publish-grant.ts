import { Aws } from 'aws-cdk-lib';
import { type IGrantable, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import type { ITopic } from 'aws-cdk-lib/aws-sns';

export interface GrantTopicPublishOptions {
  grantee: IGrantable;
  topic: Pick<ITopic, 'topicArn'>;
  /** The customer managed key the topic is encrypted with. */
  key: Pick<IKey, 'keyArn'>;
}

/**
 * Lets `grantee` publish to one encrypted topic: `sns:Publish` on that topic, and the two key actions
 * SNS performs on the publisher's behalf, usable only through SNS. `Topic.grantPublish` grants
 * `kms:GenerateDataKey*` on the key for any use instead.
 *
 * @example
 * ```ts
 * grantTopicPublish({ grantee: role, topic, key });
 * ```
 */
export function grantTopicPublish({ grantee, topic, key }: GrantTopicPublishOptions): void {
  grantee.grantPrincipal.addToPrincipalPolicy(
    new PolicyStatement({ actions: ['sns:Publish'], resources: [topic.topicArn] }),
  );
  grantee.grantPrincipal.addToPrincipalPolicy(
    new PolicyStatement({
      actions: ['kms:GenerateDataKey', 'kms:Decrypt'],
      resources: [key.keyArn],
      conditions: { StringEquals: { 'kms:ViaService': `sns.${Aws.REGION}.amazonaws.com` } },
    }),
  );
}
