import { Aws } from 'aws-cdk-lib';
import { PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import { type ITopic, Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import { Construct } from 'constructs';
import type { SubscriptionDeadLetters } from './subscription-dead-letters.js';

export interface OperationsTopicProps {
  /** The customer managed key the topic is encrypted with; CloudWatch alarms are allowed to use it. */
  key: IKey;
  /** Addresses that receive the alarms. */
  emails: readonly string[];
  /** Where the email subscriptions' dead-letter queue is made. */
  deadLetters: SubscriptionDeadLetters;
}

/**
 * The topic the stack's own alarms go to, apart from the alerts so the people who run the deployment
 * are not the only readers of security alerts, and the other way round. Encrypted with the stack's
 * key, which CloudWatch alarms may use for this purpose only. An alarm SNS could not email lands in
 * the email subscriptions' dead-letter queue.
 */
export class OperationsTopic extends Construct {
  readonly topic: ITopic;

  constructor(scope: Construct, id: string, props: OperationsTopicProps) {
    super(scope, id);
    const topic = new Topic(this, 'Topic', {
      displayName: 'Atlas audit alerts: operations',
      masterKey: props.key,
      enforceSSL: true,
    });
    const cloudWatch = new ServicePrincipal('cloudwatch.amazonaws.com');
    // CloudWatch acts for whoever owns the alarm: both grants hold only for the alarms of this account
    // and region, so no other account's alarm can use them (the confused deputy).
    const alarmsOfThisAccount = {
      StringEquals: { 'aws:SourceAccount': Aws.ACCOUNT_ID },
      ArnLike: {
        'aws:SourceArn': `arn:${Aws.PARTITION}:cloudwatch:${Aws.REGION}:${Aws.ACCOUNT_ID}:alarm:*`,
      },
    };
    // The stack's topic policy replaces SNS's default one, so the alarms of this account need a grant.
    topic.addToResourcePolicy(
      new PolicyStatement({
        principals: [cloudWatch],
        actions: ['sns:Publish'],
        resources: [topic.topicArn],
        conditions: alarmsOfThisAccount,
      }),
    );
    // An alarm publishes to an encrypted topic with CloudWatch's own identity, which needs the key.
    props.key.addToResourcePolicy(
      new PolicyStatement({
        principals: [cloudWatch],
        actions: ['kms:Decrypt', 'kms:GenerateDataKey*'],
        resources: ['*'],
        conditions: alarmsOfThisAccount,
      }),
    );
    const deadLetterQueue =
      props.emails.length === 0
        ? undefined
        : props.deadLetters.queueFor({
            id: 'OperationsEmailDeadLetters',
            topic,
            description:
              'SNS could not deliver an alarm to one of the operations email addresses (operations.emails) and it waits in this dead-letter queue for 14 days. Check that the address still exists and confirmed its subscription; the alarms themselves are in the CloudWatch console.',
          });
    for (const email of props.emails) {
      topic.addSubscription(
        new EmailSubscription(email, deadLetterQueue === undefined ? {} : { deadLetterQueue }),
      );
    }
    this.topic = topic;
  }
}
