import type { Clock } from '../clock.js';
import type { Logger } from '../logger.js';
import { buildDigestEntries } from '../notify/digest-message.js';
import { type DigestEvery, parseDigestPeriod } from '../notify/digest-period.js';
import type { DigestPublisher } from '../notify/digest-publisher.js';
import type { DigestStore } from '../state/digest-store.js';

/** A route whose alerts below a severity go to a digest. */
export interface DigestRoute {
  route: string;
  every: DigestEvery;
}

/** Options of {@link flushDigests}. */
export interface FlushDigestsOptions {
  routes: readonly DigestRoute[];
  store: DigestStore;
  publisher: DigestPublisher;
  clock: Clock;
  /** How long a digest's claim holds before another worker may take it over: longer than a publish takes. */
  claimMs: number;
  logger: Logger;
  signal?: AbortSignal;
}

/** What one flush did, over every route. */
export interface DigestFlush {
  /** Digests published (each of one or more parts) and marked sent. */
  sent: number;
  /** Messages published: the parts of the digests sent. */
  parts: number;
  /** Alerts told by the digests sent. */
  alerts: number;
  /** Digests another worker is publishing now, or sent already. */
  skipped: number;
  /** Digests whose publish failed: their claims are released and their entries kept for the next tick. */
  failed: number;
  /** Stored entries left out of the digests sent because they are not entries this program wrote. */
  unreadable: number;
}

/**
 * Sends the digest of every ended period that holds pending entries, once: for each route, claims the
 * (route, period) as alerts are claimed, reads its entries, publishes its parts and marks it sent, which
 * drops the entries. A failed publish releases the claim and keeps the entries, so the next tick sends
 * the digest; a second worker finds the claim and leaves the digest alone. A stored entry that is not
 * one this program wrote is left out, logged by where it is, and dropped with the rest when the digest
 * is sent, so it never holds the route's digests back. A digest whose store call fails is logged and
 * left for the next tick; the flush goes on with the others. Never throws for a
 * failure of one digest.
 *
 * @example
 * ```ts
 * const flush = await flushDigests({ routes: [{ route: 'security', every: 'daily' }], store, publisher, clock, claimMs: 300_000, logger });
 * ```
 */
export async function flushDigests(options: FlushDigestsOptions): Promise<DigestFlush> {
  const flush: DigestFlush = { sent: 0, parts: 0, alerts: 0, skipped: 0, failed: 0, unreadable: 0 };
  for (const { route, every } of options.routes) {
    let periods: string[];
    try {
      periods = await options.store.listDigestPeriods({ route });
    } catch (error) {
      options.logger.error('could not read the pending digests of a route', { route, ...errorOf(error) });
      flush.failed += 1;
      continue;
    }
    for (const id of periods) {
      if (options.signal?.aborted) return flush;
      const period = parseDigestPeriod(id);
      // A period of another cadence (the route's `every` changed) is still sent once it ends.
      if (period === undefined || period.end > options.clock.now()) continue;
      try {
        await flushOne(options, route, period, flush);
      } catch (error) {
        options.logger.error('a digest could not be sent; it is tried again next tick', {
          route,
          period: id,
          every,
          ...errorOf(error),
        });
        flush.failed += 1;
      }
    }
  }
  return flush;
}

async function flushOne(
  options: FlushDigestsOptions,
  route: string,
  period: NonNullable<ReturnType<typeof parseDigestPeriod>>,
  flush: DigestFlush,
): Promise<void> {
  const claimed = await options.store.claimDigest({ route, period: period.id, claimMs: options.claimMs });
  if (claimed.outcome !== 'claimed') {
    flush.skipped += 1;
    return;
  }
  const { claim } = claimed;
  let published = false;
  try {
    const { entries, unreadable } = await options.store.readDigestEntries({ route, period: period.id });
    if (unreadable.length > 0) {
      // Said by where they are and what is wrong, never by their text: it came from events.
      options.logger.warn('digest entries that are not ones this program wrote are left out of the digest', {
        route,
        period: period.id,
        unreadable: unreadable.length,
        problems: unreadable.slice(0, 5),
      });
    }
    const parts = buildDigestEntries({ route, period, entries });
    const results =
      parts.length === 0
        ? []
        : await options.publisher.publishDigest(parts, options.signal ? { signal: options.signal } : {});
    const failure = results.find((result) => result.status === 'failed');
    if (failure !== undefined) {
      options.logger.warn('a digest was not published; it is tried again next tick', {
        route,
        period: period.id,
        code: failure.code,
        error: failure.message,
      });
      flush.failed += 1;
      return;
    }
    published = true;
    await options.store.markDigestSent({ claim });
    flush.sent += 1;
    flush.parts += parts.length;
    flush.alerts += entries.length;
    flush.unreadable += unreadable.length;
    options.logger.info('digest sent', {
      route,
      period: period.id,
      parts: parts.length,
      alerts: entries.length,
    });
  } finally {
    // A digest not published gives its claim back at once, so the next tick need not wait for it to expire.
    if (!published) await options.store.releaseDigestClaim({ claim });
  }
}

function errorOf(error: unknown): { error: string; errorCode?: string } {
  const code = (error as { code?: unknown }).code;
  return {
    error: error instanceof Error ? error.message : String(error),
    ...(typeof code === 'string' ? { errorCode: code } : {}),
  };
}
