import type { Logger } from '../logger.js';
import type { Notifier } from '../notify/notifier.js';
import {
  type AlertDestination,
  addAlertCounts,
  addDestinationCounts,
  deliverAlerts,
  emptyAlertCounts,
} from '../poll/alert-delivery.js';
import type { AlertDescriber } from '../poll/alert-describer.js';
import { clusterSource } from '../poll/poll-source.js';
import type { AlertCounts } from '../poll/tick-types.js';
import type { RuleEngine } from '../rules/engine.js';
import type { StateStore } from '../state/state-store.js';
import { type AuditObjectCounts, emptyAuditCounts, readAuditObject } from './audit-object-reader.js';
import { parseAuditObjectKey } from './object-key.js';

/** Where a project's audit logs are exported: its objects' keys begin with `prefix/`. */
export interface AuditLogExport {
  /** The project whose clusters write under the prefix. */
  groupId: string;
  /** The key prefix of the project's log integration (Atlas writes `{prefix}/{cluster}/{host}/...`). */
  prefix: string;
  /**
   * The connection the project is read through, which its alerts name (as a poll's do); absent for
   * the connection `default`.
   */
  connection?: string | undefined;
}

/** What one object needs: the rules, the state, the delivery. */
export interface AuditObjectContext {
  store: StateStore;
  engine: RuleEngine;
  notifier: Notifier;
  destinations: readonly AlertDestination[];
  describer: AlertDescriber;
  /** How long a claim holds before another worker may take it over. */
  claimMs: number;
  /** Aborts the delivery: the object is then not settled, and is read again later. */
  signal: AbortSignal;
  logger: Logger;
  /** The exports the deployment receives; an object under none is skipped. */
  exports: readonly AuditLogExport[];
}

/** An object to read: where it is, and its body as it streams. */
export interface AuditObject {
  bucket: string;
  key: string;
  /** Opens the object's body; called only for an object this deployment reads. */
  open(): Promise<AsyncIterable<Uint8Array>>;
}

/** What reading one object did. */
export interface AuditObjectOutcome {
  /**
   * `settled`: every alert of the object was delivered, sent before, or can never be: the message
   * that named it may be deleted. `skipped`: not an audit log under an export of this deployment.
   * `unsettled`: an alert is not delivered yet (a destination failed, another worker holds it, or time
   * ran out): read the object again later, and the claims skip what was delivered. `failed`: the object
   * could not be read (or the state store failed): read it again later.
   */
  status: 'settled' | 'skipped' | 'unsettled' | 'failed';
  key: string;
  counts: AuditObjectCounts;
  alerts: AlertCounts;
  destinations: Record<string, AlertCounts>;
  /** What failed, for `failed` and `unsettled`. */
  error?: string;
}

/**
 * Reads one exported audit log object through the rules and delivers its alerts: the object source.
 * The object is streamed batch by batch (see `readAuditObject`), each batch evaluated and its alerts
 * delivered with the same claims as the poll's, so an object delivered twice by Atlas, or read again
 * after a failure, sends no alert twice (its lines keep their ids, the rules count each event once,
 * and an alert's fingerprint is claimed once). An object is settled only when all of its alerts are:
 * until then the caller keeps the notification and the object is read again. Never throws.
 *
 * @example
 * ```ts
 * const outcome = await processAuditObject(context, { bucket, key, open: () => objects.read(bucket, key) });
 * if (outcome.status === 'settled' || outcome.status === 'skipped') deleteMessage();
 * ```
 */
export async function processAuditObject(
  context: AuditObjectContext,
  object: AuditObject,
): Promise<AuditObjectOutcome> {
  const outcome: AuditObjectOutcome = {
    status: 'settled',
    key: object.key,
    counts: emptyAuditCounts(),
    alerts: emptyAlertCounts(),
    destinations: {},
  };
  const place = locate(object.key, context.exports);
  if (place === undefined) return { ...outcome, status: 'skipped' };
  const cluster = clusterSource(place.groupId, place.clusterName);
  const source = place.connection === undefined ? cluster : { ...cluster, connection: place.connection };
  const name = `audit:${place.groupId}:${place.clusterName}`;
  try {
    const body = await object.open();
    const batches = readAuditObject(body, { context: place, counts: outcome.counts });
    for await (const events of batches) {
      const alerts = await context.engine.evaluate(events, {
        describe: (event) => context.describer.describe(event, source),
      });
      if (alerts.length === 0) continue;
      const delivery = await deliverAlerts({
        alerts,
        store: context.store,
        notifier: context.notifier,
        destinations: context.destinations,
        claimMs: context.claimMs,
        signal: context.signal,
        logger: context.logger,
        source: name,
      });
      addAlertCounts(outcome.alerts, delivery.counts);
      addDestinationCounts(outcome.destinations, delivery.destinations);
      if (!delivery.settled) {
        // Later batches are evaluated on the next read of the object; the claims keep this one's sent.
        const failure = delivery.retryableFailure;
        return {
          ...outcome,
          status: 'unsettled',
          error:
            failure !== undefined
              ? `${failure.destination}: ${failure.code}: ${failure.message}`
              : context.signal.aborted
                ? 'out of time'
                : 'another worker is delivering an alert of this object',
        };
      }
    }
  } catch (error) {
    return { ...outcome, status: 'failed', error: error instanceof Error ? error.message : String(error) };
  }
  if (outcome.counts.malformed + outcome.counts.overlong > 0) {
    context.logger.warn('Audit log lines skipped', {
      key: object.key,
      malformed: outcome.counts.malformed,
      overlong: outcome.counts.overlong,
    });
  }
  return outcome;
}

/** The export an object's key is under (the longest prefix that holds it), with its cluster and host. */
function locate(
  key: string,
  exports: readonly AuditLogExport[],
): { groupId: string; clusterName: string; hostname: string; connection?: string | undefined } | undefined {
  const candidates = [...exports].sort((a, b) => b.prefix.length - a.prefix.length);
  for (const candidate of candidates) {
    const parsed = parseAuditObjectKey(key, candidate.prefix);
    if (parsed !== undefined) {
      return {
        groupId: candidate.groupId,
        clusterName: parsed.clusterName,
        hostname: parsed.hostname,
        connection: candidate.connection,
      };
    }
  }
  return undefined;
}
