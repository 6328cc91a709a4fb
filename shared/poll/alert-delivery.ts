import { mapWithConcurrency } from '../bounded-concurrency.js';
import type { Logger } from '../logger.js';
import { type Alert, SEVERITIES, type Severity } from '../notify/alert.js';
import type { Notifier, PublishFailed, PublishResult } from '../notify/notifier.js';
import type { AlertClaim, StateStore } from '../state/state-store.js';
import type { AlertCounts } from './tick-types.js';

/** Store requests one delivery keeps in flight at once (releases of claims not published). */
const STORE_CONCURRENCY = 8;

/**
 * A destination the poller delivers to itself beside the notifier (an EventBridge bus, Security Hub),
 * with its own claims: an alert it failed to take is delivered to it again on a later tick, while the
 * notifier, which took it, is not asked twice.
 */
export interface AlertDestination {
  /**
   * Names it in claims, logs and metrics: lower-case letters, digits and hyphens (`eventbridge`).
   * Its claims are kept under `<name>>` + the alert's fingerprint, which no fingerprint begins with.
   */
  readonly name: string;
  readonly notifier: Notifier;
  /** Whether it takes the alert (the filter policies of the routes that name it). Must not throw. */
  accepts(alert: Alert): boolean;
}

/** Options of {@link deliverAlerts}. */
export interface DeliverAlertsOptions {
  alerts: readonly Alert[];
  store: StateStore;
  notifier: Notifier;
  /** Further destinations, each delivered the alerts it accepts after the notifier. Default: none. */
  destinations?: readonly AlertDestination[];
  /** How long a claim holds before another worker may take it over. */
  claimMs: number;
  /** Aborts the publish: alerts not yet delivered come back failed and retryable. */
  signal: AbortSignal;
  logger: Logger;
  /** The source, for logs. */
  source: string;
}

/** What delivering one batch of alerts did. */
export interface Delivery {
  /** What the notifier took: the alerts' own counts. */
  counts: AlertCounts;
  /** What each further destination took, by its name (absent: none has any). */
  destinations: Record<string, AlertCounts>;
  /**
   * Whether every alert was delivered, was sent before, or can never be delivered: only then may the
   * cursor move past the events that raised them.
   */
  settled: boolean;
  /** Another worker holds a live claim on one of the alerts. */
  inProgressElsewhere: number;
  /** The first failure a later attempt may fix (the cursor stays for it), if any. */
  retryableFailure: DeliveryFailure | undefined;
}

/** A failure, with where: `notifier`, or the name of a further destination. */
export type DeliveryFailure = PublishFailed & { destination: string };

/** How {@link DeliveryFailure.destination} names the notifier. */
export const NOTIFIER_DESTINATION = 'notifier';

/**
 * Alerts claimed, published and marked together: one claim transaction's worth. Formatting an alert
 * for email and Slack takes CPU (about half a millisecond each on the benchmark machine), and the
 * tick runs on one thread: a window's thousands of alerts formatted in one go would hold up for
 * seconds the pages the source reads meanwhile for its next window. Between two chunks the claim and
 * the mark wait on the store, and the reads go on.
 */
export const ALERTS_PER_CHUNK = 100;

/**
 * Delivers alerts at most once each, in their order, a chunk of {@link ALERTS_PER_CHUNK} at a time:
 * claims the chunk by fingerprint in one batched call (skipping those already sent), publishes the
 * claimed ones in one `publish` call, marks the delivered ones sent in one batched call and releases
 * the claims of the others so the next tick can claim them at once. The store sees as many batched
 * requests as it would for all alerts at once (its batches hold 100); no alert waits long between
 * its claim and its publish.
 *
 * Each further destination then gets the alerts of the chunk it accepts the same way, with claims of
 * its own (see {@link destinationClaimKey}): a destination that fails an alert gets it again from a
 * later tick, while the notifier and the other destinations, which took it, skip it as sent.
 *
 * A failure the notifier calls permanent (an entry SNS can never accept) is logged with its rule and
 * fingerprint, counted as failed, and does not hold the cursor: raising the same alert again would
 * fail the same way and block the source for good. A retryable failure, or an alert another worker is
 * publishing, leaves `settled` false: the caller keeps its cursor, and the next tick raises the
 * alerts again, skipping those this one delivered. The chunks after such a failure are still
 * delivered; once `signal` aborts, no further chunk is claimed (the delivery is not settled).
 *
 * @throws StateStoreError when a claim, mark or release fails; the claims taken stay until they expire.
 *
 * @example
 * ```ts
 * const delivery = await deliverAlerts({ alerts, store, notifier, claimMs: 300_000, signal, logger, source });
 * if (delivery.settled) await store.commitCursor({ lease, watermark, seenIds });
 * ```
 */
