import * as z from 'zod';
import { ATLAS_ID_PATTERN } from '../atlas/atlas-id.js';
import { jsonNestsDeeperThan } from '../atlas/json-depth.js';

/**
 * The deepest an alert body may nest: an Atlas alert is one object with a `links` array of objects
 * (depth 3); a deeper body is not Atlas's.
 */
const MAX_ALERT_DEPTH = 8;

const atlasId = z.string().regex(ATLAS_ID_PATTERN);
const time = z.iso.datetime({ offset: true });

/**
 * What the receiver reads of an Atlas alert (the `AlertView` Atlas posts): ids and times, each
 * checked for its type and shape, every other field ignored. Unknown fields pass, since Atlas adds
 * fields; a field of the wrong type fails the whole body.
 */
const atlasAlertSchema = z
  .looseObject({
    id: atlasId,
    groupId: atlasId.optional(),
    orgId: atlasId.optional(),
    eventTypeName: z.string().max(128).optional(),
    created: time.optional(),
    updated: time.optional(),
  })
  .refine((alert) => alert.created !== undefined || alert.updated !== undefined, {
    message: 'has neither created nor updated',
  })
  .refine((alert) => alert.groupId !== undefined || alert.orgId !== undefined, {
    message: 'names neither a project (groupId) nor an organization (orgId)',
  });

/** The fields of a pushed alert the receiver acts on. */
export interface PushedAlert {
  /** The alert's id: the same in each notification of one alert. */
  readonly id: string;
  /** The project, for a project's alert. */
  readonly groupId?: string;
  /** The organization: of an organization's alert, or the project's when Atlas names it. */
  readonly orgId?: string;
  readonly eventTypeName?: string;
  /** When Atlas last changed the alert (or created it, when it says nothing of an update), in milliseconds since the epoch. */
  readonly updatedAt: number;
  /** The time as Atlas wrote it: part of the replay key. */
  readonly updated: string;
}

/**
 * Reads a webhook body as an Atlas alert, or `undefined` when it is not one: not UTF-8 JSON, nested
 * deeper than an alert, not an object, an id that is not 24 hexadecimal characters, a time that is
 * not ISO-8601, neither a project nor an organization. Never throws, and never echoes the body: the
 * body is whatever the sender put there.
 *
 * @example
 * ```ts
 * parsePushedAlert(Buffer.from('{"id":"…","groupId":"…","updated":"2026-11-28T01:00:00Z"}'))?.groupId;
 * ```
 */
export function parsePushedAlert(body: Uint8Array): PushedAlert | undefined {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(body);
  } catch {
    return undefined;
  }
  if (jsonNestsDeeperThan(text, MAX_ALERT_DEPTH)) return undefined;
  let json: unknown;
  try {
    json = JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
  const parsed = atlasAlertSchema.safeParse(json);
  if (!parsed.success) return undefined;
  const { id, groupId, orgId, eventTypeName } = parsed.data;
  const updated = (parsed.data.updated ?? parsed.data.created) as string;
  return {
    id,
    ...(groupId === undefined ? {} : { groupId }),
    ...(orgId === undefined ? {} : { orgId }),
    ...(eventTypeName === undefined ? {} : { eventTypeName }),
    updated,
    updatedAt: Date.parse(updated),
  };
}
