import { hash } from 'node:crypto';
import type { AtlasEvent } from '../atlas/types.js';
import type { Clock } from '../clock.js';
import { parseDuration } from './duration.js';
import { FirstSeenStateError, RuleStateError } from './errors.js';
import {
  type CompiledFirstSeen,
  DEFAULT_LEARNING,
  EventHash,
  fitSeenValues,
  observe,
  seenRecord,
} from './first-seen.js';
import {
  type FirstSeenRecord,
  type FirstSeenStore,
  type FirstSeenWriteFailures,
  MAX_SEEN_VALUES_BYTES,
  type SeenValue,
} from './first-seen-store.js';
import type { CompiledRule } from './rule-compiler.js';
import type { RulePack } from './rule-pack.js';

/** Group keys at most this long were kept as they are before every group key was hashed. */
const MAX_LEGACY_KEY_PART = 256;

/** A first-seen rule's match on one event, waiting for the batch's state to be read. */
export interface FirstSeenCandidate {
  readonly rule: CompiledRule;
  /** The rule's `firstSeen`. */
  readonly firstSeen: CompiledFirstSeen;
  readonly event: AtlasEvent;
  readonly eventId: string;
  readonly time: number;
  readonly groupKey: string;
  readonly value: string;
}

/** Options of {@link createFirstSeenTracker}. */
export interface FirstSeenTrackerOptions {
  readonly store: FirstSeenStore;
  /** When given, a rule's learning starts at its `now()`; without it, at the first event it evaluates. */
  readonly clock?: Clock | undefined;
  /** `false` skips the learning period (inline tests, which state what was seen before). Default `true`. */
  readonly learning?: boolean | undefined;
  /**
   * The most bytes a group's values may encode to: past it the least recently seen are evicted.
   * Default {@link MAX_SEEN_VALUES_BYTES}, what the stores hold: a store refuses a larger record.
   */
  readonly maxRecordBytes?: number | undefined;
}

/** What {@link FirstSeenTracker.resolve} decided. */
export interface FirstSeenResolution {
  /** The candidates whose value is new for their group (and whose rule is past learning), in order. */
  readonly fresh: FirstSeenCandidate[];
  /**
   * One per record the store could not write: a group's events were not judged (they raise no
   * first-seen alert), or a rule's learning start was not kept (it learns from now again next time).
   */
  readonly failures: FirstSeenStateError[];
}

/** Decides the first-seen candidates of a batch, against the store. */
export interface FirstSeenTracker {
  /**
   * The candidates whose value is new for their group (and whose rule is past learning), in order.
   * Reads every record the batch needs in one store call (and, for groups it finds no record of, a
   * second one for where they were kept before every group key was hashed), and writes the ones that
   * changed in one. A record the store does not write costs its own group's judgement alone: that
   * group's candidates are left out of `fresh` and the failure is in `failures`.
   *
   * @throws {RuleStateError} when the store cannot be reached: nothing of the batch is decided.
   */
  resolve(candidates: readonly FirstSeenCandidate[]): Promise<FirstSeenResolution>;
}

/**
 * The store key of a rule's learning start.
 *
 * @example
 * ```ts
 * learningKey('api-key-new-address'); // 'first-seen|api-key-new-address|learning'
 * ```
 */
export function learningKey(ruleId: string): string {
  return `first-seen|${ruleId}|learning`;
}

/**
 * Learning records that put the end of every first-seen rule's learning period at `at`, as if each rule
 * had been deployed one learning period before: what the demo writes, so that its first tick teaches
 * the rules and its second alerts. A rule whose `learning` does not parse is left out.
 *
 * @example
 * ```ts
 * await store.writeFirstSeen(learningEndingAt(pack, clock.now()));
 * ```
 */
export function learningEndingAt(pack: RulePack, at: number): Map<string, FirstSeenRecord> {
  const records = new Map<string, FirstSeenRecord>();
  for (const { spec } of pack.rules) {
    if (spec.first_seen === undefined) continue;
    const text = spec.first_seen.learning ?? DEFAULT_LEARNING;
    const learningMs = text === '0s' ? 0 : parseDuration(text);
    if (learningMs === undefined) continue;
    records.set(learningKey(spec.id), {
      values: {},
      expiresAt: Number.MAX_SAFE_INTEGER,
      startedAt: at - learningMs,
    });
  }
  return records;
}

/**
 * The store key of a rule's seen values for one group: the group key's SHA-256, whatever its length,
 * so that no group key can name another group's record.
 *
 * @example
 * ```ts
 * seenSetKey('data-explorer-first-use', '5f4e3d2c1b0a998877665544'); // 'first-seen|data-explorer-first-use|group-sha256|9c…'
 * ```
 */
export function seenSetKey(ruleId: string, groupKey: string): string {
  return `first-seen|${ruleId}|group-sha256|${hash('sha256', groupKey, 'hex')}`;
}

