export { type AlertDestination, destinationClaimKey } from './alert-delivery.js';
export {
  CONNECTION_NAME,
  type ConnectionInput,
  type ConnectionProblem,
  type ConnectionSettings,
  connectionProblems,
  connectionSchema,
  DEFAULT_CONNECTION,
  type EffectiveConnection,
  effectiveConnections,
} from './connections.js';
export {
  DEFAULT_DISCOVERY_TTL_MS,
  type DiscoveredIds,
  DiscoveryCache,
  type DiscoveryCacheOptions,
} from './discovery-cache.js';
export {
  AlertDeliveryError,
  ConnectionUnavailableError,
  EventBudgetExceededError,
  InventoryBudgetExceededError,
  PollConfigError,
  PollError,
  TickDeadlineError,
} from './errors.js';
export { eventBudgetForHeap } from './event-budget.js';
export { compareKeyedEvents, eventKey, type KeyedEvent, keyEvent } from './event-order.js';
export { DEFAULT_MAX_INVENTORY_ENTRIES } from './inventory-budget.js';
export { METRICS_NAMESPACE, METRICS_SERVICE, MetricName, type MetricNameValue } from './metric-names.js';
export {
  emitAlertMetrics,
  emitTickMetrics,
  type MetricsSink,
  type MetricUnitName,
} from './metrics-sink.js';
export {
  DEFAULT_NAME_RETRY_MS,
  DEFAULT_NAME_TTL_MS,
  NameCache,
  type NameCacheOptions,
} from './name-cache.js';
export {
  clusterSource,
  orgSource,
  type PollSource,
  type PollSourceKind,
  projectSource,
} from './poll-source.js';
export {
  atlasFlavorSchema,
  atlasIdSchema,
  checkConnections,
  MAX_CONNECTIONS,
  POLLER_CONFIG_ENV,
  type PollerConfig,
  type PollerConfigInput,
  pollerConfigSchema,
  pollerSettingsSchema,
  SECURITY_HUB_DEFAULT_PRODUCT,
  sourcesSchema,
  timingSchema,
} from './poller-config.js';
export { DEFAULT_MAX_EVENTS_PER_WINDOW, DEFAULT_MAX_WINDOW_SECONDS, runTick } from './run-tick.js';
export { describeSettingIssue } from './setting-issues.js';
export { sourceHealthDetails } from './source-health.js';
export { type OrderSourcesOptions, orderSources, type SourceOrder } from './source-order.js';
export {
  type ListTickSourcesOptions,
  listTickSources,
  type TickSource,
  type TickSources,
  type UnavailableConnection,
} from './tick-sources.js';
export type {
  AlertCounts,
  ConnectionClients,
  CutShortReason,
  DiscoveryOutcome,
  InventoryOutcome,
  RunTick,
  SourceHealth,
  SourceOutcome,
  SourceStatus,
  TickDependencies,
  TickOptions,
  TickProgress,
  TickSummary,
  TickTotals,
} from './tick-types.js';
