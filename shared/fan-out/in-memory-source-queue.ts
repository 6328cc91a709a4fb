import { createHash } from 'node:crypto';
import { type Clock, systemClock } from '../clock.js';
import type { SourceMessage } from './source-message.js';
import type { QueuedSource, SendReport, SourceQueue } from './source-queue.js';
import type { SqsBatchResponse, SqsEvent, SqsRecord } from './sqs-records.js';

/** Options of {@link InMemorySourceQueue}. */
export interface InMemorySourceQueueOptions {
  /** Default: the system clock. Visibility and deduplication run on it (only its `now` is read). */
  clock?: Pick<Clock, 'now'>;
  /** How long a received message stays hidden unless deleted or delayed. Default 720 seconds. */
  visibilityTimeoutSeconds?: number;
  /** Receives after which a message that keeps failing moves to `deadLetters`. Default 5. */
  maxReceiveCount?: number;
}

interface StoredMessage {
  messageId: string;
  body: string;
  groupId: string;
  deduplicationId: string;
  sentAt: number;
  receiveCount: number;
  visibleAt: number;
  receiptHandle: string | undefined;
}

const DEDUPLICATION_WINDOW_MS = 5 * 60_000;
const QUEUE_ARN = 'arn:aws:sqs:eu-west-1:123456789012:atlas-audit-alerts-sources.fifo';

/**
 * A FIFO source queue in memory, for tests, benchmarks and local runs: what SQS and the Lambda event
 * source mapping do, as far as the fan-out relies on it. Sends drop a deduplication id seen in the last
 * five minutes; `receive` hands out records shaped as the event source mapping delivers them, never two
 * in flight from one message group and a group's messages in order; `complete` applies a function's
 * `batchItemFailures` answer (listed records come back when their visibility ends, the others are
 * deleted), and a message received `maxReceiveCount` times that fails again moves to `deadLetters`.
 *
 * @example
 * ```ts
 * const queue = new InMemorySourceQueue({ clock });
 * await dispatcher(event, context); // sends through `queue`
 * const event = queue.receive(10);
 * queue.complete(event, await worker(event, context));
 * ```
 */
export class InMemorySourceQueue implements SourceQueue {
  readonly #clock: Pick<Clock, 'now'>;
  readonly #visibilityMs: number;
  readonly #maxReceiveCount: number;
  readonly #messages: StoredMessage[] = [];
  readonly #seen = new Map<string, number>();
  readonly #deadLetters: StoredMessage[] = [];
  #sequence = 0;

  constructor(options: InMemorySourceQueueOptions = {}) {
    this.#clock = options.clock ?? systemClock;
    this.#visibilityMs = (options.visibilityTimeoutSeconds ?? 720) * 1_000;
    this.#maxReceiveCount = options.maxReceiveCount ?? 5;
  }

  /** Messages waiting or in flight. */
  get depth(): number {
    return this.#messages.length;
  }

  /** Messages moved to the dead-letter queue, as they were sent. */
  get deadLetters(): SourceMessage[] {
    return this.#deadLetters.map((message) => JSON.parse(message.body) as SourceMessage);
  }

  async send(entries: readonly QueuedSource[]): Promise<SendReport> {
    const now = this.#clock.now();
    let sent = 0;
    for (const entry of entries) {
      const seenAt = this.#seen.get(entry.deduplicationId);
      sent += 1;
      // SQS answers success for a duplicate, and drops it.
      if (seenAt !== undefined && now - seenAt < DEDUPLICATION_WINDOW_MS) continue;
      this.#seen.set(entry.deduplicationId, now);
      this.#sequence += 1;
      this.#messages.push({
        messageId: `message-${this.#sequence}`,
        body: JSON.stringify(entry.message),
        groupId: entry.groupId,
        deduplicationId: entry.deduplicationId,
        sentAt: now,
        receiveCount: 0,
        visibleAt: now,
        receiptHandle: undefined,
      });
    }
    return { sent, failed: [] };
  }

  async delay(receiptHandle: string, seconds: number): Promise<void> {
    const message = this.#messages.find((candidate) => candidate.receiptHandle === receiptHandle);
    if (message !== undefined) message.visibleAt = this.#clock.now() + seconds * 1_000;
  }

  /**
   * Up to `max` visible messages as one event, taking whole groups' heads in order: a group with a
   * message in flight gives none. Empty when nothing is visible.
   */
  receive(max: number): SqsEvent {
    const now = this.#clock.now();
    const busy = new Set(
      this.#messages
        .filter((message) => message.receiptHandle !== undefined && message.visibleAt > now)
        .map((message) => message.groupId),
    );
    const records: SqsRecord[] = [];
    const taken = new Set<string>();
    for (const message of this.#messages) {
      if (records.length >= max) break;
      if (busy.has(message.groupId)) continue;
      if (message.visibleAt > now) {
        // A hidden message holds back the rest of its group, as in a FIFO queue.
        busy.add(message.groupId);
        continue;
      }
      taken.add(message.groupId);
      message.receiveCount += 1;
      message.visibleAt = now + this.#visibilityMs;
      message.receiptHandle = `${message.messageId}-receipt-${message.receiveCount}`;
      records.push(this.#record(message));
    }
    return { Records: records };
  }

  /** Applies a function's answer to the event it was given; a thrown invocation is `undefined`: every record fails. */
  complete(event: SqsEvent, response: SqsBatchResponse | undefined): void {
    const failed = new Set(
      response === undefined
        ? event.Records.map((record) => record.messageId)
        : response.batchItemFailures.map((failure) => failure.itemIdentifier),
    );
    for (const record of event.Records) {
      const index = this.#messages.findIndex((message) => message.receiptHandle === record.receiptHandle);
      if (index < 0) continue;
      const message = this.#messages[index] as StoredMessage;
      if (!failed.has(record.messageId)) {
        this.#messages.splice(index, 1);
      } else if (message.receiveCount >= this.#maxReceiveCount) {
        this.#messages.splice(index, 1);
        this.#deadLetters.push(message);
      } else {
        // Stays in its place, hidden until its visibility (or the delay a worker set) ends: the rest
        // of its group waits behind it, as in a FIFO queue.
        message.receiptHandle = undefined;
      }
    }
  }

  #record(message: StoredMessage): SqsRecord {
    return {
      messageId: message.messageId,
      receiptHandle: message.receiptHandle as string,
      body: message.body,
      attributes: {
        ApproximateReceiveCount: String(message.receiveCount),
        SentTimestamp: String(message.sentAt),
        MessageGroupId: message.groupId,
        MessageDeduplicationId: message.deduplicationId,
      },
      messageAttributes: {},
      md5OfBody: createHash('md5').update(message.body).digest('hex'),
      eventSource: 'aws:sqs',
      eventSourceARN: QUEUE_ARN,
      awsRegion: 'eu-west-1',
    };
  }
}
