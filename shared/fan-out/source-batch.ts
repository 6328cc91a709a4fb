import type { Logger } from '../logger.js';
import type { PollSource, SourceOutcome, TickSummary } from '../poll/index.js';
import type { SourceStanding } from './configured-sources.js';
import { SourceMessageError } from './errors.js';
import { messageSource, parseSourceMessage, type SourceMessage } from './source-message.js';
import type { SourceQueue } from './source-queue.js';
import type { SqsBatchResponse, SqsEvent, SqsRecord } from './sqs-records.js';

/** How long a rate-limited organization's message waits when Atlas gave no `Retry-After`. */
export const DEFAULT_RATE_LIMIT_DELAY_SECONDS = 60;

/** Options of {@link pollSourceBatch}. */
export interface PollSourceBatchOptions {
  event: SqsEvent;
  /** Delays the message of a source Atlas rate-limited. */
  queue: SourceQueue;
  /**
   * Polls the given sources with the tick's code path (`runTick` with `sources`); `woken` are those a
   * push queued (`runTick`'s `woken`: read up to now).
   */
  poll: (sources: PollSource[], woken: PollSource[]) => Promise<TickSummary>;
  /** Whether a message names a source of the deployment (`ConfiguredSources.standing`). */
  standing: (message: SourceMessage) => Promise<SourceStanding>;
  logger: Logger;
}

/** What a batch came to. */
export interface SourceBatchResult {
  /** The answer for the event source mapping: the records to deliver again. */
  response: SqsBatchResponse;
  /** The tick over the batch's sources; undefined when no record named one. */
  summary: TickSummary | undefined;
  /** Records that were not source messages (they fail until the dead-letter queue takes them). */
  badMessages: number;
  /** Records naming a source the deployment does not poll: acknowledged and dropped, unpolled. */
  unconfigured: number;
  /** Records of rate-limited sources, hidden for Atlas's `Retry-After`. */
  delayed: number;
}

/**
 * Polls the sources a batch of queue messages names, each once, in one tick (so the tick's
 * concurrency, deadline and leases apply; a source a push queued reads up to now), and decides each
 * record's fate from its source's outcome:
 *
 * - read to the end, cut short (the next tick's message goes on from the cursor), or skipped because
 *   another worker holds its lease: acknowledged, so a leased source is never retried in a loop;
 * - failed on a 429: hidden for Atlas's `Retry-After` (or {@link DEFAULT_RATE_LIMIT_DELAY_SECONDS})
 *   and reported failed, which in a FIFO queue also holds back the rest of that organization slot;
 * - failed on a server, network or store error: reported failed, delivered again after the visibility
 *   timeout, and to the dead-letter queue once it has failed too often;
 * - failed on another 4xx (403, 404: retrying cannot help; the tick's metrics and alarms report it):
 *   acknowledged;
 * - not a source message: reported failed, so it ends in the dead-letter queue;
 * - naming a source the deployment does not poll (`standing`): logged, counted and acknowledged,
 *   without being polled, so it creates no cursor, inventory or alert; one whose standing could not
 *   be learnt (Atlas did not list its organization's projects) is reported failed, to be asked
 *   about again.
 *
 * @example
 * ```ts
 * const { response } = await pollSourceBatch({ event, queue, logger,
 *   standing: (message) => configured.standing(message),
 *   poll: (sources) => runTick(deps, { config, owner, deadline, sources }) });
 * return response;
 * ```
 */
export async function pollSourceBatch(options: PollSourceBatchOptions): Promise<SourceBatchResult> {
  const { event, logger } = options;
  const failures: SqsRecord[] = [];
  const named: Array<{ record: SqsRecord; source: PollSource; push: boolean }> = [];
  let badMessages = 0;
  let unconfigured = 0;
  for (const record of event.Records) {
    let message: SourceMessage;
    try {
      message = parseSourceMessage(record.body);
    } catch (error) {
      logger.error('queue message is not a source message', {
        messageId: record.messageId,
        receiveCount: record.attributes.ApproximateReceiveCount,
        errorCode: error instanceof SourceMessageError ? error.code : 'UNEXPECTED_ERROR',
        error: error instanceof Error ? error.message : String(error),
      });
      failures.push(record);
      badMessages += 1;
      continue;
    }
    const source = messageSource(message);
    const standing = await options.standing(message);
    if (standing.status === 'configured') {
      named.push({ record, source, push: message.push === true });
      continue;
    }
    const attributes = {
      messageId: record.messageId,
      source: source.name,
      ...(message.orgId === undefined ? {} : { orgId: message.orgId }),
      tick: message.tick,
      reason: standing.reason,
    };
    if (standing.status === 'unknown') {
      logger.warn(
        'could not tell whether this deployment polls the source; its message comes back',
        attributes,
      );
      failures.push(record);
    } else {
      logger.warn('queue message names a source this deployment does not poll; dropped', attributes);
      unconfigured += 1;
    }
  }
  if (named.length === 0) {
    return { response: answer(failures), summary: undefined, badMessages, unconfigured, delayed: 0 };
  }
  const summary = await options.poll(
    named.map(({ source }) => source),
    named.filter(({ push }) => push).map(({ source }) => source),
  );
  const outcomes = new Map(summary.sources.map((outcome) => [outcome.source, outcome]));
  let delayed = 0;
  for (const { record, source } of named) {
    const outcome = outcomes.get(source.name);
    const fate = fateOf(outcome);
    if (fate === 'acknowledge') continue;
    failures.push(record);
    if (fate === 'delay') {
      const seconds = Math.ceil((outcome?.retryAfterMs ?? DEFAULT_RATE_LIMIT_DELAY_SECONDS * 1_000) / 1_000);
      try {
        await options.queue.delay(record.receiptHandle, seconds);
        delayed += 1;
      } catch (error) {
        // The message still comes back, after the queue's own visibility timeout.
        logger.warn('could not delay a rate-limited source message', {
          source: source.name,
          error: error instanceof Error ? error.message : String(error),
        });
      }
    }
  }
  return { response: answer(failures), summary, badMessages, unconfigured, delayed };
}

function fateOf(outcome: SourceOutcome | undefined): 'acknowledge' | 'delay' | 'retry' {
  // A source the tick never reached (no outcome) is polled when its message comes back.
  if (outcome === undefined) return 'retry';
  if (outcome.status !== 'failed') return 'acknowledge';
  const status = outcome.httpStatus;
  if (status === 429) return 'delay';
  if (status === undefined || status >= 500) return 'retry';
  return 'acknowledge';
}

function answer(failures: readonly SqsRecord[]): SqsBatchResponse {
  return { batchItemFailures: failures.map((record) => ({ itemIdentifier: record.messageId })) };
}
