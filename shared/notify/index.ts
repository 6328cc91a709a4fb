export { cleanLine } from '../text-cleaning.js';
export { type Alert, SEVERITIES, type Severity, severityRank } from './alert.js';
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
export { renderSlackPreview } from './slack-preview.js';
export { buildSnsEntry, type SnsEntry, type SnsEntryOptions } from './sns-entry.js';
export { SnsNotifier, type SnsNotifierOptions, type SnsRetryOptions } from './sns-notifier.js';
export { formatSubject } from './subject.js';
export { assertValidSnsEntry, type SnsEntryValidation, validateSnsEntry } from './validate-sns-entry.js';