export async function deliverAlerts(options: DeliverAlertsOptions): Promise<Delivery> {
  const alerts = uniqueByFingerprint(options.alerts);
  const delivery: Delivery = {
    counts: emptyAlertCounts(),
    destinations: {},
    settled: true,
    inProgressElsewhere: 0,
    retryableFailure: undefined,
  };
  const targets: Target[] = [
    { name: NOTIFIER_DESTINATION, notifier: options.notifier, accepts: () => true, claimKey: (fp) => fp },
    ...(options.destinations ?? []).map((destination) => ({
      name: destination.name,
      notifier: destination.notifier,
      accepts: (alert: Alert) => destination.accepts(alert),
      claimKey: (fingerprint: string) => destinationClaimKey(destination.name, fingerprint),
    })),
  ];
  for (let at = 0; at < alerts.length; at += ALERTS_PER_CHUNK) {
    if (at > 0 && options.signal.aborted) return { ...delivery, settled: false };
    const slice = alerts.slice(at, at + ALERTS_PER_CHUNK);
    for (const target of targets) {
      const taken = target.name === NOTIFIER_DESTINATION ? slice : slice.filter(target.accepts);
      if (taken.length === 0) continue;
      const chunk = await deliverChunk(taken, options, target);
      if (target.name === NOTIFIER_DESTINATION) addAlertCounts(delivery.counts, chunk.counts);
      else addDestinationCounts(delivery.destinations, { [target.name]: chunk.counts });
      delivery.inProgressElsewhere += chunk.inProgressElsewhere;
      delivery.retryableFailure ??= chunk.retryableFailure;
      delivery.settled &&= chunk.settled;
    }
  }
  return delivery;
}

/**
 * The key a further destination's claim on an alert is kept under: its name, `>`, the fingerprint.
 * Rule ids (and so fingerprints) never hold `>`, so it can never be another alert's.
 *
 * @example
 * ```ts
 * destinationClaimKey('eventbridge', 'network-open:6630c0ffee0123456789abcd'); // 'eventbridge>network-open:…'
 * ```
 */
export function destinationClaimKey(destination: string, fingerprint: string): string {
  return `${destination}>${fingerprint}`;
}

/** The notifier or a further destination, as one chunk is delivered to it. */
interface Target {
  name: string;
  notifier: Notifier;
  accepts: (alert: Alert) => boolean;
  claimKey: (fingerprint: string) => string;
}

/** What one chunk did at one target. */
interface ChunkDelivery {
  counts: AlertCounts;
  settled: boolean;
  inProgressElsewhere: number;
  retryableFailure: DeliveryFailure | undefined;
}

