import { Aws, Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import { PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';

/** One dead-letter queue and what its messages mean, for its alarm. */
export interface SubscriptionDeadLetterQueue {
  /** The alarm's id, such as `AlertEmailDeadLetters`. */
  id: string;
  queue: Queue;
  /** What a message in the queue means and what to do, for the alarm's description. */
  description: string;
}

/**
 * The dead-letter queues of the stack's SNS subscriptions (alert emails, the Slack leg, operations
 * emails): a notification SNS gave up delivering lands there instead of vanishing, and an alarm sees
 * it. The queues are encrypted with a key of their own, whose policy lets SNS use it only for the
 * topics named through {@link queueFor}: the topics' own key cannot name them, since they depend on it.
 * Messages are kept 14 days. Nothing is created until the first queue is asked for, so a stack with no
 * subscription of its own has no key either.
 */
export class SubscriptionDeadLetters extends Construct {
  readonly #queues: SubscriptionDeadLetterQueue[] = [];
  readonly #topics = new Set<ITopic>();
  #key: Key | undefined;

  /** The queues made so far, each with its alarm's id and description. */
  get queues(): readonly SubscriptionDeadLetterQueue[] {
    return this.#queues;
  }

  /**
   * A dead-letter queue for subscriptions of `topic` (the subscription's `deadLetterQueue` adds the
   * queue policy that lets the topic send to it; this adds the key grant).
   */
  queueFor(options: { id: string; topic: ITopic; description: string }): Queue {
    this.#key ??= new Key(this, 'Key', {
      description: 'Encrypts the dead-letter queues of the atlas-audit-alerts subscriptions',
      enableKeyRotation: true,
      removalPolicy: RemovalPolicy.DESTROY,
      pendingWindow: Duration.days(7),
    });
    const key = this.#key;
    const queue = new Queue(this, options.id, {
      encryption: QueueEncryption.KMS,
      encryptionMasterKey: key,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
      removalPolicy: RemovalPolicy.DESTROY,
    });
    Validations.of(queue).acknowledge({
      id: 'AwsSolutions-SQS3',
      reason:
        "This queue is the dead-letter queue of SNS subscriptions (their RedrivePolicy), which cdk-nag's rule does not look for; a dead-letter queue needs none of its own.",
    });
    if (!this.#topics.has(options.topic)) {
      this.#topics.add(options.topic);
      // SNS writes to an encrypted queue with its own identity; only for this topic of this account.
      key.addToResourcePolicy(
        new PolicyStatement({
          principals: [new ServicePrincipal('sns.amazonaws.com')],
          actions: ['kms:Decrypt', 'kms:GenerateDataKey*'],
          resources: ['*'],
          conditions: {
            StringEquals: { 'aws:SourceAccount': Aws.ACCOUNT_ID },
            ArnEquals: { 'aws:SourceArn': options.topic.topicArn },
          },
        }),
      );
    }
    this.#queues.push({ id: options.id, queue, description: options.description });
    return queue;
  }
}
