import { hash } from 'node:crypto';
import type { AtlasEvent } from '../atlas/types.js';
import { type CompileContext, compileMatch, type Predicate, requiredEventTypes } from './conditions.js';
import { compileDuration } from './duration.js';
import { RuleStateError } from './errors.js';
import { groupReaders } from './field-path.js';
import type { FirstSeenRecord, FirstSeenStore, SeenValue } from './first-seen-store.js';
import { MAX_SEQUENCE_EARLIER, type SequenceSpec } from './schema.js';

export { MAX_SEQUENCE_EARLIER };

/** Event ids longer than this are kept as a hash, so a hostile id cannot swell a group's record. */
const MAX_ID_LENGTH = 128;

/** A rule's `sequence`, compiled. */
export interface CompiledSequence {
  /** Whether an event is one of the earlier step's (the rule's exceptions do not apply to it). */
  readonly after: Predicate;
  /** The event types the earlier step can match; `undefined` when it may match any. */
  readonly afterTypes: ReadonlySet<string> | undefined;
  /** How long after an earlier event a later one of its group alerts (exclusive). */
  readonly withinMs: number;
  /** How many earlier events must come before a later one, within the window, for it to alert. */
  readonly count: number;
  /** Whether the event carries every `group_by` field (neither missing, null nor empty). */
  readonly grouped: (event: AtlasEvent) => boolean;
}

/**
 * Compiles a rule's `sequence`. Problems go to `context.problems` with paths relative to the rule;
 * `undefined` when there are any.
 *
 * @example
 * ```ts
 * const compiled = compileSequence({ after: { eventTypeName: 'API_KEY_CREATED' }, within: '10m' }, ['apiKeyId'], context);
 * compiled?.after({ eventTypeName: 'API_KEY_CREATED' }); // true
 * ```
 */
export function compileSequence(
  spec: SequenceSpec,
  groupBy: readonly string[],
  context: CompileContext,
): CompiledSequence | undefined {
  const before = context.problems.length;
  const after = compileMatch(spec.after, ['sequence', 'after'], context);
  const withinMs = compileDuration(spec.within, ['sequence', 'within'], context, '30s, 10m, 1h or 1d');
  if (withinMs === undefined || context.problems.length > before) return undefined;
  const groups = groupReaders(groupBy);
  return {
    after,
    afterTypes: requiredEventTypes(spec.after, context.lists),
    withinMs,
    count: spec.count ?? 1,
    grouped: (event) => groups.every((group) => !isMissing(group.first(event))),
  };
}

function isMissing(value: unknown): boolean {
  return value === undefined || value === null || value === '';
}

/** One event of a sequence rule's batch, of its earlier step or its later one (the rule's match). */
export interface SequenceSighting {
  /** The sequence rule's id. */
  readonly ruleId: string;
  readonly sequence: CompiledSequence;
  readonly step: 'earlier' | 'later';
  readonly groupKey: string;
  readonly eventId: string;
  readonly time: number;
  readonly event: AtlasEvent;
}

/** An earlier event a group holds: its id and time, and the event when this engine has seen it. */
interface EarlierEntry {
  readonly id: string;
  readonly time: number;
  readonly event: AtlasEvent | undefined;
}

/** Whether `a` comes before `b` in the engine's order: by time, then by id. */
function before(a: { time: number; id: string }, b: { time: number; id: string }): boolean {
  return a.time < b.time || (a.time === b.time && a.id < b.id);
}

/**
 * The earlier events a later one at (`time`, `id`) follows: those before it, by time then id, and less
 * than `withinMs` before it, oldest first.
 *
 * @example
 * ```ts
 * earlierWithin([{ id: 'a', time: 0, event: undefined }], { id: 'b', time: 1 }, 10); // [the entry a]
 * ```
 */