/** Claims, publishes and marks one chunk of alerts at one target, each fingerprint once. */
async function deliverChunk(
  alerts: readonly Alert[],
  options: DeliverAlertsOptions,
  target: Target,
): Promise<ChunkDelivery> {
  const { store, logger, source } = options;
  const { notifier } = target;
  const counts = emptyAlertCounts();
  const claims = await store.claimAlerts({
    fingerprints: alerts.map((alert) => target.claimKey(alert.fingerprint)),
    claimMs: options.claimMs,
  });
  const claimed: Array<{ alert: Alert; claim: AlertClaim }> = [];
  let inProgressElsewhere = 0;
  claims.forEach((result, index) => {
    const alert = alerts[index] as Alert;
    if (result.outcome === 'sent') counts.alreadySent += 1;
    else if (result.outcome === 'in-progress') {
      inProgressElsewhere += 1;
      logger.warn('alert is being published by another worker; the cursor waits for it', {
        source,
        destination: target.name,
        ruleId: alert.ruleId,
        fingerprint: alert.fingerprint,
        claimExpiresAt: new Date(result.claimExpiresAt).toISOString(),
      });
    } else {
      if (result.tookOver) {
        logger.warn('took over an expired claim: the worker that held it may have published the alert', {
          source,
          destination: target.name,
          ruleId: alert.ruleId,
          fingerprint: alert.fingerprint,
        });
      }
      claimed.push({ alert, claim: result.claim });
    }
  });
  if (claimed.length === 0) {
    return { counts, settled: inProgressElsewhere === 0, inProgressElsewhere, retryableFailure: undefined };
  }

  const results = await notifier.publish(
    claimed.map(({ alert }) => alert),
    { signal: options.signal },
  );
  const byFingerprint = new Map<string, PublishResult>(results.map((result) => [result.fingerprint, result]));
  let retryableFailure: DeliveryFailure | undefined;
  const sent = claimed.filter(
    ({ alert }) => (byFingerprint.get(alert.fingerprint) ?? missingResult(alert)).status === 'sent',
  );
  await store.markAlertsSent({ claims: sent.map(({ claim }) => claim) });
  for (const { alert } of sent) counts.published[alert.severity] += 1;
  const marked = new Set(sent);
  const unsent = claimed.filter((entry) => !marked.has(entry));
  await mapWithConcurrency(unsent, STORE_CONCURRENCY, async ({ alert, claim }) => {
    const result = byFingerprint.get(alert.fingerprint) ?? missingResult(alert);
    if (result.status === 'sent') return;
    await store.releaseAlertClaim({ claim });
    counts.failed[alert.severity] += 1;
    const attributes = {
      source,
      destination: target.name,
      ruleId: alert.ruleId,
      fingerprint: alert.fingerprint,
      severity: alert.severity,
      code: result.code,
      reason: result.message,
    };
    if (result.retryable) {
      retryableFailure ??= { ...result, destination: target.name };
      logger.warn('alert not delivered; it is raised again next tick', attributes);
    } else {
      counts.failedPermanently += 1;
      logger.error('alert can never be delivered as it is; it is dropped', attributes);
    }
  });
  return {
    counts,
    settled: inProgressElsewhere === 0 && retryableFailure === undefined,
    inProgressElsewhere,
    retryableFailure,
  };
}

/** Adds each destination's counts of `from` into `into`. */
export function addDestinationCounts(
  into: Record<string, AlertCounts>,
  from: Readonly<Record<string, AlertCounts>>,
): void {
  for (const [name, counts] of Object.entries(from)) {
    const total = into[name] ?? emptyAlertCounts();
    addAlertCounts(total, counts);
    into[name] = total;
  }
}

/** Alert counts with every severity at zero. */
export function emptyAlertCounts(): AlertCounts {
  return {
    published: zeroBySeverity(),
    failed: zeroBySeverity(),
    failedPermanently: 0,
    alreadySent: 0,
  };
}

/** Adds `from` into `into`. */
export function addAlertCounts(into: AlertCounts, from: AlertCounts): void {
  for (const severity of SEVERITIES) {
    into.published[severity] += from.published[severity];
    into.failed[severity] += from.failed[severity];
  }
  into.failedPermanently += from.failedPermanently;
  into.alreadySent += from.alreadySent;
}

function zeroBySeverity(): Record<Severity, number> {
  return Object.fromEntries(SEVERITIES.map((severity) => [severity, 0])) as Record<Severity, number>;
}

function uniqueByFingerprint(alerts: readonly Alert[]): Alert[] {
  const seen = new Set<string>();
  return alerts.filter((alert) => {
    if (seen.has(alert.fingerprint)) return false;
    seen.add(alert.fingerprint);
    return true;
  });
}

/** A notifier broke its contract (no result for an alert): treat it as retryable, never as sent. */
function missingResult(alert: Alert): PublishFailed {
  return {
    status: 'failed',
    fingerprint: alert.fingerprint,
    retryable: true,
    code: 'MISSING_RESULT',
    message: 'the notifier returned no result for this alert',
  };
}
