export {
  AUDIT_LOG_ATYPES,
  AUDIT_LOG_EVENT_PREFIX,
  AUDIT_LOG_ID_PREFIX,
  AUDIT_LOG_SOURCE,
  AUDIT_PARAM_LIMITS,
  type AuditLogContext,
  type AuditLogEvent,
  auditEventType,
  buildAuditLogEvent,
  MAX_AUDIT_LOG_TEXT_LENGTH,
} from './audit-log-events.js';
export {
  AUDIT_BATCH_SIZE,
  type AuditObjectCounts,
  emptyAuditCounts,
  MAX_AUDIT_LINE_BYTES,
  type ReadAuditObjectOptions,
  readAuditObject,
} from './audit-object-reader.js';
export {
  type AuditLogExport,
  type AuditObject,
  type AuditObjectContext,
  type AuditObjectOutcome,
  processAuditObject,
} from './audit-object-source.js';
export { AUDIT_LOG_TYPES, type AuditObjectKey, parseAuditObjectKey } from './object-key.js';
export { type AuditObjectStore, FolderObjectStore } from './object-store.js';
export { type NotifiedObject, readS3Notification, type S3Notification } from './s3-notification.js';
