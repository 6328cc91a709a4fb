import { hash } from 'node:crypto';
import ipaddr from 'ipaddr.js';
import type { AtlasEvent } from '../atlas/types.js';
import type { CompileContext } from './conditions.js';
import { compileDuration, parseDuration } from './duration.js';
import { canonicalAddress, parseEventAddress } from './event-address.js';
import { compileFieldPath, groupReaders, type PathReader, parseFieldPath } from './field-path.js';
import type { FirstSeenRecord, SeenValue } from './first-seen-store.js';
import type { FirstSeenSpec } from './schema.js';

/** A rule's `first_seen`, compiled. */
export interface CompiledFirstSeen {
  /**
   * The value the rule compares for this event: the field's value (or its network), bounded in length;
   * `undefined` when the field or a `group_by` field is missing, or `network` is set and the value is
   * not an IP address. The rule never holds for such an event.
   */
  readonly valueOf: (event: AtlasEvent) => string | undefined;
  /** How long a value stays known after it was last seen. */
  readonly withinMs: number;
  /** How long after the rule's first evaluation it only records. */
  readonly learningMs: number;
  /** Most values kept per group; the least recently seen go first. */
  readonly maxValues: number;
}

/** Values kept per group when the rule does not say. */
export const DEFAULT_MAX_VALUES = 100;
/** The most values a rule may keep per group: a group's record must fit in one DynamoDB item. */
export const MAX_MAX_VALUES = 1_000;
/** The learning period when the rule does not say. */
export const DEFAULT_LEARNING = '7d';
/** Values longer than this (UTF-16 units) are compared and stored as a hash. */
const MAX_VALUE_LENGTH = 128;
const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Compiles a rule's `first_seen`. Problems go to `context.problems` with paths relative to the rule.
 *
 * @example
 * ```ts
 * const compiled = compileFirstSeen({ field: 'remoteAddress', within: '30d' }, ['publicKey'], context);
 * compiled?.valueOf({ publicKey: 'abc', remoteAddress: '203.0.113.7' }); // '203.0.113.7'
 * ```
 */
export function compileFirstSeen(
  spec: FirstSeenSpec,
  groupBy: readonly string[],
  context: CompileContext,
): CompiledFirstSeen | undefined {
  const problems = context.problems.length;
  const parsed = parseFieldPath(spec.field);
  let field: PathReader | undefined;
  if (parsed.ok) field = compileFieldPath(parsed.path);
  else
    context.problems.push({
      code: 'INVALID_FIELD_PATH',
      path: ['first_seen', 'field'],
      message: parsed.message,
    });
  const groups = groupReaders(groupBy);
  const withinMs = compileDuration(spec.within, ['first_seen', 'within'], context, '1h, 7d or 30d');
  const learningText = spec.learning ?? DEFAULT_LEARNING;
  const learningMs = learningText === '0s' ? 0 : parseDuration(learningText);
  if (learningMs === undefined) {
    context.problems.push({
      code: 'INVALID_DURATION',
      path: ['first_seen', 'learning'],
      message: `"${learningText}" is not a duration: write 0s for no learning period, or days, hours, minutes and seconds such as 7d (at most 366d)`,
    });
  }
  if (field === undefined || withinMs === undefined || learningMs === undefined) return undefined;
  if (context.problems.length > problems) return undefined;
  const toValue = spec.network === undefined ? addressOrValue : networkOf(spec.network);
  const reader = field;
  return {
    valueOf: (event) => {
      for (const group of groups) if (isMissing(group.first(event))) return undefined;
      const raw = reader.first(event);
      return isMissing(raw) ? undefined : toValue(raw);
    },
    withinMs,
    learningMs,
    maxValues: spec.max_values ?? DEFAULT_MAX_VALUES,
  };
}

/**
 * How long a value's last-seen time may lag before a sighting refreshes it: a day, or a tenth of the
 * period when that is shorter. A value seen all the time then costs a write a day, not one per batch;
 * it may expire up to that much early.
 */
export function refreshAfterMs(withinMs: number): number {
  return Math.min(DAY_MS, Math.max(1, Math.floor(withinMs / 10)));
}

/** The outcome of {@link observe}. */
export interface Observation {
  /** Whether the value was not known for the group: first seen, seen again after it expired, or the event that first saw it read again. */
  readonly isNew: boolean;
  /** Whether the set changed and must be written back. */
  readonly changed: boolean;
}

