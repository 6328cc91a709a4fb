import * as z from 'zod';
import type { AtlasEvent } from '../atlas/types.js';
import { cleanLineWithin } from '../text-cleaning.js';
import { type Alert, SEVERITIES, severityRank } from './alert.js';
import { alertFinding } from './alert-finding.js';
import { type EventLink, eventLinks } from './event-links.js';
import { fingerprintDigest } from './fingerprint-digest.js';
import { consoleOf, type FormatContext } from './format-context.js';
import { boundedPrettyJson } from './json-truncation.js';

/**
 * The `detail` of the EventBridge entries this project puts on a bus, version 1: one documented shape
 * (docs/eventbridge.md, `schemas/alert-detail.v1.schema.json`) that rules, SIEM pipelines and
 * automation can rely on. Every field is always there (`null` when the alert has no such value), so a
 * consumer never tells "absent" from "unknown". A new optional field is a minor change; renaming,
 * removing or retyping one is a new `schemaVersion`, and a new detail-type.
 */
export const ALERT_DETAIL_SCHEMA_VERSION = '1';

/** The `source` of every entry: this project, in reverse-DNS form as EventBridge asks of custom sources. */
export const EVENT_SOURCE = 'io.github.atlas-audit-alerts';

/** The detail-types this project puts on a bus. */
export const DetailType = {
  /** An alert a rule raised. */
  alert: 'Atlas Audit Alert',
  /** A posture finding (an entry open to the internet, an owner key without access list) is gone. */
  findingResolved: 'Atlas Audit Alert Resolved',
  /** A source started failing, recovered, or had its credentials refused. */
  sourceHealth: 'Atlas Audit Source Health',
} as const;

/** The most characters of a title, summary or other text the detail keeps. */
const MAX_TEXT = 2_048;
/** The most characters of an id, a type name, a time, a tag or a layer. */
const SHORT_TEXT = 256;
/** Event ids listed at most; `eventCount` says how many there were. */
export const MAX_DETAIL_EVENT_IDS = 100;
/** The most UTF-8 bytes of a whole detail: an EventBridge entry is at most 256 KB, source and type included. */
export const MAX_DETAIL_BYTES = 250 * 1024;

const text = z.string().max(MAX_TEXT);
/** An instant as `Date#toISOString` writes it. */
const utcTime = z.string().regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
const shortText = z.string().max(SHORT_TEXT);
const nullableText = text.nullable();
const namedThing = z.strictObject({ id: nullableText, name: nullableText });

/** The detail of an alert, version 1. */
export const alertDetailSchema = z
  .strictObject({
    schemaVersion: z.literal(ALERT_DETAIL_SCHEMA_VERSION),
    alert: z.strictObject({
      /** A short stable id: 32 hexadecimal characters of the fingerprint's SHA-256. */
      id: z.string().regex(/^[0-9a-f]{32}$/),
      /** The alert's full identity (rule, group, window), as the state store records it. */
      fingerprint: z.string().max(4_096),
      ruleId: shortText,
      ruleName: text,
      severity: z.enum(SEVERITIES),
      /** 1 (info) to 5 (critical): what EventBridge rules can match with `numeric`. */
      severityRank: z.number().int().min(1).max(5),
      title: text,
      summary: text,
      runbook: nullableText,
      tags: z.array(shortText).max(64),
      /** When the rule raised it, ISO-8601 UTC. */
      raisedAt: utcTime,
      /** The version of the built-in rule pack the rule builds on, and the layers that shaped it. */
      rulePack: z.strictObject({ version: shortText.nullable(), layers: z.array(shortText).max(32) }),
      /**
       * For a suppressed rule: how many occurrences of its group were suppressed since the group's
       * previous alert, and the event times of the first and last; `null` when none were.
       */
      rollUp: z.strictObject({ suppressed: z.int().min(1), first: utcTime, last: utcTime }).nullable(),
    }),
    /** The posture finding the alert opens or resolves; `null` for a one-shot alert. */
    finding: z.strictObject({ id: z.string().max(512), state: z.enum(['open', 'resolved']) }).nullable(),
    /** The connection the events were read through: `default` for the top-level settings. */
    connection: z.string().max(64),
    organization: namedThing,
    project: namedThing,
    /** The cluster of a database login or cluster event. */
    cluster: nullableText,
    /** Who did it, from the newest event that names someone: a user name or an API key. */
    actor: z.strictObject({
      username: nullableText,
      publicKey: nullableText,
      /** The address they came from. */
      address: nullableText,
    }),
    /** The events that raised it, oldest first, at most {@link MAX_DETAIL_EVENT_IDS}. */
    events: z
      .array(
        z.strictObject({
          id: shortText.nullable(),
          eventTypeName: shortText.nullable(),
          /** ISO-8601, as Atlas wrote it. */
          created: shortText.nullable(),
        }),
      )
      .max(MAX_DETAIL_EVENT_IDS),
    eventCount: z.number().int().min(0),
    /** The console page a person opens, and the event in the Admin API. */
    links: z.strictObject({ console: nullableText, api: nullableText }),
    /** The newest event as Atlas sent it, values cut to fit the entry; `null` when nothing of it fits. */
    rawEvent: z.record(z.string(), z.unknown()).nullable(),
    /** Whether anything of the raw event was left out. */
    rawEventTruncated: z.boolean(),
  })
  .meta({
    title: 'Atlas Audit Alert detail, version 1',
    description:
      'The detail of the EventBridge entries atlas-audit-alerts puts on a bus (detail-types "Atlas Audit Alert" and "Atlas Audit Alert Resolved").',
  });

