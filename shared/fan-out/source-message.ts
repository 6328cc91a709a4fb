import * as z from 'zod';
import { CLUSTER_NAME } from '../atlas/access-history-query.js';
import {
  atlasIdSchema,
  CONNECTION_NAME,
  clusterSource,
  DEFAULT_CONNECTION,
  orgSource,
  type PollSource,
  type PollSourceKind,
  projectSource,
} from '../poll/index.js';
import { SourceMessageError } from './errors.js';
import { SOURCE_MESSAGE_VERSION } from './queue-entry.js';

/** The version of the message body; a worker refuses any other. */
export { SOURCE_MESSAGE_VERSION };

/**
 * What one queue message says: poll this source for the tick that started at `tick`. Ids and a time
 * only: a message never carries a credential, an event or a setting.
 */
export interface SourceMessage {
  v: typeof SOURCE_MESSAGE_VERSION;
  kind: PollSourceKind;
  /** The organization or project id (a cluster's project). */
  id: string;
  /** The cluster, for a cluster's access history. */
  cluster?: string;
  /** The organization the source belongs to, when known: its rate-limit group. */
  orgId?: string;
  /** The connection whose credentials poll it; absent for the connection `default`. */
  connection?: string;
  /** The tick that queued it, ISO-8601 UTC: its scheduled time rounded down to the period (see `tickIdentity`). */
  tick: string;
  /**
   * A push queued it: the worker's walk reads the source up to now, not `now − lag`, so the pushed
   * event, seconds old, is read (its cursor still stops at `now − lag`). Absent on the dispatcher's.
   */
  push?: true;
}

const sourceMessageSchema = z
  .strictObject({
    v: z.literal(SOURCE_MESSAGE_VERSION),
    kind: z.enum(['org', 'project', 'cluster']),
    id: atlasIdSchema,
    cluster: z.string().regex(CLUSTER_NAME, 'must be an Atlas cluster name').optional(),
    orgId: atlasIdSchema.optional(),
    connection: z
      .string()
      .regex(CONNECTION_NAME)
      .refine((name) => name !== DEFAULT_CONNECTION, 'the connection default is named by leaving it out')
      .optional(),
    tick: z.iso.datetime(),
    push: z.literal(true).optional(),
  })
  .refine((message) => (message.kind === 'cluster') === (message.cluster !== undefined), {
    path: ['cluster'],
    message: 'names the cluster of a cluster source, and only of one',
  });

/** Longest body a worker reads; a source message is about 120 bytes. */
const MAX_BODY_BYTES = 1_024;

/**
 * Reads a queue message body into the source it names.
 *
 * @throws {SourceMessageError} when the body is not JSON, is too long, or is not a version-1 source
 *   message; the message says which field is wrong (never echoing more than the field's path).
 * @example
 * ```ts
 * parseSourceMessage('{"v":1,"kind":"org","id":"5f4e3d2c1b0a998877665544","tick":"2026-11-24T03:00:00.000Z"}');
 * ```
 */
export function parseSourceMessage(body: string): SourceMessage {
  if (Buffer.byteLength(body) > MAX_BODY_BYTES) {
    throw new SourceMessageError(
      `source message of ${Buffer.byteLength(body)} bytes is longer than ${MAX_BODY_BYTES}: it was not sent by the dispatcher; it goes to the dead-letter queue`,
    );
  }
  let json: unknown;
  try {
    json = JSON.parse(body) as unknown;
  } catch (error) {
    throw new SourceMessageError(
      'source message body is not JSON: it was not sent by the dispatcher; it goes to the dead-letter queue',
      { cause: error },
    );
  }
  const parsed = sourceMessageSchema.safeParse(json);
  if (!parsed.success) {
    const problems = parsed.error.issues
      .map((issue) => `${issue.path.length === 0 ? '(body)' : issue.path.join('.')}: ${issue.message}`)
      .join('; ');
    throw new SourceMessageError(
      `source message is not a version ${SOURCE_MESSAGE_VERSION} source message (${problems}); it goes to the dead-letter queue`,
    );
  }
  const { orgId, connection, cluster, push, ...rest } = parsed.data;
  return {
    ...rest,
    ...(push === undefined ? {} : { push }),
    ...(cluster === undefined ? {} : { cluster }),
    ...(orgId === undefined ? {} : { orgId }),
    ...(connection === undefined ? {} : { connection }),
  };
}

/**
 * The poll source a message names.
 *
 * @example
 * ```ts
 * messageSource(parseSourceMessage(body)).name; // 'project:5f4e…' (and `.connection`, when the message names one)
 * ```
 */
export function messageSource(message: SourceMessage): PollSource {
  const source =
    message.kind === 'org'
      ? orgSource(message.id)
      : message.kind === 'cluster' && message.cluster !== undefined
        ? clusterSource(message.id, message.cluster)
        : projectSource(message.id);
  return message.connection === undefined ? source : { ...source, connection: message.connection };
}