/**
 * Records that `value` was seen at `time` by the event whose hash is `by`, in a group's mutable set of
 * values, and tells whether it was new. Expired values are dropped when the set changes, and past
 * `maxValues` the least recently seen values are evicted. `by` may be an {@link EventHash}: its hash is
 * then computed only when needed (a value new to the set, or one first seen at this very time), not
 * for the common sighting of a known value.
 *
 * @example
 * ```ts
 * const values = {};
 * observe(values, '203.0.113.7', { time: 0, by: 'a', withinMs: 10, maxValues: 5 }); // { isNew: true, changed: true }
 * observe(values, '203.0.113.7', { time: 1, by: 'b', withinMs: 10, maxValues: 5 }).isNew; // false
 * ```
 */
export function observe(
  values: Record<string, SeenValue>,
  value: string,
  options: { time: number; by: string | EventHash; withinMs: number; maxValues: number },
): Observation {
  const { time, by, withinMs, maxValues } = options;
  const known = values[value];
  if (known !== undefined && time - known.last < withinMs) {
    // Only an event of the value's first time can be the event that first saw it.
    if (known.first === time && known.by === hashOf(by)) return { isNew: true, changed: false };
    if (time - known.last < refreshAfterMs(withinMs)) return { isNew: false, changed: false };
    values[value] = { ...known, last: time };
    return { isNew: false, changed: true };
  }
  values[value] = { first: time, last: time, by: hashOf(by) };
  prune(values, time, withinMs, maxValues);
  return { isNew: true, changed: true };
}

/** The record to write for a group's values: its expiry is the last sighting plus the period. */
export function seenRecord(values: Record<string, SeenValue>, withinMs: number): FirstSeenRecord {
  let last = Number.NEGATIVE_INFINITY;
  for (const seen of Object.values(values)) if (seen.last > last) last = seen.last;
  return { values, expiresAt: last === Number.NEGATIVE_INFINITY ? 0 : last + withinMs };
}

/** A short, stable hash of an event id, as stored in {@link SeenValue.by}. */
export function eventHash(eventId: string): string {
  return hash('sha256', eventId, 'base64url').slice(0, 16);
}

/**
 * The {@link eventHash} of one event, computed the first time it is asked for: most sightings of a
 * known value never need it.
 *
 * @example
 * ```ts
 * const by = new EventHash('65a1c0de0000000000000001|DATA_EXPLORER');
 * by.value; // the same as eventHash('65a1c0de0000000000000001|DATA_EXPLORER')
 * ```
 */
export class EventHash {
  readonly #identity: string;
  #value: string | undefined;

  constructor(identity: string) {
    this.#identity = identity;
  }

  get value(): string {
    this.#value ??= eventHash(this.#identity);
    return this.#value;
  }
}

function hashOf(by: string | EventHash): string {
  return typeof by === 'string' ? by : by.value;
}

/**
 * Drops expired values, then the least recently seen (ties: the smaller value) past `maxValues`. A set
 * at its bound gains one value at a time, so the one to evict is found in the same pass that drops the
 * expired ones: a group that sees a new value on every event must not sort its whole set each time.
 * Only a set stored over a smaller bound is sorted.
 */
function prune(values: Record<string, SeenValue>, time: number, withinMs: number, maxValues: number): void {
  let live = 0;
  let oldest: [string, SeenValue] | undefined;
  for (const entry of Object.entries(values)) {
    if (time - entry[1].last >= withinMs) {
      delete values[entry[0]];
      continue;
    }
    live += 1;
    if (oldest === undefined || evictionOrder(entry, oldest) < 0) oldest = entry;
  }
  if (live <= maxValues || oldest === undefined) return;
  if (live === maxValues + 1) {
    delete values[oldest[0]];
    return;
  }
  const entries = Object.entries(values).sort(evictionOrder);
  for (const [value] of entries.slice(0, live - maxValues)) delete values[value];
}

/**
 * Evicts the least recently seen values of a group's mutable set (ties: the smaller value) until
 * their encoding (`encodeSeenValues`) takes at most `maxBytes`, and returns how many went. A store
 * item has a size limit in bytes, which a bound in values does not keep: 1,000 values of 128
 * characters that JSON escapes to 6 bytes each take 770 KB. A set that cannot exceed the limit
 * whatever its characters is not measured.
 *
 * @example
 * ```ts
 * fitSeenValues(values, MAX_SEEN_VALUES_BYTES); // 0 for any set of 100 short values
 * ```
 */
