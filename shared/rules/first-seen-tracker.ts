import { createHash } from 'node:crypto';
import type { AtlasEvent } from '../atlas/types.js';
import type { Clock } from '../clock.js';
import { parseDuration } from './duration.js';
import { RuleStateError } from './errors.js';
import { type CompiledFirstSeen, DEFAULT_LEARNING, EventHash, observe, seenRecord } from './first-seen.js';
import type { FirstSeenRecord, FirstSeenStore, SeenValue } from './first-seen-store.js';
import type { CompiledRule } from './rule-compiler.js';
import type { RulePack } from './rule-pack.js';

/** Group keys longer than this are hashed, so a long group value cannot exceed a store's key size. */
const MAX_KEY_PART = 256;

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
}

/** Decides the first-seen candidates of a batch, against the store. */
export interface FirstSeenTracker {
  /**
   * The candidates whose value is new for their group (and whose rule is past learning), in order.
   * Reads every record the batch needs in one store call, and writes the ones that changed in one.
   *
   * @throws {RuleStateError} when the store fails: nothing of the batch is decided.
   */
  resolve(candidates: readonly FirstSeenCandidate[]): Promise<FirstSeenCandidate[]>;
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

/** The store key of a rule's seen values for one group. */
export function seenSetKey(ruleId: string, groupKey: string): string {
  const part =
    groupKey.length <= MAX_KEY_PART
      ? groupKey
      : `sha256:${createHash('sha256').update(groupKey).digest('hex')}`;
  return `first-seen|${ruleId}|group|${part}`;
}

/**
 * Tracks first-seen state for one engine: learning starts are remembered once read (they never
 * change), so a rule past learning costs no read for them; seen sets are read fresh for each batch
 * (another process may have written them), one read for the batch and one write of what changed.
 *
 * @example
 * ```ts
 * const tracker = createFirstSeenTracker({ store: new MemoryFirstSeenStore() });
 * const fresh = await tracker.resolve(candidates);
 * ```
 */
export function createFirstSeenTracker(options: FirstSeenTrackerOptions): FirstSeenTracker {
  const { store, clock } = options;
  const learning = options.learning !== false;
  const learningStarts = new Map<string, number>();

  return {
    async resolve(candidates) {
      if (candidates.length === 0) return [];
      const keys = new Set<string>();
      const setKeys = candidates.map((candidate) => seenSetKey(candidate.rule.id, candidate.groupKey));
      const firstTimes = new Map<string, number>();
      for (const key of setKeys) keys.add(key);
      for (const candidate of candidates) {
        const ruleId = candidate.rule.id;
        if (!learning || candidate.firstSeen.learningMs === 0 || learningStarts.has(ruleId)) continue;
        keys.add(learningKey(ruleId));
        firstTimes.set(ruleId, Math.min(firstTimes.get(ruleId) ?? candidate.time, candidate.time));
      }
      let records: Map<string, FirstSeenRecord>;
      try {
        records = await store.readFirstSeen([...keys]);
      } catch (error) {
        throw stateError('read', keys.size, error);
      }
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
      const changed = new Set<string>();
      const fresh: FirstSeenCandidate[] = [];
      // Several first-seen rules often match one event: its hash is computed once.
      const hashes = new Map<AtlasEvent, EventHash>();
      for (const [index, candidate] of candidates.entries()) {
        const { rule, time, event } = candidate;
        const key = setKeys[index] as string;
        let values = sets.get(key);
        if (values === undefined) {
          values = { ...(records.get(key)?.values ?? {}) };
          sets.set(key, values);
        }
        let by = hashes.get(event);
        if (by === undefined) {
          // The type too: an id names one event in Atlas, but hand-made event files reuse ids.
          by = new EventHash(`${candidate.eventId}|${String(event.eventTypeName)}`);
          hashes.set(event, by);
        }
        const seen = observe(values, candidate.value, {
          time,
          by,
          withinMs: candidate.firstSeen.withinMs,
          maxValues: candidate.firstSeen.maxValues,
        });
        if (seen.changed) changed.add(key);
        if (!seen.isNew) continue;
        const start = learning ? learningStarts.get(rule.id) : undefined;
        if (start !== undefined && time < start + candidate.firstSeen.learningMs) continue;
        fresh.push(candidate);
      }
      for (const [index, candidate] of candidates.entries()) {
        const key = setKeys[index] as string;
        const values = sets.get(key);
        if (changed.has(key) && values !== undefined && !writes.has(key)) {
          writes.set(key, seenRecord(values, candidate.firstSeen.withinMs));
        }
      }
      if (writes.size > 0) {
        try {
          await store.writeFirstSeen(writes);
        } catch (error) {
          throw stateError('write', writes.size, error);
        }
      }
      return fresh;
    },
  };
}

function stateError(action: 'read' | 'write', count: number, error: unknown): RuleStateError {
  return new RuleStateError(
    `The first-seen store failed to ${action} ${count} record${count === 1 ? '' : 's'}: ${error instanceof Error ? error.message : String(error)}; evaluate the batch again once the store answers`,
    { cause: error },
  );
}
