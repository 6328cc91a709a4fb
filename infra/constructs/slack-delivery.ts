import { Aws, Duration, RemovalPolicy } from 'aws-cdk-lib';
import { LoggingLevel, SlackChannelConfiguration } from 'aws-cdk-lib/aws-chatbot';
import { ManagedPolicy, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import { CfnPipe } from 'aws-cdk-lib/aws-pipes';
import { type ITopic, Topic } from 'aws-cdk-lib/aws-sns';
import { SqsSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import { type IQueue, Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { SnsFilterPolicy } from '../../shared/routes/filter-policy.js';
import type { SubscriptionDeadLetters } from './subscription-dead-letters.js';
import { setFilterPolicy } from './subscription-filter.js';
import { grantTopicPublish } from './topic-publish-grant.js';

export interface SlackDeliveryProps {
  /** The topic alerts are published to. */
  alertTopic: ITopic;
  /** The name of the AWS Chatbot channel configuration: unique in the account. */
  configurationName: string;
  workspaceId: string;
  channelId: string;
  /** The filter policy of the channel's subscription (its routes' together); none takes every alert. */
  filterPolicy: SnsFilterPolicy | undefined;
  /** Where the dead-letter queue of the alert topic's subscription to the Slack queue is made. */
  deadLetters: SubscriptionDeadLetters;
  /** The id of that dead-letter queue and of its alarm: one per Slack channel. */
  deadLetterId: string;
}

/**
 * Delivers the alerts of its routes (the subscription's filter policy) to a Slack channel through AWS Chatbot.
 *
 * AWS Chatbot subscribes itself to the topics of a channel configuration, and CloudFormation cannot set
 * a filter policy on that subscription. So the filter sits on a subscription we own: the alert topic
 * feeds a queue through its routes' filter, an EventBridge pipe forwards each message body unchanged to a
 * topic of its own, and Chatbot reads that topic. Messages the pipe cannot forward land in a dead-letter
 * queue that the operations alarms watch, and so do those SNS could not put into the Slack queue.
 */
export class SlackDelivery extends Construct {
  /** Where messages go that could not be forwarded to Slack. */
  readonly deadLetterQueue: IQueue;
  /** The topic the Chatbot channel configuration reads. */
  readonly topic: ITopic;

  constructor(scope: Construct, id: string, props: SlackDeliveryProps) {
    super(scope, id);
    // A key of its own: the queue's key policy names the alert topic, which the stack's key encrypts.
    const key = new Key(this, 'Key', {
      description: 'Encrypts the atlas-audit-alerts Slack queues and topic',
      enableKeyRotation: true,
      removalPolicy: RemovalPolicy.DESTROY,
      pendingWindow: Duration.days(7),
    });
    const deadLetterQueue = new Queue(this, 'DeadLetterQueue', {
      encryption: QueueEncryption.KMS,
      encryptionMasterKey: key,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
    });
    const queue = new Queue(this, 'Queue', {
      encryption: QueueEncryption.KMS,
      encryptionMasterKey: key,
      enforceSSL: true,
      // An alert more than a day old is better read in the email or the alert history than in chat.
      retentionPeriod: Duration.days(1),
      deadLetterQueue: { queue: deadLetterQueue, maxReceiveCount: 5 },
    });
    const subscription = props.alertTopic.addSubscription(
      new SqsSubscription(queue, {
        rawMessageDelivery: true,
        deadLetterQueue: props.deadLetters.queueFor({
          id: props.deadLetterId,
          topic: props.alertTopic,
          description:
            'SNS could not put an alert into the Slack queue (its key policy or queue policy refuses the alert topic) and it waits in this dead-letter queue for 14 days; it still went to email. Check the Slack queue, its policy and its key in the SQS console.',
        }),
      }),
    );
    setFilterPolicy(subscription, props.filterPolicy);

    const topic = new Topic(this, 'Topic', {
      displayName: 'Atlas audit alerts: Slack',
      masterKey: key,
      enforceSSL: true,
    });

    const role = new Role(this, 'PipeRole', {
      assumedBy: new ServicePrincipal('pipes.amazonaws.com', {
        conditions: { StringEquals: { 'aws:SourceAccount': Aws.ACCOUNT_ID } },
      }),
      description: 'Forwards the alerts of its routes to the Slack topic',
    });
    queue.grantConsumeMessages(role);
    grantTopicPublish({ grantee: role, topic, key });
    const pipe = new CfnPipe(this, 'Pipe', {
      description: 'Forwards the alerts of its routes to the Slack topic',
      roleArn: role.roleArn,
      source: queue.queueArn,
      sourceParameters: { sqsQueueParameters: { batchSize: 1 } },
      target: topic.topicArn,
      // The body is the AWS Chatbot custom notification the poller wrote: forward it as it is.
      targetParameters: { inputTemplate: '<$.body>' },
    });
    // Pipes checks its role's permissions when it is created.
    pipe.node.addDependency(role);

    new SlackChannelConfiguration(this, 'Channel', {
      slackChannelConfigurationName: props.configurationName,
      slackWorkspaceId: props.workspaceId,
      slackChannelId: props.channelId,
      notificationTopics: [topic],
      // The channel only receives notifications: nobody can run AWS commands from it.
      guardrailPolicies: [ManagedPolicy.fromAwsManagedPolicyName('AWSDenyAll')],
      userRoleRequired: false,
      loggingLevel: LoggingLevel.ERROR,
    });

    this.deadLetterQueue = deadLetterQueue;
    this.topic = topic;
  }
}
