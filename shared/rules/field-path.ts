/**
 * Field paths name a value inside an event: `username`, `currentValue.number`, `raw._t`, and, across
 * arrays, `diffs[].type` or `rolesAdded[].roleName`. A condition on a path that crosses an array holds
 * when any element satisfies it.
 */

const SEGMENT_PATTERN = /^[A-Za-z0-9_$@-]+$/;

/** Names that would reach into JavaScript's object machinery instead of event data. */
const FORBIDDEN_SEGMENTS = new Set(['__proto__', 'prototype', 'constructor']);

export interface FieldPathSegment {
  readonly key: string;
  /** `[]` after the key: visit each element of the array found there. */
  readonly spread: boolean;
}

/** A parsed field path. */
export interface FieldPath {
  readonly text: string;
  readonly segments: readonly FieldPathSegment[];
}

/** Tests one value reached by a path. */
export type ValueTest = (value: unknown) => boolean;

/** A field path compiled for fast reads. */
export interface PathReader {
  readonly path: FieldPath;
  /** Whether the path crosses an array (`[]`), and so may reach several values. */
  readonly spread: boolean;
  /** The value a path without `[]` reaches (`undefined` when missing); the first value otherwise. */
  first(root: unknown): unknown;
  /**
   * Whether `test` holds for a value the path reaches. A path with no `[]` calls `test` exactly once,
   * with `undefined` when the field is missing; a path with `[]` calls it once per element reached and
   * not at all when the array is missing or empty.
   */
  some(root: unknown, test: ValueTest): boolean;
  /** Every value the path reaches that is neither `undefined` nor `null`, in document order. */
  values(root: unknown): unknown[];
}

/**
 * Parses a field path, or explains what is wrong with it.
 *
 * @example
 * ```ts
 * parseFieldPath('diffs[].type'); // { ok: true, path: { text: 'diffs[].type', segments: [...] } }
 * parseFieldPath('user name'); // { ok: false, message: 'segment "user name" ...' }
 * ```
 */
export function parseFieldPath(text: string): { ok: true; path: FieldPath } | { ok: false; message: string } {
  if (text.trim() === '') return { ok: false, message: 'a field path cannot be empty' };
  const segments: FieldPathSegment[] = [];
  for (const raw of text.split('.')) {
    const spread = raw.endsWith('[]');
    const key = spread ? raw.slice(0, -2) : raw;
    if (!SEGMENT_PATTERN.test(key)) {
      return {
        ok: false,
        message: `"${text}" is not a field path: segment "${raw}" must be letters, digits, "_", "$", "@" or "-", optionally followed by "[]" (write paths like "diffs[].type")`,
      };
    }
    if (FORBIDDEN_SEGMENTS.has(key)) {
      return { ok: false, message: `"${text}" is not a field path: "${key}" cannot be used as a field name` };
    }
    segments.push({ key, spread });
  }
  return { ok: true, path: { text, segments } };
}

/**
 * Compiles a parsed path into a reader. Only own data is read: an inherited method such as `toString`
 * is never taken for a field.
 *
 * @example
 * ```ts
 * const reader = compileFieldPath(path);
 * reader.some(event, (value) => value === 'USERS');
 * ```
 */
export function compileFieldPath(path: FieldPath): PathReader {
  const segments = path.segments;
  const hasSpread = segments.some((segment) => segment.spread);
  if (!hasSpread) {
    const keys = segments.map((segment) => segment.key);
    const get = compileGetter(keys);
    return {
      path,
      spread: false,
      first: get,
      some: (root, test) => test(get(root)),
      values: (root) => {
        const value = get(root);
        return value === undefined || value === null ? [] : [value];
      },
    };
  }
  return {
    path,
    spread: true,
    first: (root) => {
      let found: unknown;
      someFrom(root, 0, segments, (value) => {
        found = value;
        return value !== undefined && value !== null;
      });
      return found;
    },
    some: (root, test) => someFrom(root, 0, segments, test),
    values: (root) => {
      const found: unknown[] = [];
      someFrom(root, 0, segments, (value) => {
        if (value !== undefined && value !== null) found.push(value);
        return false;
      });
      return found;
    },
  };
}

function read(value: unknown, key: string): unknown {
  if (typeof value !== 'object' || value === null) return undefined;
  const found = (value as Record<string, unknown>)[key];
  // Event data is JSON: a function can only be an inherited method such as `toString`.
  return typeof found === 'function' ? undefined : found;
}

function compileGetter(keys: readonly string[]): (root: unknown) => unknown {
  // Nearly every path has one to three keys, and rules read them for every event: those get a getter
  // without a loop. Each case reads only the keys its path has.
  const [first, second, third] = keys as readonly [string, string, string];
  switch (keys.length) {
    case 1:
      return (root) => read(root, first);
    case 2:
      return (root) => read(read(root, first), second);
    case 3:
      return (root) => read(read(read(root, first), second), third);
    default:
      return (root) => {
        let value = root;
        for (const key of keys) value = read(value, key);
        return value;
      };
  }
}

function someFrom(
  start: unknown,
  from: number,
  segments: readonly FieldPathSegment[],
  test: ValueTest,
): boolean {
  let value = start;
  for (let index = from; index < segments.length; index++) {
    const segment = segments[index] as FieldPathSegment;
    value = read(value, segment.key);
    if (!segment.spread) continue;
    if (Array.isArray(value)) {
      for (const element of value) {
        if (someFrom(element, index + 1, segments, test)) return true;
      }
      return false;
    }
    // A single object where an array was expected is visited as a one-element array.
    if (value === undefined || value === null) return false;
  }
  return test(value);
}

/**
 * The readers of a rule's `group_by` paths, those that parse: an invalid path is the rule
 * compiler's to report, once.
 *
 * @example
 * ```ts
 * groupReaders(['groupId', 'username']).length; // 2
 * ```
 */
export function groupReaders(groupBy: readonly string[]): PathReader[] {
  return groupBy.flatMap((text): PathReader[] => {
    const path = parseFieldPath(text);
    return path.ok ? [compileFieldPath(path.path)] : [];
  });
}
