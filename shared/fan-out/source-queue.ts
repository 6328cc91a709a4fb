import type { SourceMessage } from './source-message.js';

/** One source message as the dispatcher hands it to the queue. */
export interface QueuedSource {
  message: SourceMessage;
  /** The FIFO message group: the source's organization and one of its concurrency slots. */
  groupId: string;
  /** The same source in the same tick has the same id: the queue drops a second send of it. */
  deduplicationId: string;
}

/** What became of a batch of sends. */
export interface SendReport {
  /** Messages the queue accepted. */
  sent: number;
  /** Messages the queue still refused after a retry, with the queue's error code; never a body. */
  failed: Array<{ deduplicationId: string; code: string; message: string }>;
}

/**
 * Where the dispatcher sends source messages and where the worker delays one. In AWS it is the SQS
 * queue (`SqsSourceQueue`); tests and benchmarks use `InMemorySourceQueue`, which hands the worker
 * records shaped as the event source mapping delivers them.
 */
export interface SourceQueue {
  /** Sends the messages (in batches of the queue's limit); never throws for refused entries: the report lists them. */
  send(entries: readonly QueuedSource[]): Promise<SendReport>;
  /** Keeps a received message hidden for `seconds` from now: it is delivered again after that. */
  delay(receiptHandle: string, seconds: number): Promise<void>;
}
