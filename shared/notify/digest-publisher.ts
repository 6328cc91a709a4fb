import { PublishCommand, type SNSClient } from '@aws-sdk/client-sns';
import type { PublishResult } from './notifier.js';
import { classifySnsCallError } from './sns-call-failure.js';
import type { SnsEntry } from './sns-entry.js';
import { validateSnsEntry } from './validate-sns-entry.js';

/**
 * The port a digest's parts are published through: SNS in the Lambda (see {@link SnsDigestPublisher}),
 * the outbox locally. One result per part, in order, each named by the part's `Id` (as `fingerprint`);
 * rejects only on a programming error.
 */
export interface DigestPublisher {
  publishDigest(parts: readonly SnsEntry[], options?: { signal?: AbortSignal }): Promise<PublishResult[]>;
}

/** Options of {@link SnsDigestPublisher}. */
export interface SnsDigestPublisherOptions {
  client: SNSClient;
  topicArn: string;
}

/**
 * Publishes a digest's parts to the alerts topic, one `Publish` each, in order (a route sends a few a
 * day: the SDK's own retries suffice). A part that fails stops the rest: they are all sent again with
 * the digest on the next tick, and parts already taken are said once more rather than lost. Each part
 * is checked by `validateSnsEntry` before it is sent.
 *
 * @example
 * ```ts
 * const publisher = new SnsDigestPublisher({ client, topicArn });
 * const results = await publisher.publishDigest(buildDigestEntries({ route, period, entries }));
 * ```
 */
export class SnsDigestPublisher implements DigestPublisher {
  readonly #client: SNSClient;
  readonly #topicArn: string;

  constructor(options: SnsDigestPublisherOptions) {
    this.#client = options.client;
    this.#topicArn = options.topicArn;
  }

  async publishDigest(
    parts: readonly SnsEntry[],
    options: { signal?: AbortSignal } = {},
  ): Promise<PublishResult[]> {
    const results: PublishResult[] = [];
    let stopped: PublishResult | undefined;
    for (const part of parts) {
      if (stopped !== undefined) {
        results.push({ ...stopped, fingerprint: part.Id } as PublishResult);
        continue;
      }
      const validation = validateSnsEntry(part);
      if (!validation.valid) {
        stopped = {
          status: 'failed',
          fingerprint: part.Id,
          retryable: false,
          code: 'INVALID_ENTRY',
          message: `the digest part breaks a rule of SNS: ${validation.problems.join('; ')}`,
        };
        results.push(stopped);
        continue;
      }
      try {
        const output = await this.#client.send(
          new PublishCommand({
            TopicArn: this.#topicArn,
            Subject: part.Subject,
            Message: part.Message,
            MessageStructure: part.MessageStructure,
            MessageAttributes: part.MessageAttributes,
          }),
          options.signal === undefined ? {} : { abortSignal: options.signal },
        );
        results.push({
          status: 'sent',
          fingerprint: part.Id,
          ...(output.MessageId === undefined ? {} : { messageId: output.MessageId }),
        });
      } catch (error) {
        const failure = classifySnsCallError(error, options.signal);
        stopped = {
          status: 'failed',
          fingerprint: part.Id,
          retryable: failure.kind !== 'entries',
          code: failure.code,
          message: failure.message,
        };
        results.push(stopped);
      }
    }
    return results;
  }
}
