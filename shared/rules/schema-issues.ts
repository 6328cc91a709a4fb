import type * as z from 'zod';
import { KNOWN_KEYS } from './schema.js';
import { editDistance } from './suggestion.js';

type Issue = z.core.$ZodIssue;
type Path = (string | number)[];

/** A schema problem, in words a rule author understands, at a document path. */
export interface SchemaProblem {
  path: Path;
  message: string;
  /** Points at a key rather than at its value. */
  key?: boolean;
}

/**
 * Turns zod issues into messages for rule authors: unknown keys with a "did you mean", missing keys by
 * name, and for unions the branch the author was evidently writing rather than "Invalid input".
 *
 * @example
 * ```ts
 * const result = ruleFileSchema.safeParse(data);
 * if (!result.success) describeSchemaIssues(result.error.issues, data);
 * ```
 */
export function describeSchemaIssues(issues: readonly Issue[], data: unknown): SchemaProblem[] {
  return issues.flatMap((issue) => describeIssue(issue, [], data));
}

function describeIssue(issue: Issue, base: Path, data: unknown): SchemaProblem[] {
  const path = [...base, ...issue.path.map(toSegment)];
  const value = valueAt(data, path);
  const last = path[path.length - 1];
  const expectsValue =
    issue.code === 'invalid_type' || issue.code === 'invalid_value' || issue.code === 'invalid_union';
  if (expectsValue && value === undefined && typeof last === 'string' && !hasKey(data, path)) {
    return [{ path, message: `missing required key "${last}"` }];
  }
  switch (issue.code) {
    case 'unrecognized_keys':
      return issue.keys.map((key) => ({
        path: [...path, key],
        key: true,
        // JSON quoting shows a key holding quotes or control characters as it is, harmlessly.
        message: `unknown key ${JSON.stringify(key)}${suggestion(key)}`,
      }));
    case 'invalid_type':
      return [{ path, message: `expected ${article(issue.expected)}, found ${describeValue(value)}` }];
    case 'invalid_value':
      return [
        {
          path,
          message: `${JSON.stringify(value)} is not allowed here: use one of ${issue.values.map((option) => JSON.stringify(option)).join(', ')}`,
        },
      ];
    case 'invalid_format':
      return [{ path, message: `${JSON.stringify(value)}: ${issue.message}` }];
    case 'too_small':
      return [{ path, message: describeBound(issue.origin, 'least', issue.minimum) }];
    case 'too_big':
      return [{ path, message: describeBound(issue.origin, 'most', issue.maximum) }];
    case 'invalid_key':
      return [
        {
          path,
          key: true,
          message: `invalid name "${String(path[path.length - 1])}": ${issue.issues.map((inner) => inner.message).join('; ')}`,
        },
      ];
    case 'invalid_union':
      return describeUnion(issue, path, data, value);
    default:
      return [{ path, message: issue.message }];
  }
}

/**
 * A union fails with the issues of every branch. The branch to report is one whose shape the value
 * has (a branch that failed only because the value is of another type is not what the author meant);
 * when none fits, the message lists what would have been accepted.
 */
function describeUnion(
  issue: z.core.$ZodIssueInvalidUnion,
  path: Path,
  data: unknown,
  value: unknown,
): SchemaProblem[] {
  const fitting = issue.errors.filter((branch) => !rejectsType(branch));
  if (fitting.length > 0) {
    const best = fitting.reduce((a, b) => (b.length < a.length ? b : a));
    return best.flatMap((inner) => describeIssue(inner, path, data));
  }
  const expected = [...new Set(issue.errors.flatMap((branch) => expectedTypes(branch)))];
  return [{ path, message: `expected ${listTypes(expected)}, found ${describeValue(value)}` }];
}

/** Whether a branch's issues say only that the value at the branch's root has the wrong type. */
function rejectsType(branch: readonly Issue[]): boolean {
  return branch.every(
    (inner) =>
      inner.path.length === 0 &&
      (inner.code === 'invalid_type' || (inner.code === 'invalid_union' && inner.errors.every(rejectsType))),
  );
}

function expectedTypes(branch: readonly Issue[]): string[] {
  return branch.flatMap((inner) => {
    if (inner.code === 'invalid_type') return [inner.expected === 'record' ? 'object' : inner.expected];
    if (inner.code === 'invalid_union') return inner.errors.flatMap(expectedTypes);
    return [];
  });
}

function listTypes(types: readonly string[]): string {
  const described = types.map(article);
  if (described.length <= 1) return described[0] ?? 'another value';
  return `${described.slice(0, -1).join(', ')} or ${described[described.length - 1]}`;
}

function article(type: string): string {
  const names: Record<string, string> = {
    string: 'a string',
    number: 'a number',
    int: 'an integer',
    boolean: 'true or false',
    null: 'null',
    array: 'a list',
    object: 'a mapping (key: value)',
    record: 'a mapping (key: value)',
  };
  return names[type] ?? type;
}

function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  if (typeof value === 'string')
    return `the string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}...` : value)}`;
  return `${typeof value === 'number' ? 'the number' : 'the value'} ${String(value)}`;
}

function describeBound(origin: string, side: 'least' | 'most', bound: number | bigint): string {
  if (origin === 'array') return `needs at ${side} ${bound} item${bound === 1 ? '' : 's'}`;
  if (origin === 'string')
    return side === 'least' && bound === 1 ? 'cannot be empty' : `needs at ${side} ${bound} characters`;
  return `must be at ${side} ${bound}`;
}

function suggestion(key: string): string {
  let best: string | undefined;
  let bestDistance = key.length <= 4 ? 1 : 2;
  for (const known of KNOWN_KEYS) {
    const distance = editDistance(key.toLowerCase(), known);
    if (distance <= bestDistance && distance > 0) {
      best = known;
      bestDistance = distance;
    }
  }
  return best === undefined ? '' : ` (did you mean "${best}"?)`;
}

function toSegment(key: PropertyKey): string | number {
  return typeof key === 'number' ? key : String(key);
}

/** Whether the object holding the last path segment has that key (even with an undefined value). */
function hasKey(data: unknown, path: Path): boolean {
  const parent = valueAt(data, path.slice(0, -1));
  const last = path[path.length - 1];
  return typeof parent === 'object' && parent !== null && last !== undefined && Object.hasOwn(parent, last);
}

function valueAt(data: unknown, path: Path): unknown {
  let value = data;
  for (const segment of path) {
    if (typeof value !== 'object' || value === null || !Object.hasOwn(value, segment)) return undefined;
    value = (value as Record<string | number, unknown>)[segment];
  }
  return value;
}
