export {
  ConfiguredSources,
  type ConfiguredSourcesOptions,
  type SourceStanding,
} from './configured-sources.js';
export { FanOutError, SourceDispatchError, SourceMessageError } from './errors.js';
export { FAN_OUT_CONFIG_ENV, type FanOutRuntimeConfig, fanOutRuntimeSchema } from './fan-out-settings.js';
export { InMemorySourceQueue, type InMemorySourceQueueOptions } from './in-memory-source-queue.js';
export { type QueuedSourcesOptions, queuedSources } from './message-group.js';
export {
  DEFAULT_RATE_LIMIT_DELAY_SECONDS,
  type PollSourceBatchOptions,
  pollSourceBatch,
  type SourceBatchResult,
} from './source-batch.js';
export {
  messageSource,
  parseSourceMessage,
  SOURCE_MESSAGE_VERSION,
  type SourceMessage,
} from './source-message.js';
export type { QueuedSource, SendReport, SourceQueue } from './source-queue.js';
export type { SqsBatchResponse, SqsEvent, SqsRecord } from './sqs-records.js';
export {
  MAX_VISIBILITY_SECONDS,
  SQS_BATCH_LIMIT,
  SqsSourceQueue,
  type SqsSourceQueueOptions,
} from './sqs-source-queue.js';
export {
  SCHEDULED_TIME_KEY,
  type TickIdentity,
  type TickIdentityOptions,
  tickIdentity,
} from './tick-identity.js';
