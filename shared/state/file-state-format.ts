import * as z from 'zod';

/**
 * The JSON document of the file store, version 1. Collections are arrays of records rather than
 * objects keyed by name, so that no stored name (a source, a fingerprint) can ever be read as an
 * object's prototype. Times are milliseconds since the epoch, except `expiresAt`: epoch seconds, as in
 * the DynamoDB table.
 */
export const FILE_STATE_VERSION = 1;

const hexId = z.string().regex(/^[0-9a-f]{24}$/);

const sourceRecord = z.strictObject({
  source: z.string(),
  /** The connection that polls it, when it is not `default`. */
  connection: z.string().optional(),
  polledAt: z.number().optional(),
  lastError: z.strictObject({ at: z.number(), code: z.string(), message: z.string() }).optional(),
  /** Alerts sent by the hour: `[hourStartMs, count]` pairs, the last 25 hours at most. */
  alertHours: z.array(z.tuple([z.number(), z.number()])).optional(),
  lease: z.strictObject({ owner: z.string(), token: z.string(), expiresAt: z.number() }).optional(),
  cursor: z
    .strictObject({
      watermark: z.number(),
      seenIds: z.array(hexId),
      inventoryTakenAt: z.number().optional(),
    })
    .optional(),
});

const alertRecord = z.strictObject({
  fingerprint: z.string(),
  status: z.enum(['IN_PROGRESS', 'SENT']),
  claimToken: z.string().optional(),
  claimExpiresAt: z.number().optional(),
  sentAt: z.number().optional(),
  expiresAt: z.number(),
});

const counterRecord = z.strictObject({
  key: z.string(),
  members: z.array(z.string()),
  windowExpiresAt: z.number(),
  expiresAt: z.number(),
  /** A suppression key's roll-ups (see `RollUpStateJson`); read leniently, absent in older files. */
  rollUp: z.unknown().optional(),
});

const firstSeenRecord = z.strictObject({
  key: z.string(),
  /** `[value, first, last, by]` of each value seen (see `SeenValue`). */
  values: z.array(z.tuple([z.string(), z.number(), z.number(), z.string()])),
  /** When no value is live any more, on the rule engine's clock. */
  windowExpiresAt: z.number(),
  startedAt: z.number().optional(),
  /** Absent for a record that never expires (a rule's learning start). */
  expiresAt: z.number().optional(),
});

const inventoryRecord = z.strictObject({
  /** The inventory's key: an organization id, or `group:` and a project id (see `inventoryKeyOf`). */
  orgId: z.string(),
  /** Checked again, and stripped of any `privateKey`, when read. */
  snapshot: z.unknown(),
  expiresAt: z.number(),
});

const nameRecord = z.strictObject({
  /** `org:<id>` or `project:<id>`. */
  key: z.string(),
  name: z.string().max(256),
  resolvedAt: z.number(),
  /** When the name is read from Atlas again, in milliseconds (not seconds: it is no TTL). */
  nameExpiresAt: z.number(),
});

const deliveryRecord = z.strictObject({
  /** The delivery's key (see `DeliveryClaimStore`). */
  key: z.string(),
  claimToken: z.string(),
  expiresAt: z.number(),
});

const digestRecord = z.strictObject({
  route: z.string(),
  period: z.string(),
  /** The pending entries (see `DigestEntry`); checked again when read. */
  entries: z.array(z.unknown()),
  /** Epoch seconds. */
  expiresAt: z.number(),
});

const digestClaimRecord = z.strictObject({
  route: z.string(),
  period: z.string(),
  status: z.enum(['IN_PROGRESS', 'SENT']),
  claimToken: z.string().optional(),
  claimExpiresAt: z.number().optional(),
  sentAt: z.number().optional(),
  expiresAt: z.number(),
});

export const fileStateSchema = z.strictObject({
  version: z.literal(FILE_STATE_VERSION),
  sources: z.array(sourceRecord),
  alerts: z.array(alertRecord),
  counters: z.array(counterRecord),
  inventories: z.array(inventoryRecord),
  /** Added after version 1 was released: absent in older files. */
  firstSeen: z.array(firstSeenRecord).optional(),
  /** Organization and project names kept for alerts; absent in files written before they were kept. */
  names: z.array(nameRecord).optional(),
  /** Claims on webhook deliveries (`run --push-listen`); absent when none is live. */
  deliveries: z.array(deliveryRecord).optional(),
  /** Pending digest entries by route and period; absent when none is pending. */
  digests: z.array(digestRecord).optional(),
  /** Claims on digests (see `DigestStore`); absent when none is live. */
  digestClaims: z.array(digestClaimRecord).optional(),
});

export type FileStateDocument = z.infer<typeof fileStateSchema>;
export type FileSourceRecord = z.infer<typeof sourceRecord>;
export type FileAlertRecord = z.infer<typeof alertRecord>;
export type FileCounterRecord = z.infer<typeof counterRecord>;
export type FileFirstSeenRecord = z.infer<typeof firstSeenRecord>;
