import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import { DeduplicationScope, FifoThroughputLimit, Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { type FanOutSettings, queueVisibilitySeconds } from '../fan-out-settings.js';

export interface FanOutQueueProps {
  settings: FanOutSettings;
  /** The stack's messaging key: both queues are encrypted with it. */
  key: IKey;
}

/**
 * The fan-out's FIFO source queue and its dead-letter queue. FIFO because its message groups bound
 * the workers polling one organization at once, and its deduplication drops a source queued twice
 * for one tick; high-throughput mode (deduplication and limits per message group) because thousands
 * of sources are queued at once. Both queues use the stack's KMS key and refuse requests without TLS.
 * A message that fails `maxReceiveCount` times moves to the dead-letter queue, kept 14 days.
 */
export class FanOutQueue extends Construct {
  readonly queue: Queue;
  readonly deadLetterQueue: Queue;

  constructor(scope: Construct, id: string, props: FanOutQueueProps) {
    super(scope, id);
    const encryption = {
      encryption: QueueEncryption.KMS,
      encryptionMasterKey: props.key,
      dataKeyReuse: Duration.hours(1),
      enforceSSL: true,
      removalPolicy: RemovalPolicy.DESTROY,
    };
    this.deadLetterQueue = new Queue(this, 'DeadLetters', {
      fifo: true,
      retentionPeriod: Duration.days(14),
      ...encryption,
    });
    this.queue = new Queue(this, 'Sources', {
      fifo: true,
      deduplicationScope: DeduplicationScope.MESSAGE_GROUP,
      fifoThroughputLimit: FifoThroughputLimit.PER_MESSAGE_GROUP_ID,
      visibilityTimeout: Duration.seconds(queueVisibilitySeconds(props.settings)),
      // A source message older than a day is of no use: later ticks have queued the source again.
      retentionPeriod: Duration.days(1),
      deadLetterQueue: { queue: this.deadLetterQueue, maxReceiveCount: props.settings.maxReceiveCount },
      ...encryption,
    });
  }
}
