export { type PushedAlert, parsePushedAlert } from './atlas-alert.js';
export { PushConfigError, PushError, WebhookSecretError } from './errors.js';
export { type PushServer, type PushServerOptions, startPushServer } from './push-http-server.js';
export { type PushQueueEntryOptions, pushQueueEntry } from './push-queue-entry.js';
export {
  PUSH_STATUS,
  type PushOutcome,
  PushReceiver,
  type PushReceiverOptions,
  type PushRequest,
  type PushResult,
} from './push-receiver.js';
export {
  MAX_PUSH_BODY_BYTES,
  PUSH_CONFIG_ENV,
  type PushConnection,
  type PushRuntimeConfig,
  pushConnectionSchema,
  pushRuntimeSchema,
  pushTimingShape,
} from './push-settings.js';
export { pushedSource } from './push-targets.js';
export {
  CachedWebhookSecrets,
  type CachedWebhookSecretsOptions,
  type WebhookSecrets,
} from './webhook-secrets.js';
export {
  EVENT_HEADER,
  SIGNATURE_HEADER,
  verifyWebhookSignature,
  webhookSignature,
} from './webhook-signature.js';