/**
 * Where a group's values were kept before every group key was hashed: the group key as it is, when
 * at most 256 characters. The record there is still read for a group that has none at
 * {@link seenSetKey}, then moved, so that an upgrade neither forgets nor alerts again. `undefined`
 * where the old form was ambiguous: a longer key was kept as `sha256:<hex>`, which a short key could
 * spell too, so neither a key of that shape nor a long key reads the old record (each learns again).
 *
 * @example
 * ```ts
 * legacySeenSetKey('api-key-new-address', 'zmmrboas'); // 'first-seen|api-key-new-address|group|zmmrboas'
 * legacySeenSetKey('api-key-new-address', 'sha256:00…'); // undefined
 * ```
 */
export function legacySeenSetKey(ruleId: string, groupKey: string): string | undefined {
  if (groupKey.length > MAX_LEGACY_KEY_PART || groupKey.startsWith('sha256:')) return undefined;
  return `first-seen|${ruleId}|group|${groupKey}`;
}

/** Group keys whose hashed form a tracker keeps; past it, it starts over. */
const GROUP_KEY_CACHE_LIMIT = 4_096;

/**
 * Tracks first-seen state for one engine: learning starts are remembered once read (they never
 * change), so a rule past learning costs no read for them; seen sets are read fresh for each batch
 * (another process may have written them), one read for the batch and one write of what changed.
 * A set is bounded in values by its rule and in bytes by the store: its least recently seen values
 * go first.
 *
 * @example
 * ```ts
 * const tracker = createFirstSeenTracker({ store: new MemoryFirstSeenStore() });
 * const { fresh, failures } = await tracker.resolve(candidates);
 * ```
 */
export function createFirstSeenTracker(options: FirstSeenTrackerOptions): FirstSeenTracker {
  const { store, clock } = options;
  const learning = options.learning !== false;
  const maxRecordBytes = options.maxRecordBytes ?? MAX_SEEN_VALUES_BYTES;
  const learningStarts = new Map<string, number>();

  // The same groups come back batch after batch: their keys are hashed once while they do.
  // By rule id, then group key: no key joined from the two per candidate.
  const groupKeys = new Map<string, Map<string, string>>();
  let cachedKeys = 0;
  const keyOfGroup = (ruleId: string, groupKey: string): string => {
    let ofRule = groupKeys.get(ruleId);
    let key = ofRule?.get(groupKey);
    if (key !== undefined) return key;
    key = seenSetKey(ruleId, groupKey);
    if (cachedKeys >= GROUP_KEY_CACHE_LIMIT) {
      groupKeys.clear();
      cachedKeys = 0;
      ofRule = undefined;
    }
    if (ofRule === undefined) {
      ofRule = new Map();
      groupKeys.set(ruleId, ofRule);
    }
    ofRule.set(groupKey, key);
    cachedKeys += 1;
    return key;
  };

  const read = async (keys: readonly string[]): Promise<Map<string, FirstSeenRecord>> => {
    try {
      return await store.readFirstSeen(keys);
    } catch (error) {
      throw stateError('read', keys.length, error);
    }
  };

  return {
    async resolve(candidates) {
      if (candidates.length === 0) return { fresh: [], failures: [] };
      const keys = new Set<string>();
      const firstTimes = new Map<string, number>();
      // The key of each candidate's group, by the candidate's position.
      const keyOf: string[] = [];
      for (const candidate of candidates) {
        const key = keyOfGroup(candidate.rule.id, candidate.groupKey);
        keyOf.push(key);
        keys.add(key);
        const ruleId = candidate.rule.id;
        if (!learning || candidate.firstSeen.learningMs === 0 || learningStarts.has(ruleId)) continue;
        keys.add(learningKey(ruleId));
        firstTimes.set(ruleId, Math.min(firstTimes.get(ruleId) ?? candidate.time, candidate.time));
      }
      const records = await read([...keys]);
      const migrated = await readLegacy(candidates, keyOf, records, read);
      const writes = new Map<string, FirstSeenRecord>();
      for (const [ruleId, firstTime] of firstTimes) {
        const startedAt = records.get(learningKey(ruleId))?.startedAt;
        if (startedAt !== undefined) {
          learningStarts.set(ruleId, startedAt);
          continue;
        }
        const start = clock?.now() ?? firstTime;
        learningStarts.set(ruleId, start);
        writes.set(learningKey(ruleId), { values: {}, expiresAt: Number.MAX_SAFE_INTEGER, startedAt: start });
      }
      const sets = new Map<string, Record<string, SeenValue>>();
      // A set read from where it was kept before is written where it is kept now, changed or not.
      const changed = new Set<string>(migrated.keys());
      const fresh: FirstSeenCandidate[] = [];
      const freshKeys: string[] = [];
      // Several first-seen rules often match one event, and its candidates come one after the other:
      // its hash is computed once, and only if a value needs it.
      let lastEvent: AtlasEvent | undefined;
      let by = new EventHash('');
      candidates.forEach((candidate, at) => {
        const { rule, time, event } = candidate;
        const key = keyOf[at] as string;
        let values = sets.get(key);
        if (values === undefined) {
          values = { ...(records.get(key)?.values ?? {}) };
          sets.set(key, values);
        }
        if (event !== lastEvent) {
          // The type too: an id names one event in Atlas, but hand-made event files reuse ids.
          by = new EventHash(`${candidate.eventId}|${String(event.eventTypeName)}`);
          lastEvent = event;
        }
        const seen = observe(values, candidate.value, {
          time,
          by,
          withinMs: candidate.firstSeen.withinMs,
          maxValues: candidate.firstSeen.maxValues,
        });
        if (seen.changed) changed.add(key);
        if (!seen.isNew) return;
        const start = learning ? learningStarts.get(rule.id) : undefined;
        if (start !== undefined && time < start + candidate.firstSeen.learningMs) return;
        fresh.push(candidate);
        freshKeys.push(key);
      });
      candidates.forEach((candidate, at) => {
        const key = keyOf[at] as string;
        const values = sets.get(key);
        if (!changed.has(key) || values === undefined || writes.has(key)) return;
        fitSeenValues(values, maxRecordBytes);
        writes.set(key, seenRecord(values, candidate.firstSeen.withinMs));
        const legacy = migrated.get(key);
        if (legacy !== undefined) writes.set(legacy, { values: {}, expiresAt: 0 });
      });
      if (writes.size === 0) return { fresh, failures: [] };
      let failed: FirstSeenWriteFailures;
      try {
        failed = await store.writeFirstSeen(writes);
      } catch (error) {
        throw stateError('write', writes.size, error);
      }
      if (failed.size === 0) return { fresh, failures: [] };
      return {
        fresh: fresh.filter((_, at) => !failed.has(freshKeys[at] as string)),
        failures: writeFailures(candidates, keyOf, failed),
      };
    },
  };
}

