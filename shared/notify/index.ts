export { cleanLine } from '../text-cleaning.js';
export { type Alert, SEVERITIES, type Severity, severityRank, severityTotal } from './alert.js';
export {
  ALERT_DETAIL_SCHEMA_VERSION,
  type AlertDetail,
  alertDetailSchema,
  alertDetailType,
  buildAlertDetail,
  DetailType,
  detailJsonSchemas,
  EVENT_SOURCE,
  type SourceHealthDetail,
  sourceHealthDetailSchema,
} from './alert-detail.js';
export {
  type AlertFinding,
  alertFinding,
  FINDING_RESOLVED_EVENT_TYPE,
  POSTURE_FINDING_FIELD,
} from './alert-finding.js';
export { chunkEntries, MAX_BATCH_ENTRIES } from './batch-chunks.js';
export { type ChatbotFormatOptions, formatChatbotNotification } from './chatbot-formatter.js';
export { type ChatbotNotification, chatbotNotificationSchema } from './chatbot-notification.js';
export { ConsoleNotifier, type ConsoleNotifierOptions } from './console-notifier.js';
export { type EmailFormatOptions, formatEmailText } from './email-formatter.js';
export { MAX_MESSAGE_BYTES, snsEntryBytes } from './entry-size.js';
export { InvalidSnsEntryError, NotifyConfigError, NotifyError } from './errors.js';
export {
  EventBridgeNotifier,
  type EventBridgeNotifierOptions,
  type EventBridgeRetryOptions,
  putEventsEntryBytes,
} from './eventbridge-notifier.js';
export type { AtlasFlavor, ConsoleLinkOptions, FormatContext } from './format-context.js';
export { buildMessageAttributes, type MessageAttributes } from './message-attributes.js';
export {
  type Notifier,
  type PublishFailed,
  PublishFailureCode,
  type PublishOptions,
  type PublishResult,
  type PublishSent,
} from './notifier.js';
export { OutboxNotifier, type OutboxNotifierOptions } from './outbox-notifier.js';
export {
  type AsffFindingOptions,
  assertSecurityHubTarget,
  defaultProductArn,
  findingId,
  PRODUCT_NAME,
  type SecurityHubTarget,
  toAsffFinding,
} from './security-hub/asff-finding.js';
export {
  ASFF_SCHEMA_VERSION,
  MAX_BATCH_BYTES as MAX_SECURITY_HUB_BATCH_BYTES,
  MAX_BATCH_FINDINGS as MAX_SECURITY_HUB_BATCH_FINDINGS,
  MAX_FINDING_BYTES,
  MAX_REQUESTS_PER_SECOND as MAX_SECURITY_HUB_REQUESTS_PER_SECOND,
} from './security-hub/asff-limits.js';
export { ATLAS_TYPE, findingTypes } from './security-hub/finding-types.js';
export {
  classifyFailedFinding,
  classifySecurityHubCallError,
  type SecurityHubFailure,
  type SecurityHubFailureKind,
} from './security-hub/security-hub-failure.js';
export {
  SecurityHubNotifier,
  type SecurityHubNotifierOptions,
  type SecurityHubRetryOptions,
} from './security-hub/security-hub-notifier.js';
export {
  type AsffFindingValidation,
  asffFindingBytes,
  validateAsffFinding,
} from './security-hub/validate-asff-finding.js';
export { renderSlackPreview } from './slack-preview.js';
export { buildSnsEntry, type SnsEntry, type SnsEntryOptions } from './sns-entry.js';
export { SnsNotifier, type SnsNotifierOptions, type SnsRetryOptions } from './sns-notifier.js';
export { formatSubject } from './subject.js';
export { assertValidSnsEntry, type SnsEntryValidation, validateSnsEntry } from './validate-sns-entry.js';
