export {
  ACCESS_HISTORY_EVENT_TYPES,
  ACCESS_HISTORY_ID_PREFIX,
  ACCESS_HISTORY_SOURCE,
  type AccessHistoryEvent,
  type AccessHistoryEventContext,
  type AccessHistoryEventType,
  type AccessHistoryLineInput,
  buildAccessHistoryEvent,
  MAX_ACCESS_HISTORY_TEXT_LENGTH,
} from './access-history-events.js';
export {
  type CounterIncrement,
  type CounterIncrementOptions,
  type CounterStore,
  ROLL_UP_RETENTION_MS,
  type SuppressionIncrement,
} from './counter-store.js';
export { createRuleEngine, type RuleEngine, type RuleEngineOptions } from './engine.js';
export {
  FirstSeenStateError,
  type LayerWarning,
  RuleError,
  RuleLoadError,
  type RuleLoadErrorOptions,
  RulePackTooLargeError,
  type RulePackTooLargeErrorOptions,
  type RuleProblem,
  type RuleProblemCode,
  RuleStateError,
} from './errors.js';
export { parseEventTime } from './event-time.js';
export {
  encodeSeenValues,
  type FirstSeenRecord,
  type FirstSeenStore,
  type FirstSeenWriteFailures,
  MAX_SEEN_VALUES_BYTES,
  type SeenValue,
  seenValuesBytes,
} from './first-seen-store.js';
export { learningEndingAt, learningKey, legacySeenSetKey, seenSetKey } from './first-seen-tracker.js';
export {
  buildInventoryEvent,
  INVENTORY_EVENT_TYPES,
  INVENTORY_SOURCE,
  type InventoryAccessListEntryEvent,
  type InventoryApiKey,
  type InventoryApiKeyAddedEvent,
  type InventoryApiKeyRemovedEvent,
  type InventoryApiKeyRolesChangedEvent,
  type InventoryChange,
  type InventoryEvent,
  type InventoryEventContext,
  type InventoryEventType,
  type InventoryRole,
  OWNER_ROLE_NAMES,
  ownerRolesGranted,
} from './inventory-events.js';
export { ruleFileJsonSchema } from './json-schema.js';
export type { RuleWarning, RuleWarningCode } from './lint/rule-warning.js';
export {
  BUILTIN_LAYER,
  type LoadRulePackOptions,
  loadRulePack,
  loadRulePackSync,
  type ParseRuleLayersOptions,
  type ParseRulePackOptions,
  parseRuleLayers,
  parseRulePack,
  type RuleFileText,
  type RuleLayerText,
} from './loader.js';
export { MemoryCounterStore } from './memory-counter-store.js';
export { MemoryFirstSeenStore } from './memory-first-seen-store.js';
export {
  checkRulePackFootprint,
  measureRulePackFootprint,
  RULE_PACK_HEAP_SHARE,
  type RulePackFootprint,
  rulePackHeapBudget,
} from './pack-footprint.js';
export { formatRuleProblems } from './problem-format.js';
export {
  emptySeverityCounts,
  type ReplayedAlert,
  type ReplayFailure,
  type ReplayRulesOptions,
  type RuleReplay,
  type RuleReplayCount,
  replayRules,
  type SeverityCounts,
} from './replay.js';
export {
  type AlertChange,
  type AlertChangeKind,
  compareReplays,
  type ReplayComparison,
  type RuleComparison,
} from './replay-comparison.js';
export {
  deserializeRulePack,
  type ExceptionOrigin,
  type PackedException,
  type PackedRule,
  type PackTest,
  type RuleLayer,
  type RuleOrigin,
  type RulePack,
  SERIALIZED_PACK_FILE,
  serializeRulePack,
} from './rule-pack.js';
export { collectRuleTests, type RuleTestCase, type RuleTestResult, runRuleTests } from './rule-tests.js';
export type { RuleSpec, SerializedRulePackSpec } from './schema.js';
export { describeSchemaIssues, type SchemaProblem } from './schema-issues.js';
export {
  applySuppressions,
  ROLL_UP_IDS,
  type RollUp,
  type SuppressionAnswer,
  type SuppressionStep,
} from './suppression-roll-up.js';
