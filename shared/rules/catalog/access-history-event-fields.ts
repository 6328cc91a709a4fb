import {
  ACCESS_HISTORY_EVENT_TYPES,
  type AccessHistoryEventType,
  buildAccessHistoryEvent,
} from '../access-history-events.js';

/**
 * The field paths of the `DB_AUTH_*` events, read off events built by the same code that maps the
 * access-history lines, from one line of each type with every field filled in.
 */

const line = {
  authSource: 'admin',
  failureReason: 'AuthenticationFailed: SCRAM authentication failed, storedKey mismatch',
  hostname: 'sample-shard-00-00.abcde.mongodb.net',
  ipAddress: '192.0.2.1',
  logLine: '{"t":{"$date":"2024-03-18T14:41:10.000+00:00"},"s":"I","c":"ACCESS","id":20249}',
  timestamp: '2024-03-18T14:41:10.000Z',
  timestampMs: Date.UTC(2024, 2, 18, 14, 41, 10),
  username: 'sample-user',
};

const SAMPLES: Readonly<Record<AccessHistoryEventType, boolean>> = {
  DB_AUTH_SUCCEEDED: true,
  DB_AUTH_FAILED: false,
};

/**
 * Every access-history event type with the field paths its events carry, sorted.
 *
 * @example
 * ```ts
 * accessHistoryEventFields().DB_AUTH_FAILED; // ['authSource', 'clusterName', 'created', 'eventTypeName', 'failureReason', ...]
 * ```
 */
export function accessHistoryEventFields(): Record<string, string[]> {
  const result: Record<string, string[]> = {};
  for (const type of Object.values(ACCESS_HISTORY_EVENT_TYPES).sort()) {
    const event = buildAccessHistoryEvent(
      { ...line, authResult: SAMPLES[type] },
      { groupId: '5f0000000000000000000003', clusterName: 'sample' },
    );
    result[type] = Object.keys(event).sort();
  }
  return result;
}
