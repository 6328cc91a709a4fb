import { sliceCodePoints, wellFormed } from '../text-cleaning.js';
import { jsonStringBytes } from './byte-size.js';

/**
 * Pretty-printed JSON of untrusted data that fits a byte budget. Values are cut before serialising
 * (long strings shortened, arrays and objects thinned, deep nesting summarised), tighter and tighter
 * until the text fits, so the result is always valid JSON: serialised text is never cut.
 */

/** How hard one pass cuts. */
interface Limits {
  depth: number;
  stringLength: number;
  items: number;
}

/** The uncut pass: it only guards against depth and cycles. */
const UNCUT: Limits = { depth: 32, stringLength: Number.POSITIVE_INFINITY, items: Number.POSITIVE_INFINITY };

/** Shares of the budget one string may keep before the fixed passes: a single huge value keeps most. */
const BUDGET_SHARES = [0.9, 0.45, 0.2];

/** From gentle to drastic, after the uncut pass and the budget-sized ones. */
const FIXED_PASSES: readonly Limits[] = [
  { depth: 32, stringLength: 16_384, items: 500 },
  { depth: 16, stringLength: 4_096, items: 200 },
  { depth: 12, stringLength: 1_024, items: 100 },
  { depth: 8, stringLength: 256, items: 50 },
  { depth: 6, stringLength: 128, items: 20 },
  { depth: 4, stringLength: 64, items: 10 },
  { depth: 3, stringLength: 32, items: 5 },
  { depth: 2, stringLength: 16, items: 3 },
];

/** The key that says how many fields of an object were left out. */
export const TRUNCATED_KEY = '[truncated]';

export interface BoundedJsonOptions {
  /** The most the text may cost, as measured by `measure`. */
  maxBytes: number;
  /** What the text costs; default: its bytes inside a JSON string (it travels inside the SNS message). */
  measure?: (text: string) => number;
}

export interface BoundedJson {
  /** Pretty-printed JSON (two-space indent), or `''` when not even a summary of the value fits. */
  text: string;
  /** Whether anything of the value was left out. */
  truncated: boolean;
}

/**
 * Pretty-prints `value` as JSON within `maxBytes`, cutting values (never the serialised text) as much as
 * needed. When no cut fits, returns a one-field object saying how large the value was, or `''` when even
 * that does not fit. Never throws: cycles, BigInts and hostile nesting are summarised as strings.
 *
 * @example
 * ```ts
 * boundedPrettyJson({ username: 'x'.repeat(300_000) }, { maxBytes: 20_000 }).truncated; // true
 * ```
 */
export function boundedPrettyJson(value: unknown, options: BoundedJsonOptions): BoundedJson {
  const measure = options.measure ?? jsonStringBytes;
  let fullSize: number | undefined;
  for (const limits of passes(value, options.maxBytes)) {
    const state = { truncated: false };
    const text = escapeInvisible(
      JSON.stringify(prune(value, limits, 0, new Set(), state), null, 2) ?? 'null',
    );
    const size = measure(text);
    if (limits === UNCUT) fullSize = size;
    if (size <= options.maxBytes) return { text, truncated: state.truncated };
  }
  const summary = JSON.stringify(
    {
      [TRUNCATED_KEY]: `the raw value (${fullSize === undefined ? 'far too large' : `${fullSize} bytes`}) does not fit this message`,
    },
    null,
    2,
  );
  return { text: measure(summary) <= options.maxBytes ? summary : '', truncated: true };
}

/**
 * Characters `JSON.stringify` leaves as they are that a reader cannot see but that change what they
 * see: C1 controls, and the marks and overrides that reorder text (a user name with U+202E displays
 * reversed). JSON syntax holds none of them, so in serialised text they sit inside strings.
 */
const INVISIBLE = /[\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/** Writes those characters as `\uXXXX` escapes: the same JSON value, shown harmlessly. */
function escapeInvisible(text: string): string {
  return text.replace(INVISIBLE, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** The passes to try for a budget, gentlest first. */
function passes(value: unknown, maxBytes: number): Limits[] {
  // Each character of a string costs at least a byte, so a value whose strings alone are over budget
  // skips the uncut pass: serialising a megabyte only to find it too large is the slow part.
  const uncut = stringsExceed(value, maxBytes) ? [] : [UNCUT];
  const first = FIXED_PASSES[0] as Limits;
  const sized = BUDGET_SHARES.map((share) => Math.floor(maxBytes * share))
    .filter((length) => length > first.stringLength)
    .map((stringLength) => ({ ...first, stringLength }));
  return [...uncut, ...sized, ...FIXED_PASSES];
}

/**
 * Whether the strings and keys inside `value` are longer, together, than `limit` characters: each
 * character costs at least a byte in JSON, so such a value cannot be serialised whole within `limit`
 * bytes. Looks at no more than 100,000 values (and answers `false` past them). Never throws.
 *
 * @example
 * ```ts
 * stringsExceed({ username: 'x'.repeat(300) }, 256); // true
 * ```
 */
export function stringsExceed(value: unknown, limit: number): boolean {
  let total = 0;
  let visited = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0 && visited++ < 100_000) {
    const item = stack.pop();
    if (typeof item === 'string') total += item.length;
    else if (Array.isArray(item)) for (const child of item) stack.push(child);
    else if (typeof item === 'object' && item !== null) {
      for (const [key, child] of Object.entries(item)) {
        total += key.length;
        stack.push(child);
      }
    }
    if (total > limit) return true;
  }
  return false;
}

function prune(
  value: unknown,
  limits: Limits,
  depth: number,
  ancestors: Set<object>,
  state: { truncated: boolean },
): unknown {
  if (typeof value === 'string') return pruneString(value, limits, state);
  if (typeof value === 'bigint') return value.toString();
  if (typeof value !== 'object' || value === null) return value;
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value.toISOString();
  if (ancestors.has(value)) {
    state.truncated = true;
    return '[circular reference]';
  }
  if (depth >= limits.depth) {
    state.truncated = true;
    return `[${Array.isArray(value) ? 'array' : 'object'} nested deeper than ${limits.depth} levels]`;
  }
  ancestors.add(value);
  try {
    if (Array.isArray(value)) {
      const kept = value
        .slice(0, limits.items)
        .map((item) => prune(item, limits, depth + 1, ancestors, state));
      if (value.length > limits.items) {
        state.truncated = true;
        kept.push(`[${value.length - limits.items} more items]`);
      }
      return kept;
    }
    const out: Record<string, unknown> = {};
    let count = 0;
    let total = 0;
    for (const key in value) {
      if (!Object.hasOwn(value, key)) continue;
      total++;
      if (count >= limits.items) continue;
      count++;
      const prunedKey = pruneString(key, limits, state);
      out[prunedKey] = prune((value as Record<string, unknown>)[key], limits, depth + 1, ancestors, state);
    }
    if (total > count) {
      state.truncated = true;
      out[TRUNCATED_KEY] = `${total - count} more fields`;
    }
    return out;
  } finally {
    ancestors.delete(value);
  }
}

function pruneString(text: string, limits: Limits, state: { truncated: boolean }): string {
  if (text.length <= limits.stringLength) return wellFormed(text);
  state.truncated = true;
  return `${wellFormed(sliceCodePoints(text, limits.stringLength))}... [${text.length} characters in all]`;
}
