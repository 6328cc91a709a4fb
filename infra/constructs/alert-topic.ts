import type { IKey } from 'aws-cdk-lib/aws-kms';
import { type ITopic, Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import { Construct } from 'constructs';
import type { Severity } from '../../shared/notify/alert.js';
import { severityAtLeast } from './severity-filter.js';

export interface AlertTopicProps {
  /** The customer managed key the topic is encrypted with. */
  key: IKey;
  /** Addresses that receive alerts by email. */
  emails: readonly string[];
  /** The lowest severity that is emailed. */
  emailMinSeverity: Severity;
}

/**
 * The topic the poller publishes alerts to: encrypted, TLS only, with one email subscription per
 * address that lets through only alerts at or above the email severity floor. Anything else (HTTPS,
 * SQS, Lambda) can subscribe to it too.
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
    for (const email of props.emails) {
      topic.addSubscription(
        new EmailSubscription(email, { filterPolicy: severityAtLeast(props.emailMinSeverity) }),
      );
    }
    this.topic = topic;
  }
}
