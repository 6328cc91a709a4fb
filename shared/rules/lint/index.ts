export {
  type CatalogEventType,
  createEventCatalog,
  EVENT_CATALOG_FILE,
  type EventCatalog,
  EventCatalogError,
  loadEventCatalog,
} from '../catalog/event-catalog.js';
export type { EventScope } from '../catalog/openapi-events.js';
export {
  type PushCoverage,
  type RuleCoverage,
  type RuleCoverageEntry,
  ruleCoverage,
  type ScopeCoverage,
  type SecurityCoverage,
} from '../catalog/rule-coverage.js';
export {
  loadSecurityEventTypes,
  parseSecurityEventTypes,
  SECURITY_EVENT_TYPES_FILE,
  type SecurityEventShape,
  type SecurityEventType,
  type SecurityEventTypes,
  SecurityEventTypesError,
} from '../catalog/security-event-types.js';
export { type LintRulePackOptions, lintRulePack } from './lint-rule-pack.js';
export { rulePackWarnings } from './rule-pack-warnings.js';
export { RuleSources } from './rule-sources.js';
export type { RuleWarning, RuleWarningCode } from './rule-warning.js';
export { type SplitWarningsOptions, splitWarnings, UNKNOWN_NAME_CODES } from './strictness.js';