export function earlierWithin<T extends { readonly id: string; readonly time: number }>(
  entries: readonly T[],
  later: { readonly id: string; readonly time: number },
  withinMs: number,
): T[] {
  return entries
    .filter((entry) => before(entry, later) && later.time - entry.time < withinMs)
    .sort((a, b) => (before(a, b) ? -1 : 1));
}

/**
 * The entries a group keeps: those still live at `now` (less than `withinMs` old), the newest
 * {@link MAX_SEQUENCE_EARLIER} of them, oldest first.
 *
 * @example
 * ```ts
 * keptEarlier(entries, 600_000, Date.parse('2026-11-27T10:00:00Z'));
 * ```
 */
export function keptEarlier<T extends { readonly id: string; readonly time: number }>(
  entries: readonly T[],
  withinMs: number,
  now: number,
): T[] {
  const live = entries.filter((entry) => now - entry.time < withinMs).sort((a, b) => (before(a, b) ? -1 : 1));
  return live.slice(Math.max(0, live.length - MAX_SEQUENCE_EARLIER));
}

/** The store key of a sequence rule's group: the group key hashed, so any group fits a key. */
export function sequenceKey(ruleId: string, groupKey: string): string {
  return `sequence|${ruleId}|${hash('sha256', groupKey, 'hex').slice(0, 32)}`;
}

/** An event id as the store keeps it: as is, or hashed when longer than 128 characters. */
function storedId(id: string): string {
  return id.length <= MAX_ID_LENGTH ? id : `sha256:${hash('sha256', id, 'hex').slice(0, 32)}`;
}

/** The event an alert names for an earlier event this engine never saw: its id and time. */
function namedEvent(entry: EarlierEntry): AtlasEvent {
  return entry.event ?? { id: entry.id, created: new Date(entry.time).toISOString() };
}

/** Past this many events remembered to carry in alerts, the oldest remembered are forgotten. */
const REMEMBERED_EVENTS = 4_096;

/**
 * What sequence rules keep between batches, in the first-seen store's records (one per rule and group:
 * `sequence|<rule>|<hash of group>`, its values the earlier events' ids with their times). A record
 * keeps the newest {@link MAX_SEQUENCE_EARLIER} earlier events less than `within` old, and expires
 * `within` after its newest; so a later event in another process, or the next tick, finds them.
 *
 * `resolve` reads every record the batch needs at once, judges each later event against the group's
 * earlier events from the store and from the batch together (whatever their order in the batch: the
 * order is by event time, then id), and writes back the records that changed at once. Reading the
 * same events again finds the same earlier events (their ids are the record's keys: nothing counts
 * twice), so a later event raises the same alert again.
 *
 * The events an alert carries are the earlier events this engine has seen (the batch's, and up to
 * 4,096 from earlier batches); an earlier event it knows only from the store is named by its id and
 * `created` alone.
 *
 * @example
 * ```ts
 * const tracker = new SequenceTracker(new MemoryFirstSeenStore());
 * const earlier = await tracker.resolve(sightings); // by later sighting: the events it follows
 * ```
 */
export class SequenceTracker {
  readonly #store: FirstSeenStore;
  readonly #events = new Map<string, AtlasEvent>();

  constructor(store: FirstSeenStore) {
    this.#store = store;
  }