export type AlertDetail = z.output<typeof alertDetailSchema>;

/** Where a source stands, as its health entries say. */
export const SOURCE_HEALTH_STATES = ['failing', 'recovered', 'credentials-refused'] as const;

/** The detail of a source's health entry, version 1. */
export const sourceHealthDetailSchema = z
  .strictObject({
    schemaVersion: z.literal(ALERT_DETAIL_SCHEMA_VERSION),
    /** `failing`: its turn failed after one that went well; `recovered`: the reverse; `credentials-refused`: Atlas answered 401 or 403. */
    state: z.enum(SOURCE_HEALTH_STATES),
    /** `org:<id>`, `project:<id>` or `cluster:<project id>:<name>`. */
    source: z.string().max(512),
    connection: z.string().max(64),
    /** The error of the failed turn; `null` on recovery. */
    error: z.strictObject({ code: text, message: text, httpStatus: z.number().int().nullable() }).nullable(),
    /** When the tick saw it, ISO-8601 UTC. */
    at: utcTime,
  })
  .meta({
    title: 'Atlas Audit Source Health detail, version 1',
    description: 'The detail of the "Atlas Audit Source Health" entries atlas-audit-alerts puts on a bus.',
  });

export type SourceHealthDetail = z.output<typeof sourceHealthDetailSchema>;

/**
 * The JSON Schemas of the details (draft-07), generated from the schemas entries are built and tested
 * against: what `schemas/` in the package holds.
 *
 * @example
 * ```ts
 * writeFileSync('schemas/alert-detail.v1.schema.json', JSON.stringify(detailJsonSchemas().alert, null, 2));
 * ```
 */
export function detailJsonSchemas(): {
  alert: Record<string, unknown>;
  sourceHealth: Record<string, unknown>;
} {
  const generate = (schema: z.ZodType) =>
    z.toJSONSchema(schema, { target: 'draft-7', io: 'output' }) as Record<string, unknown>;
  return { alert: generate(alertDetailSchema), sourceHealth: generate(sourceHealthDetailSchema) };
}

/** The detail-type of an alert: a resolved posture finding has its own. */
export function alertDetailType(alert: Pick<Alert, 'events'>): string {
  return alertFinding(alert)?.state === 'resolved' ? DetailType.findingResolved : DetailType.alert;
}

/**
 * Builds the detail of an alert's entry. Event values are hostile: text is cleaned to one line and
 * cut, and the raw event is pruned to what is left of `maxBytes` (default {@link MAX_DETAIL_BYTES})
 * once every other field is in. Never throws for any alert the rule engine builds.
 *
 * @example
 * ```ts
 * const detail = buildAlertDetail(alert, { now: Date.now(), console: { flavor: 'atlas-v2', baseUrl } });
 * detail.alert.severityRank; // 5
 * ```
 */
