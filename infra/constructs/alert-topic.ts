import type { IKey } from 'aws-cdk-lib/aws-kms';
import { type ITopic, Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import { Construct } from 'constructs';
import type { SnsFilterPolicy } from '../../shared/routes/filter-policy.js';
import type { SubscriptionDeadLetters } from './subscription-dead-letters.js';
import { setFilterPolicy } from './subscription-filter.js';

export interface AlertTopicProps {
  /** The customer managed key the topic is encrypted with. */
  key: IKey;
  /**
   * Addresses that receive alerts by email, each with the filter policy of its subscription (the
   * routes that name it, together); none takes every alert.
   */
  emails: readonly { address: string; filterPolicy: SnsFilterPolicy | undefined }[];
  /** Where the email subscriptions' dead-letter queue is made. */
  deadLetters: SubscriptionDeadLetters;
}

/**
 * The topic the poller publishes alerts to: encrypted, TLS only, with one email subscription per
 * address that lets through only the alerts of its routes, and an alert SNS could not email lands in
 * their dead-letter queue. Anything else (HTTPS, SQS, Lambda) can subscribe to it too.
 */
export class AlertTopic extends Construct {
  readonly topic: ITopic;

  constructor(scope: Construct, id: string, props: AlertTopicProps) {
    super(scope, id);
    const topic = new Topic(this, 'Topic', {
      displayName: 'Atlas audit alerts',
      masterKey: props.key,
      enforceSSL: true,
    });
    const deadLetterQueue =
      props.emails.length === 0
        ? undefined
        : props.deadLetters.queueFor({
            id: 'AlertEmailDeadLetters',
            topic,
            description:
              'SNS could not deliver an alert to one of the alert email addresses (alerts.emails, routes) and it waits in this dead-letter queue for 14 days. Check that the address still exists and confirmed its subscription; read the alert from the queue in the SQS console.',
          });
    for (const { address, filterPolicy } of props.emails) {
      const subscription = topic.addSubscription(
        new EmailSubscription(address, deadLetterQueue === undefined ? {} : { deadLetterQueue }),
      );
      setFilterPolicy(subscription, filterPolicy);
    }
    this.topic = topic;
  }
}
