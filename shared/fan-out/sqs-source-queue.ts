import {
  ChangeMessageVisibilityCommand,
  SendMessageBatchCommand,
  type SendMessageBatchCommandOutput,
  type SendMessageBatchRequestEntry,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import type { QueuedSource, SendReport, SourceQueue } from './source-queue.js';

/** Entries in one `SendMessageBatch`: the SQS limit. */
export const SQS_BATCH_LIMIT = 10;
/** `SendMessageBatch` calls in flight at once. */
const SEND_CONCURRENCY = 8;
/** The longest visibility timeout SQS accepts: 12 hours. */
export const MAX_VISIBILITY_SECONDS = 43_200;

/** Options of {@link SqsSourceQueue}. */
export interface SqsSourceQueueOptions {
  client: SQSClient;
  /** The FIFO queue's URL. */
  queueUrl: string;
}

/**
 * The fan-out queue in SQS: `SendMessageBatch` ten messages a call, entries SQS refused sent once
 * more (a refused entry that is the sender's fault, `SenderFault`, is not), and
 * `ChangeMessageVisibility` to delay a received message.
 *
 * @example
 * ```ts
 * const queue = new SqsSourceQueue({ client: new SQSClient({}), queueUrl });
 * const report = await queue.send(queuedSources({ sources, tickAt, maxConcurrencyPerOrg: 2 }));
 * ```
 */
export class SqsSourceQueue implements SourceQueue {
  readonly #client: SQSClient;
  readonly #queueUrl: string;

  constructor(options: SqsSourceQueueOptions) {
    this.#client = options.client;
    this.#queueUrl = options.queueUrl;
  }

  /** Sends every entry; the report lists those SQS still refused after one retry. */
  async send(entries: readonly QueuedSource[]): Promise<SendReport> {
    const batches: QueuedSource[][] = [];
    for (let start = 0; start < entries.length; start += SQS_BATCH_LIMIT) {
      batches.push(entries.slice(start, start + SQS_BATCH_LIMIT));
    }
    const report: SendReport = { sent: 0, failed: [] };
    let next = 0;
    const lane = async (): Promise<void> => {
      while (next < batches.length) {
        const batch = batches[next++] as QueuedSource[];
        await this.#sendBatch(batch, report, true);
      }
    };
    await Promise.all(Array.from({ length: Math.min(SEND_CONCURRENCY, batches.length) }, lane));
    return report;
  }

  /** Hides the received message for `seconds` (clamped to what SQS accepts). */
  async delay(receiptHandle: string, seconds: number): Promise<void> {
    await this.#client.send(
      new ChangeMessageVisibilityCommand({
        QueueUrl: this.#queueUrl,
        ReceiptHandle: receiptHandle,
        VisibilityTimeout: Math.min(MAX_VISIBILITY_SECONDS, Math.max(0, Math.ceil(seconds))),
      }),
    );
  }

  async #sendBatch(batch: readonly QueuedSource[], report: SendReport, retry: boolean): Promise<void> {
    const byId = new Map(batch.map((entry, index) => [String(index), entry]));
    const requestEntries: SendMessageBatchRequestEntry[] = [...byId].map(([id, entry]) => ({
      Id: id,
      MessageBody: JSON.stringify(entry.message),
      MessageGroupId: entry.groupId,
      MessageDeduplicationId: entry.deduplicationId,
    }));
    let output: SendMessageBatchCommandOutput;
    try {
      output = await this.#client.send(
        new SendMessageBatchCommand({ QueueUrl: this.#queueUrl, Entries: requestEntries }),
      );
    } catch (error) {
      if (retry) return this.#sendBatch(batch, report, false);
      const code = (error as { name?: unknown }).name;
      for (const entry of batch) {
        report.failed.push({
          deduplicationId: entry.deduplicationId,
          code: typeof code === 'string' ? code : 'SendMessageBatchFailed',
          message: error instanceof Error ? error.message : String(error),
        });
      }
      return;
    }
    report.sent += output.Successful?.length ?? 0;
    const again: QueuedSource[] = [];
    for (const failure of output.Failed ?? []) {
      const entry = byId.get(failure.Id ?? '');
      if (entry === undefined) continue;
      if (retry && failure.SenderFault !== true) again.push(entry);
      else {
        report.failed.push({
          deduplicationId: entry.deduplicationId,
          code: failure.Code ?? 'Unknown',
          message: failure.Message ?? 'SQS refused the entry without a message',
        });
      }
    }
    if (again.length > 0) await this.#sendBatch(again, report, false);
  }
}