export function buildAlertDetail(
  alert: Alert,
  context: FormatContext,
  maxBytes = MAX_DETAIL_BYTES,
): AlertDetail {
  const detail = detailWithoutRawEvent(alert, context);
  const newest = alert.events.at(-1);
  if (newest === undefined) return detail;
  const room = maxBytes - Buffer.byteLength(JSON.stringify(detail));
  const raw = room <= 0 ? { text: '', truncated: true } : boundedPrettyJson(newest, { maxBytes: room });
  return {
    ...detail,
    rawEvent: raw.text === '' ? null : (JSON.parse(raw.text) as Record<string, unknown>),
    rawEventTruncated: raw.truncated,
  };
}

/** Every field but the raw event (`null`, not truncated). */
function detailWithoutRawEvent(alert: Alert, context: FormatContext): AlertDetail {
  const newest: AtlasEvent = alert.events.at(-1) ?? {};
  const actorEvent = [...alert.events].reverse().find((event) => namesSomeone(event)) ?? newest;
  const links = eventLinks(newest, consoleOf(context, alert));
  const finding = alertFinding(alert);
  const ctx = alert.context;
  return {
    schemaVersion: ALERT_DETAIL_SCHEMA_VERSION,
    alert: {
      id: fingerprintDigest(alert.fingerprint),
      fingerprint: alert.fingerprint.slice(0, 4_096),
      ruleId: short(alert.ruleId) ?? '',
      ruleName: line(alert.ruleName) ?? short(alert.ruleId) ?? '',
      severity: alert.severity,
      severityRank: severityRank(alert.severity),
      title: line(alert.title) ?? '',
      summary: clip(alert.summary),
      runbook: alert.runbook === undefined || alert.runbook.trim() === '' ? null : clip(alert.runbook),
      tags: alert.tags.slice(0, 64).map((tag) => short(tag) ?? ''),
      raisedAt: new Date(alert.raisedAt).toISOString(),
      rulePack: {
        version: short(alert.rulePack?.version),
        layers: (alert.rulePack?.layers ?? []).slice(0, 32).map((layer) => short(layer) ?? ''),
      },
      rollUp:
        alert.rollUp === undefined
          ? null
          : {
              suppressed: alert.rollUp.suppressed,
              first: new Date(alert.rollUp.first).toISOString(),
              last: new Date(alert.rollUp.last).toISOString(),
            },
    },
    finding: finding === undefined ? null : { id: finding.id.slice(0, 512), state: finding.state },
    connection: ctx?.connection ?? 'default',
    organization: { id: line(newest.orgId) ?? ctx?.orgId ?? null, name: line(ctx?.orgName) },
    project: { id: line(newest.groupId) ?? ctx?.projectId ?? null, name: line(ctx?.projectName) },
    cluster: line(newest.clusterName),
    actor: {
      username: line(actorEvent.username),
      publicKey: line(actorEvent.publicKey),
      address: line(actorEvent.remoteAddress),
    },
    events: alert.events.slice(0, MAX_DETAIL_EVENT_IDS).map((event) => ({
      id: short(event.id),
      eventTypeName: short(event.eventTypeName),
      created: short(event.created),
    })),
    eventCount: alert.events.length,
    links: { console: linkOf(links, 'console'), api: linkOf(links, 'api') },
    rawEvent: null,
    rawEventTruncated: false,
  };
}

/** The first link of a kind, unless it is too long to be a link anyone follows (never cut: a cut URL misleads). */
function linkOf(links: readonly EventLink[], kind: EventLink['kind']): string | null {
  const url = links.find((link) => link.kind === kind)?.url;
  return url === undefined || url.length > MAX_TEXT ? null : url;
}

/** Whether an event names who did it. */
function namesSomeone(event: AtlasEvent): boolean {
  return line(event.username) !== null || line(event.publicKey) !== null;
}

/** A value as one clean line within {@link MAX_TEXT}, or `null` when it is not a string or is blank. */
function line(value: unknown, maxLength = MAX_TEXT): string | null {
  if (typeof value !== 'string') return null;
  const cleaned = cleanLineWithin(value, maxLength);
  return cleaned === '' ? null : cleaned;
}

/** {@link line} within {@link SHORT_TEXT}. */
function short(value: unknown): string | null {
  return line(value, SHORT_TEXT);
}

/** Text that may span lines, cut to {@link MAX_TEXT} characters without splitting a surrogate pair. */
function clip(value: string): string {
  if (value.length <= MAX_TEXT) return value;
  const cut = value.slice(0, MAX_TEXT);
  return /[\uD800-\uDBFF]$/.test(cut) ? cut.slice(0, -1) : cut;
}