/**
 * Reads, for each group with no record at its key, the record kept where its key was kept before
 * (see {@link legacySeenSetKey}), into `records` under the new key. Returns the new keys so filled,
 * each with its old key: their records are written at the new key and deleted at the old.
 */
async function readLegacy(
  candidates: readonly FirstSeenCandidate[],
  keyOf: readonly string[],
  records: Map<string, FirstSeenRecord>,
  read: (keys: readonly string[]) => Promise<Map<string, FirstSeenRecord>>,
): Promise<Map<string, string>> {
  const legacyOf = new Map<string, string>();
  candidates.forEach((candidate, at) => {
    const key = keyOf[at] as string;
    if (records.has(key) || legacyOf.has(key)) return;
    const legacy = legacySeenSetKey(candidate.rule.id, candidate.groupKey);
    if (legacy !== undefined) legacyOf.set(key, legacy);
  });
  const migrated = new Map<string, string>();
  if (legacyOf.size === 0) return migrated;
  const found = await read([...legacyOf.values()]);
  for (const [key, legacy] of legacyOf) {
    const record = found.get(legacy);
    if (record === undefined) continue;
    records.set(key, record);
    migrated.set(key, legacy);
  }
  return migrated;
}

/** One error per record not written: a group's names its rule and the events left unjudged. */
function writeFailures(
  candidates: readonly FirstSeenCandidate[],
  keyOf: readonly string[],
  failed: FirstSeenWriteFailures,
): FirstSeenStateError[] {
  const byKey = new Map<string, FirstSeenCandidate[]>();
  candidates.forEach((candidate, at) => {
    const key = keyOf[at] as string;
    if (!failed.has(key)) return;
    const group = byKey.get(key);
    if (group === undefined) byKey.set(key, [candidate]);
    else group.push(candidate);
  });
  const failures: FirstSeenStateError[] = [];
  for (const [key, error] of failed) {
    const reason = error.message;
    const group = byKey.get(key);
    const first = group?.[0];
    if (first !== undefined) {
      const eventIds = [...new Set(group?.map((candidate) => candidate.eventId))];
      failures.push(
        new FirstSeenStateError(
          `Rule "${first.rule.id}" could not keep what it saw for one group (${reason}): ${eventIds.length} ` +
            `event${eventIds.length === 1 ? ' was' : 's were'} not judged first-seen by it, and the other rules ` +
            'and groups went on. The group learns its values again; check the state store',
          { cause: error, ruleId: first.rule.id, eventIds },
        ),
      );
      continue;
    }
    const ruleId = learningRuleOf(key);
    if (ruleId === undefined) continue;
    failures.push(
      new FirstSeenStateError(
        `Rule "${ruleId}" could not keep when it started learning (${reason}): it starts learning again ` +
          'in the next process that evaluates it; check the state store',
        { cause: error, ruleId, eventIds: [] },
      ),
    );
  }
  return failures;
}

/** The rule of a learning key, or `undefined` for any other key (an old one being deleted). */
function learningRuleOf(key: string): string | undefined {
  const match = /^first-seen\|(.+)\|learning$/.exec(key);
  return match?.[1];
}

function stateError(action: 'read' | 'write', count: number, error: unknown): RuleStateError {
  return new RuleStateError(
    `The first-seen store failed to ${action} ${count} record${count === 1 ? '' : 's'}: ${error instanceof Error ? error.message : String(error)}; evaluate the batch again once the store answers`,
    { cause: error },
  );
}
