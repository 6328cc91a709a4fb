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
export type { SeedData, SeedProjectAccessListEntry, ValidSeed } from './seed-schema.js';
export type { EventScope, NewEvent } from './simulator-data.js';
export {
  type AtlasSimulator,
  type SimulatorOptions,
  type SimulatorServiceAccount,
  startSimulator,
} from './start-simulator.js';