  /**
   * By later sighting that follows at least its rule's `count` earlier events of its group within the
   * window, the earlier events it follows, oldest first (at most {@link MAX_SEQUENCE_EARLIER}); later
   * sightings that follow fewer are absent.
   *
   * @throws {RuleStateError} when the store cannot read or write a record: nothing of the batch is
   *   decided, and evaluating it again once the store answers decides it the same.
   */
  async resolve(sightings: readonly SequenceSighting[]): Promise<Map<SequenceSighting, AtlasEvent[]>> {
    const groups = new Map<string, SequenceSighting[]>();
    for (const sighting of sightings) {
      const key = sequenceKey(sighting.ruleId, sighting.groupKey);
      const group = groups.get(key);
      if (group === undefined) groups.set(key, [sighting]);
      else group.push(sighting);
    }
    const judged = new Map<SequenceSighting, AtlasEvent[]>();
    if (groups.size === 0) return judged;
    const ruleIds = [...new Set(sightings.map((sighting) => sighting.ruleId))];
    const keys = [...groups.keys()];
    let records: Map<string, FirstSeenRecord>;
    try {
      records = await this.#store.readFirstSeen(keys);
    } catch (error) {
      throw sequenceStateError(ruleIds, keys, 'read', error);
    }
    const writes = new Map<string, FirstSeenRecord>();
    for (const [key, group] of groups) {
      const { withinMs, count } = (group[0] as SequenceSighting).sequence;
      const stored = Object.entries(records.get(key)?.values ?? {}).map(
        ([id, seen]): EarlierEntry => ({ id, time: seen.first, event: this.#events.get(id) }),
      );
      const entries = new Map(stored.map((entry) => [entry.id, entry]));
      let latest = Number.NEGATIVE_INFINITY;
      for (const sighting of group) {
        latest = Math.max(latest, sighting.time);
        if (sighting.step !== 'earlier') continue;
        const id = storedId(sighting.eventId);
        entries.set(id, { id, time: sighting.time, event: sighting.event });
        this.#remember(id, sighting.event);
      }
      const all = [...entries.values()];
      for (const sighting of group) {
        if (sighting.step !== 'later') continue;
        const found = earlierWithin(all, { id: storedId(sighting.eventId), time: sighting.time }, withinMs);
        if (found.length < count) continue;
        judged.set(sighting, found.slice(-MAX_SEQUENCE_EARLIER).map(namedEvent));
      }
      const kept = keptEarlier(all, withinMs, latest);
      if (sameIds(kept, stored)) continue;
      const values: Record<string, SeenValue> = {};
      for (const entry of kept) values[entry.id] = { first: entry.time, last: entry.time, by: '' };
      const newest = kept.at(-1);
      writes.set(key, { values, expiresAt: newest === undefined ? latest : newest.time + withinMs });
    }
    if (writes.size === 0) return judged;
    let failures: ReadonlyMap<string, Error>;
    try {
      failures = await this.#store.writeFirstSeen(writes);
    } catch (error) {
      throw sequenceStateError(ruleIds, [...writes.keys()], 'write', error);
    }
    const [failed] = failures;
    if (failed !== undefined) throw sequenceStateError(ruleIds, [failed[0]], 'write', failed[1]);
    return judged;
  }

  #remember(id: string, event: AtlasEvent): void {
    this.#events.delete(id);
    this.#events.set(id, event);
    if (this.#events.size <= REMEMBERED_EVENTS) return;
    // Past the bound, the map holds at least one key: the first is the least recently remembered.
    this.#events.delete(this.#events.keys().next().value as string);
  }
}

/** Whether two sets of entries hold the same ids. */
function sameIds(a: readonly EarlierEntry[], b: readonly EarlierEntry[]): boolean {
  if (a.length !== b.length) return false;
  const ids = new Set(b.map((entry) => entry.id));
  return a.every((entry) => ids.has(entry.id));
}

function sequenceStateError(
  ruleIds: readonly string[],
  keys: readonly string[],
  action: 'read' | 'write',
  error: unknown,
): RuleStateError {
  const named =
    ruleIds.length === 1 ? `rule "${ruleIds[0]}"` : `rules ${ruleIds.map((id) => `"${id}"`).join(', ')}`;
  const which = keys.length === 1 ? `key ${keys[0]}` : `${keys.length} keys, such as ${keys[0]}`;
  return new RuleStateError(
    `The state store could not ${action} the earlier events of sequence ${named} (${which}): ${error instanceof Error ? error.message : String(error)}; evaluate the batch again once the store answers`,
    { cause: error },
  );
}
