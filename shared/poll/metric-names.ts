/**
 * The CloudWatch metrics the poller emits (as EMF, through Powertools Metrics) and the stack's alarms
 * and dashboard read; the audit log function writes the alert counts as the poller does, and its own
 * `AuditLog*` counts, and the push receiver `PushRequests`. One list, so an alarm can never watch a
 * metric nobody writes.
 *
 * Every metric carries the dimension `service` = {@link METRICS_SERVICE}; `AlertsPublished` also
 * carries `severity`; `SourceErrors` also carries `errorCode` (the Atlas error code, or the error's own
 * code) on a second metric set.
 */
export const METRICS_NAMESPACE = 'AtlasAuditAlerts';
export const METRICS_SERVICE = 'atlas-audit-alerts';

export const MetricName = {
  /** Events read from Atlas, overlap included. */
  eventsFetched: 'EventsFetched',
  /** Events not seen before. */
  eventsNew: 'EventsNew',
  /** Rule evaluations that failed on an event (logged; the event skipped for that rule only). */
  ruleErrors: 'RuleErrors',
  /**
   * First-seen records the state store did not keep (logged): that group's events were not judged
   * first-seen, so an alert may be missing.
   */
  firstSeenStateErrors: 'FirstSeenStateErrors',
  /** Alerts delivered to the topic, by `severity`, by the poll and by the audit log function. */
  alertsPublished: 'AlertsPublished',
  /** Alerts that could not be delivered this tick (they are retried next tick). */
  alertsFailed: 'AlertsFailed',
  /** Alerts delivered to a destination beside the topic, by `destination` (`eventbridge`, `securityhub`). */
  destinationAlertsPublished: 'DestinationAlertsPublished',
  /**
   * Alerts a destination beside the topic did not take this tick, by `destination`: retried next tick,
   * or dropped there when it said they never can be (logged with rule and fingerprint).
   */
  destinationAlertsFailed: 'DestinationAlertsFailed',
  /** Route digests published and marked sent at the end of a tick. */
  digestsSent: 'DigestsSent',
  /**
   * Route digests whose publish or store call failed at the end of a tick: their entries are kept and
   * the digest is tried again next tick (the log names the route and the period).
   */
  digestsFailed: 'DigestsFailed',
  /** HTTP requests sent to Atlas, challenges and retries included. */
  atlasRequests: 'AtlasRequests',
  /** 429 answers from Atlas. */
  atlasRateLimited: 'AtlasRateLimited',
  /** Atlas refused the credentials (401) or their permissions (403). */
  atlasAuthFailures: 'AtlasAuthFailures',
  /** Sources whose tick failed. */
  sourceErrors: 'SourceErrors',
  /** Now minus the newest watermark, the largest over all sources. */
  watermarkLagSeconds: 'WatermarkLagSeconds',
  /**
   * Now minus the oldest watermark over every source, polled this tick or not: the stale-watermark
   * alarm's metric, since it also grows for a source no tick reaches.
   */
  oldestSourceLagSeconds: 'OldestSourceLagSeconds',
  /**
   * The local clock minus Atlas's, from the `Date` header of its answers (positive: the local clock
   * runs ahead). Windows end on Atlas's clock, so a skew only shows; alarm on it to fix the host.
   */
  atlasClockSkewSeconds: 'AtlasClockSkewSeconds',
  /** Duration of the whole tick. */
  tickDurationMs: 'TickDurationMs',
  /** 1 on every tick that completed: the heartbeat the stack alarms on when it goes missing. */
  tickCompleted: 'TickCompleted',
  /** Requests to the push receiver, by `outcome` (`accepted`, `signature`, `replay`, `failed`...). */
  pushRequests: 'PushRequests',
  /** Lines the audit log function read from exported audit log objects. */
  auditLogLines: 'AuditLogLines',
  /** Of those, lines that were not audit messages or past the line bound: counted and skipped. */
  auditLogMalformedLines: 'AuditLogMalformedLines',
  /**
   * Audit log objects not settled by an invocation (unreadable, or an alert not delivered yet): their
   * message comes back, and the dead-letter queue takes it after its last delivery.
   */
  auditLogObjectsFailed: 'AuditLogObjectsFailed',
} as const;

export type MetricNameValue = (typeof MetricName)[keyof typeof MetricName];
