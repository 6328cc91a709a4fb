export { ACCESS_HISTORY_RETENTION_MS, MAX_ACCESS_LOG_LINES } from './access-history.js';
export type { GenerateAccessLogsOptions, GeneratedAccessLogs } from './access-log-generator.js';
export type { SimulatorPushes } from './alert-pusher.js';
export {
  type AuditLogCluster,
  type AuditLogMessage,
  auditLine,
  type WriteAuditLogExportOptions,
  type WrittenAuditLogExport,
  writeAuditLogExport,
} from './audit-log-export.js';
export type { DigestAlgorithm } from './digest-response.js';
export {
  SeedValidationError,
  SimulatorError,
  SimulatorEventError,
  SimulatorOptionsError,
  SimulatorStartError,
} from './errors.js';
export type { GeneratedEvents, GenerateEventsOptions } from './event-generator.js';
export { FAULT_KINDS, type FaultKind, type FaultPlan, type FaultStep } from './fault-plan.js';
export type { SimulatorCounters } from './request-counters.js';
export { API_PREFIXES, type ApiGeneration, TOKEN_PATH } from './routes.js';
export { DEFAULT_SEED_PATH, loadSeedFile, parseSeed } from './seed-loader.js';
export type {
  SeedClusterInput,
  SeedData,
  SeedProjectAccessListEntry,
  ValidSeed,
} from './seed-schema.js';
export { type EventScope, type NewAccessLog, type NewEvent, WRONG_PASSWORD } from './simulator-data.js';
export {
  type AtlasSimulator,
  type SimulatorAccessLog,
  type SimulatorCluster,
  type SimulatorOptions,
  type SimulatorServiceAccount,
  startSimulator,
} from './start-simulator.js';
export {
  type GenerateWeekOptions,
  generateWeek,
  type IncidentKind,
  type PlantedIncident,
  type SimulatedWeek,
  type WeekEvent,
  type WeekSource,
} from './week-generator.js';
