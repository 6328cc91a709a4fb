import type { Clock } from '../clock.js';
import type { Alert } from '../notify/alert.js';
import { describeAlert } from '../notify/alert-facts.js';
import { type DigestEvery, digestPeriodAt } from '../notify/digest-period.js';
import { eventLinks } from '../notify/event-links.js';
import { consoleOf, type FormatContext } from '../notify/format-context.js';
import type { PublishResult } from '../notify/notifier.js';
import type { DigestEntry, DigestStore } from '../state/digest-store.js';
import type { AlertDestination } from './alert-delivery.js';

/** How many periods ahead an entry refused by claimed periods may go: a period is claimed only once it ended. */
const PERIODS_AHEAD = 3;

/** Options of {@link digestDestination}. */
export interface DigestDestinationOptions {
  /** The route's name: the destination is `digest-<route>` in claims, logs and metrics. */
  route: string;
  every: DigestEvery;
  /** Whether the route's digest takes the alert (its match, below its `below` severity). Must not throw. */
  accepts(alert: Alert): boolean;
  store: DigestStore;
  clock: Clock;
  /** Where the activity feed links point (see `FormatContext`); `now` is not read. */
  console?: Pick<FormatContext, 'console' | 'connectionConsoles'>;
}

/**
 * A route's digest as a destination of the tick: "delivering" an alert to it appends the alert's
 * facts to the route's pending digest for the period the clock is in (or a later one, when that
 * period's digest is already claimed). It rides on the delivery's claims, so an alert is appended
 * once, in the step that settles it, and a failed append holds the source's cursor like a failed
 * publish. `flushDigests` sends the period's digest once it has ended.
 *
 * @example
 * ```ts
 * const destination = digestDestination({ route: 'security', every: 'daily', accepts, store, clock });
 * await deliverAlerts({ alerts, store, notifier, destinations: [destination], ... });
 * ```
 */
export function digestDestination(options: DigestDestinationOptions): AlertDestination {
  return {
    name: `digest-${options.route}`,
    accepts: options.accepts,
    notifier: {
      publish: async (alerts): Promise<PublishResult[]> => {
        try {
          let pending = alerts.map((alert) => digestEntryOf(alert, options));
          let period = digestPeriodAt(options.every, options.clock.now());
          for (let ahead = 0; pending.length > 0; ahead += 1) {
            if (ahead > PERIODS_AHEAD)
              throw new Error(`every digest period up to ${period.id} is claimed already`);
            pending = await options.store.appendDigestEntries({
              route: options.route,
              period: period.id,
              entries: pending,
            });
            period = digestPeriodAt(options.every, period.end);
          }
          return alerts.map((alert) => ({ status: 'sent', fingerprint: alert.fingerprint }));
        } catch (error) {
          const code = (error as { code?: unknown }).code;
          return alerts.map((alert) => ({
            status: 'failed',
            fingerprint: alert.fingerprint,
            retryable: true,
            code: typeof code === 'string' ? code : 'DIGEST_APPEND_FAILED',
            message: `the alert could not be added to the digest of route ${options.route}: ${error instanceof Error ? error.message : String(error)}`,
          }));
        }
      },
    },
  };
}

/**
 * The facts of an alert a digest renders: rule, severity, time, title, project or organization, the
 * actors' names, the activity feed link and the roll-up of suppressed repeats.
 *
 * @example
 * ```ts
 * digestEntryOf(alert, { console: { console: { flavor: 'atlas-v2', baseUrl: 'https://cloud.mongodb.com' } } }).link;
 * ```
 */
export function digestEntryOf(
  alert: Alert,
  options: { console?: Pick<FormatContext, 'console' | 'connectionConsoles'> | undefined },
): DigestEntry {
  const last: Record<string, unknown> = alert.events.at(-1) ?? {};
  const facts = describeAlert(alert);
  const context: FormatContext = { now: 0, ...options.console };
  const link = eventLinks(alert.events.at(-1) ?? {}, consoleOf(context, alert)).find(
    (candidate) => candidate.kind === 'console',
  )?.url;
  const groupId = typeof last.groupId === 'string' && last.groupId !== '' ? last.groupId : undefined;
  const orgId = typeof last.orgId === 'string' && last.orgId !== '' ? last.orgId : alert.context?.orgId;
  const actors = facts.actorNames.join(', ');
  return {
    fingerprint: alert.fingerprint,
    ruleId: alert.ruleId,
    ruleName: alert.ruleName,
    severity: alert.severity,
    raisedAt: alert.raisedAt,
    title: alert.title,
    ...(groupId === undefined ? {} : { groupId }),
    ...(orgId === undefined ? {} : { orgId }),
    ...(alert.context?.projectName === undefined ? {} : { projectName: alert.context.projectName }),
    ...(actors === ''
      ? {}
      : { actor: facts.moreActors > 0 ? `${actors} and ${facts.moreActors} more` : actors }),
    ...(link === undefined ? {} : { link }),
    ...(alert.rollUp === undefined ? {} : { rollUp: { ...alert.rollUp } }),
  };
}