export function fitSeenValues(values: Record<string, SeenValue>, maxBytes: number): number {
  const entries = Object.entries(values);
  // An upper bound first: 6 bytes a UTF-16 unit (`\u0001`), 17 a number, brackets, quotes and commas.
  let bound = 2;
  for (const [value, seen] of entries) bound += (value.length + seen.by.length) * 6 + 2 * 17 + 8;
  if (bound <= maxBytes) return 0;
  const sizes = new Map<string, number>();
  let total = 1;
  for (const [value, seen] of entries) {
    const size = Buffer.byteLength(JSON.stringify([value, seen.first, seen.last, seen.by]), 'utf8') + 1;
    sizes.set(value, size);
    total += size;
  }
  if (total <= maxBytes) return 0;
  let evicted = 0;
  for (const [value] of entries.sort(evictionOrder)) {
    if (total <= maxBytes) break;
    total -= sizes.get(value) ?? 0;
    delete values[value];
    evicted += 1;
  }
  return evicted;
}

/** Eviction order: the value seen less recently first, and of two seen at the same time the smaller. */
function evictionOrder([a, x]: [string, SeenValue], [b, y]: [string, SeenValue]): number {
  return x.last - y.last || (a < b ? -1 : a > b ? 1 : 0);
}

function isMissing(value: unknown): boolean {
  return value === undefined || value === null || value === '';
}

/**
 * The value as first-seen and distinct-count rules compare it: an IP address in its one spelling (see
 * `canonicalAddress`), so `2001:DB8::1`, `[2001:db8::1]` and `2001:db8::1` are one address and
 * `::ffff:203.0.113.5` is `203.0.113.5`; any other value as {@link boundedValue} gives it.
 *
 * @example
 * ```ts
 * addressOrValue('[2001:DB8::1]:443'); // '2001:db8::1'
 * addressOrValue('alice'); // 'alice'
 * ```
 */
export function addressOrValue(value: unknown): string | undefined {
  return canonicalAddress(value) ?? boundedValue(value);
}

/**
 * The value as the rule compares it: text as is, other values as JSON; text longer than 128 characters
 * or starting with `#` as `#` and its SHA-256, so a hostile value cannot grow a record.
 */
function boundedValue(value: unknown): string | undefined {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  if (text === undefined) return undefined;
  if (text.length <= MAX_VALUE_LENGTH && !text.startsWith('#')) return text;
  return `#${hash('sha256', text, 'base64url')}`;
}

/** Networks remembered per rule: the same few addresses act again and again. */
const NETWORK_CACHE_LIMIT = 4096;
/** Longer values are not remembered: no address is spelt that long. */
const CACHED_VALUE_LENGTH = 64;

/**
 * The network of an IP address (or CIDR block, bracketed or not, see `parseEventAddress`) at the given
 * widths: `203.0.113.0/24`, `2001:db8::/48`. Results are kept in a small bounded cache: parsing an
 * address and its network costs far more than the rest of a first-seen match.
 */
function networkOf(widths: NonNullable<FirstSeenSpec['network']>): (value: unknown) => string | undefined {
  const cache = new Map<string, string | null>();
  return (value) => {
    if (typeof value !== 'string') return undefined;
    if (value.length > CACHED_VALUE_LENGTH) return computeNetwork(value, widths);
    const cached = cache.get(value);
    if (cached !== undefined) return cached ?? undefined;
    const network = computeNetwork(value, widths);
    if (cache.size >= NETWORK_CACHE_LIMIT) cache.clear();
    cache.set(value, network ?? null);
    return network;
  };
}

function computeNetwork(value: string, widths: NonNullable<FirstSeenSpec['network']>): string | undefined {
  const range = parseEventAddress(value);
  if (range === undefined) return undefined;
  const wanted = range.kind === 'ipv4' ? (widths.ipv4 ?? 32) : (widths.ipv6 ?? 128);
  const prefix = Math.min(wanted, range.prefix);
  const network =
    range.address instanceof ipaddr.IPv4
      ? ipaddr.IPv4.networkAddressFromCIDR(`${range.address.toString()}/${prefix}`)
      : ipaddr.IPv6.networkAddressFromCIDR(`${range.address.toString()}/${prefix}`);
  return `${network.toString()}/${prefix}`;
}
