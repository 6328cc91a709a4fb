import type { AtlasEvent } from '../atlas/types.js';
import type { RuleProblemCode } from './errors.js';
import { compileFieldPath, type PathReader, parseFieldPath, type ValueTest } from './field-path.js';
import { type IpRange, isPublicRange, parseIpRange, parseIpRangeCached, rangeWithin } from './ip-range.js';
import { compileRuleRegex } from './rule-regex.js';
import type { FieldConditionSpec, ListRef, MatchSpec, OperatorsSpec, ScalarValue } from './schema.js';
import { compileOutsideHours, isKnownTimeZone, parseTimeOfDay } from './working-hours.js';

/** A compiled match: whether an event satisfies it. */
export type Predicate = (event: AtlasEvent) => boolean;

/** A problem found while compiling, at a path relative to what was compiled. */
export interface CompileProblem {
  code: RuleProblemCode;
  path: (string | number)[];
  message: string;
  /** Points at the key of the last path element rather than at its value. */
  key?: boolean;
  /** A text to point at inside the node, such as a template placeholder. */
  needle?: string;
}

/** What compiling needs besides the spec: the named lists, and where to report problems. */
export interface CompileContext {
  readonly lists: ReadonlyMap<string, readonly ScalarValue[]>;
  readonly problems: CompileProblem[];
}

type Path = (string | number)[];

/** The keys of a match that are not field paths. */
export const MATCH_KEYWORDS: ReadonlySet<string> = new Set(['any', 'all', 'not', 'list_empty']);
const TEXT_OPERATORS = ['equals', 'in', 'not_in', 'regex', 'starts_with', 'ends_with', 'contains'] as const;

const never: Predicate = () => false;

/**
 * Compiles a `match` into one predicate. Problems (bad paths, regexes, CIDRs, time zones, unknown
 * lists) go to `context.problems` with their path under `path`; the predicate returned is then only
 * good for finding further problems.
 *
 * @example
 * ```ts
 * const context = { lists: new Map(), problems: [] };
 * const matches = compileMatch({ eventTypeName: 'GROUP_DELETED' }, ['match'], context);
 * matches({ eventTypeName: 'GROUP_DELETED' }); // true
 * ```
 */
export function compileMatch(spec: MatchSpec, path: Path, context: CompileContext): Predicate {
  const entries = Object.entries(spec).filter(([, value]) => value !== undefined);
  if (entries.length === 0) {
    context.problems.push({
      code: 'INVALID_CONDITION',
      path,
      message: 'a match needs at least one condition (an empty match would hold for every event)',
    });
    return never;
  }
  const predicates: Predicate[] = [];
  for (const [key, value] of entries) {
    if (key === 'any' || key === 'all') {
      const branches = (value as MatchSpec[]).map((branch, index) =>
        compileMatch(branch, [...path, key, index], context),
      );
      predicates.push(key === 'any' ? anyOf(branches) : allOf(branches));
    } else if (key === 'not') {
      const inner = compileMatch(value as MatchSpec, [...path, key], context);
      predicates.push((event) => !inner(event));
    } else if (key === 'list_empty') {
      // Known when the pack is built: a rule that waits for a list costs nothing once the list is set.
      const values = namedList(value as string, [...path, key], context);
      const empty = values !== undefined && values.length === 0;
      predicates.push(() => empty);
    } else {
      predicates.push(compileFieldCondition(key, value as FieldConditionSpec, [...path, key], context));
    }
  }
  return allOf(predicates);
}

/**
 * The event types a match can hold for, read from `eventTypeName` conditions that every matching
 * event must meet (`equals`, a list, `in`, possibly under `all`, or under every branch of `any`);
 * `undefined` when the match may hold for any event type. The engine indexes rules by it.
 *
 * @example
 * ```ts
 * requiredEventTypes({ eventTypeName: ['A', 'B'], username: 'x' }, new Map()); // Set { 'A', 'B' }
 * ```
 */
export function requiredEventTypes(
  spec: MatchSpec,
  lists: ReadonlyMap<string, readonly ScalarValue[]>,
): ReadonlySet<string> | undefined {
  let required: Set<string> | undefined;
  const narrow = (types: ReadonlySet<string> | undefined): void => {
    if (types === undefined) return;
    required =
      required === undefined ? new Set(types) : new Set([...required].filter((type) => types.has(type)));
  };
  narrow(eventTypesOfCondition(spec.eventTypeName as FieldConditionSpec | undefined, lists));
  for (const branch of spec.all ?? []) narrow(requiredEventTypes(branch, lists));
  if (spec.any !== undefined) {
    const union = new Set<string>();
    let bounded = true;
    for (const branch of spec.any) {
      const types = requiredEventTypes(branch, lists);
      if (types === undefined) bounded = false;
      else for (const type of types) union.add(type);
    }
    if (bounded) narrow(union);
  }
  return required;
}

/**
 * A top-level field that every event matching `spec` has (not undefined, not null), if there is one:
 * the first field of the top-level conditions that tests its value. The engine skips a rule without
 * calling it when the event lacks that field.
 *
 * @example
 * ```ts
 * anchorField({ eventTypeName: 'A', 'currentValue.number': { gt: 5 } }); // 'eventTypeName'
 * anchorField({ username: { exists: false } }); // undefined
 * ```
 */
export function anchorField(spec: MatchSpec, skip?: string): string | undefined {
  for (const [path, condition] of Object.entries(spec)) {
    if (path === skip || MATCH_KEYWORDS.has(path) || condition === undefined) continue;
    if (!requiresValue(condition as FieldConditionSpec)) continue;
    const parsed = parseFieldPath(path);
    if (parsed.ok) return parsed.path.segments[0]?.key;
  }
  return undefined;
}

/**
 * Whether a field condition holds only for a present, non-null value (so an event lacking the field
 * never matches it).
 *
 * @example
 * ```ts
 * requiresValue({ exists: true }); // true
 * requiresValue({ not_in: ['a'] }); // false
 * ```
 */
export function requiresValue(condition: FieldConditionSpec): boolean {
  if (condition === null) return false;
  if (Array.isArray(condition)) return condition.length > 0 && !condition.includes(null);
  if (typeof condition !== 'object') return true;
  const valueOperators: (keyof OperatorsSpec)[] = [
    'in',
    'regex',
    'starts_with',
    'ends_with',
    'contains',
    'gt',
    'gte',
    'lt',
    'lte',
    'cidr_in',
    'cidr_at_least_as_wide_as',
    'cidr_public',
    'cidr_valid',
    'outside_hours',
    'email_domain_in',
    'email_domain_same_as',
  ];
  if (condition.exists === true) return true;
  if (condition.equals !== undefined && condition.equals !== null) return true;
  return valueOperators.some(
    (operator) =>
      condition[operator] !== undefined &&
      !(operator === 'in' && Array.isArray(condition.in) && condition.in.includes(null)),
  );
}

/**
 * Whether a top-level `eventTypeName` condition is nothing but a set of names (a name, a list, or
 * `equals` / `in` alone, case-sensitive): then an event the engine's index hands to the rule meets it
 * already, and the rule need not test it again.
 *
 * @example
 * ```ts
 * isPlainEventTypeSet(['A', 'B']); // true
 * isPlainEventTypeSet({ in: ['A'], ignore_case: true }); // false
 * ```
 */
export function isPlainEventTypeSet(condition: unknown): boolean {
  if (typeof condition === 'string') return true;
  if (Array.isArray(condition)) return condition.every((value) => typeof value === 'string');
  if (typeof condition !== 'object' || condition === null) return false;
  const keys = Object.keys(condition).filter(
    (key) => (condition as Record<string, unknown>)[key] !== undefined,
  );
  return keys.length === 1 && (keys[0] === 'equals' || keys[0] === 'in');
}

function eventTypesOfCondition(
  condition: FieldConditionSpec | undefined,
  lists: ReadonlyMap<string, readonly ScalarValue[]>,
): ReadonlySet<string> | undefined {
  if (typeof condition === 'string') return new Set([condition]);
  if (Array.isArray(condition)) return stringSet(condition);
  if (typeof condition !== 'object' || condition === null || condition.ignore_case === true) return undefined;
  if (typeof condition.equals === 'string') return new Set([condition.equals]);
  const values = isListRef(condition.in) ? lists.get(condition.in.list) : condition.in;
  return values === undefined ? undefined : stringSet(values);
}

function stringSet(values: readonly ScalarValue[]): ReadonlySet<string> | undefined {
  return values.every((value) => typeof value === 'string') ? new Set(values as string[]) : undefined;
}

function compileFieldCondition(
  pathText: string,
  condition: FieldConditionSpec,
  path: Path,
  context: CompileContext,
): Predicate {
  const parsed = parseFieldPath(pathText);
  if (!parsed.ok) {
    context.problems.push({ code: 'INVALID_FIELD_PATH', path, key: true, message: parsed.message });
    return never;
  }
  const reader = compileFieldPath(parsed.path);
  if (Array.isArray(condition)) return compileOperators(reader, { in: condition }, path, context);
  if (condition === null || typeof condition !== 'object') {
    return compileOperators(reader, { equals: condition }, path, context);
  }
  return compileOperators(reader, condition, path, context);
}

/**
 * Operators on one field. Most test one value at a time and must all hold for the same value (the
 * same array element, for a path with `[]`); `exists`, `not_in`, `not` and `email_domain_same_as`
 * look at the field as a whole.
 */
function compileOperators(
  reader: PathReader,
  spec: OperatorsSpec,
  path: Path,
  context: CompileContext,
): Predicate {
  const at = (operator: string): Path => [...path, operator];
  const ignoreCase = spec.ignore_case === true;
  const valueTests: ValueTest[] = [];
  const wholeTests: Predicate[] = [];

  if (spec.equals !== undefined) valueTests.push(equalsTest(spec.equals, ignoreCase));
  const inValues = resolveList(spec.in, at('in'), context);
  if (inValues !== undefined) valueTests.push(inTest(inValues, ignoreCase));
  const notInValues = resolveList(spec.not_in, at('not_in'), context);
  if (notInValues !== undefined) {
    const test = inTest(notInValues, ignoreCase);
    wholeTests.push((event) => !reader.some(event, test));
  }
  if (spec.regex !== undefined) {
    const compiled = compileRuleRegex(spec.regex, ignoreCase);
    if (compiled.ok) {
      // Linear time on the whole value, however long: no cut that `ends_with` would not make.
      const test = compiled.test;
      valueTests.push((value) => typeof value === 'string' && test(value));
    } else {
      context.problems.push({
        code: compiled.code,
        path: at('regex'),
        message: compiled.message,
      });
    }
  }
  for (const operator of ['starts_with', 'ends_with', 'contains'] as const) {
    const operand = spec[operator];
    const texts = resolveStrings(
      typeof operand === 'string' ? [operand] : operand,
      at(operator),
      operator,
      context,
    );
    if (texts !== undefined) valueTests.push(textTest(operator, texts, ignoreCase));
  }
  if (spec.exists !== undefined) {
    const wanted = spec.exists;
    wholeTests.push((event) => reader.some(event, isPresent) === wanted);
  }
  if (spec.gt !== undefined) valueTests.push(numberTest(spec.gt, (value, bound) => value > bound));
  if (spec.gte !== undefined) valueTests.push(numberTest(spec.gte, (value, bound) => value >= bound));
  if (spec.lt !== undefined) valueTests.push(numberTest(spec.lt, (value, bound) => value < bound));
  if (spec.lte !== undefined) valueTests.push(numberTest(spec.lte, (value, bound) => value <= bound));
  const ranges = resolveRanges(spec.cidr_in, at('cidr_in'), context);
  if (ranges !== undefined) {
    valueTests.push((value) => {
      const range = parseIpRangeCached(value);
      return range !== undefined && ranges.some((outer) => rangeWithin(range, outer));
    });
  }
  if (spec.cidr_at_least_as_wide_as !== undefined) {
    const { ipv4, ipv6 } = spec.cidr_at_least_as_wide_as;
    if (ipv4 === undefined && ipv6 === undefined) {
      context.problems.push({
        code: 'INVALID_CONDITION',
        path: at('cidr_at_least_as_wide_as'),
        message:
          'cidr_at_least_as_wide_as needs a prefix length for ipv4, ipv6 or both, such as {ipv4: 16, ipv6: 48}',
      });
    }
    valueTests.push((value) => {
      const range = parseIpRangeCached(value);
      if (range === undefined) return false;
      const limit = range.kind === 'ipv4' ? ipv4 : ipv6;
      return limit !== undefined && range.prefix <= limit;
    });
  }
  if (spec.cidr_public !== undefined) {
    const wanted = spec.cidr_public;
    valueTests.push((value) => {
      const range = parseIpRangeCached(value);
      return range !== undefined && isPublicRange(range) === wanted;
    });
  }
  if (spec.cidr_valid !== undefined) {
    const wanted = spec.cidr_valid;
    valueTests.push((value) => {
      if (value === undefined || value === null) return false;
      if (typeof value !== 'string') return !wanted;
      // Read as parseIpRange reads it (trimmed), so padding neither hides an address nor makes one.
      const text = value.trim();
      return text !== '' && (parseIpRangeCached(text) !== undefined) === wanted;
    });
  }
  if (spec.outside_hours !== undefined) {
    const test = compileHours(spec.outside_hours, at('outside_hours'), context);
    if (test !== undefined) valueTests.push(test);
  }
  const domains = resolveStrings(spec.email_domain_in, at('email_domain_in'), 'email_domain_in', context);
  if (domains !== undefined) {
    const wanted = new Set(domains.map((domain) => domain.toLowerCase().replace(/^@/, '')));
    valueTests.push((value) => {
      const domain = emailDomain(value);
      return domain !== undefined && wanted.has(domain);
    });
  }
  if (spec.email_domain_same_as !== undefined) {
    const other = parseFieldPath(spec.email_domain_same_as);
    if (other.ok) {
      const otherReader = compileFieldPath(other.path);
      wholeTests.push((event) =>
        reader.some(event, (value) => {
          const domain = emailDomain(value);
          return (
            domain !== undefined &&
            otherReader.some(event, (otherValue) => emailDomain(otherValue) === domain)
          );
        }),
      );
    } else {
      context.problems.push({
        code: 'INVALID_FIELD_PATH',
        path: at('email_domain_same_as'),
        message: other.message,
      });
    }
  }
  if (spec.not !== undefined) {
    const inner = compileOperators(reader, spec.not, [...path, 'not'], context);
    wholeTests.push((event) => !inner(event));
  }

  const operators = Object.keys(spec).filter(
    (key) => key !== 'ignore_case' && spec[key as keyof OperatorsSpec] !== undefined,
  );
  if (operators.length === 0) {
    context.problems.push({
      code: 'INVALID_CONDITION',
      path,
      message:
        spec.ignore_case === undefined
          ? 'a field condition needs at least one operator, such as equals, in, regex or exists'
          : `ignore_case changes ${TEXT_OPERATORS.join(', ')}; add one of them`,
    });
    return never;
  }
  // An operator that failed to compile has been reported; the predicate is then never used.
  if (valueTests.length === 0 && wholeTests.length === 0) return never;
  const valueTest = valueTests.length === 0 ? undefined : allOf(valueTests);
  if (valueTest === undefined) return allOf(wholeTests);
  const get = reader.first;
  const onValues: Predicate = reader.spread
    ? (event) => reader.some(event, valueTest)
    : (event) => valueTest(get(event));
  return allOf([onValues, ...wholeTests]);
}

function equalsTest(expected: ScalarValue, ignoreCase: boolean): ValueTest {
  if (ignoreCase && typeof expected === 'string') {
    const lower = expected.toLowerCase();
    return (value) => typeof value === 'string' && value.toLowerCase() === lower;
  }
  return (value) => value === expected;
}

function inTest(values: readonly ScalarValue[], ignoreCase: boolean): ValueTest {
  if (ignoreCase) {
    const lowered = new Set(values.map((value) => (typeof value === 'string' ? value.toLowerCase() : value)));
    return (value) => lowered.has(typeof value === 'string' ? value.toLowerCase() : (value as ScalarValue));
  }
  const set = new Set<unknown>(values);
  return (value) => set.has(value);
}

function textTest(
  operator: 'starts_with' | 'ends_with' | 'contains',
  texts: readonly string[],
  ignoreCase: boolean,
): ValueTest {
  const wanted = ignoreCase ? texts.map((text) => text.toLowerCase()) : [...texts];
  const holds =
    operator === 'starts_with'
      ? (value: string, text: string) => value.startsWith(text)
      : operator === 'ends_with'
        ? (value: string, text: string) => value.endsWith(text)
        : (value: string, text: string) => value.includes(text);
  return (value) => {
    if (typeof value !== 'string') return false;
    const subject = ignoreCase ? value.toLowerCase() : value;
    for (const text of wanted) if (holds(subject, text)) return true;
    return false;
  };
}

function numberTest(bound: number, holds: (value: number, bound: number) => boolean): ValueTest {
  return (value) => typeof value === 'number' && holds(value, bound);
}

function isPresent(value: unknown): boolean {
  return value !== undefined && value !== null;
}

/** The domain after the last `@` of an address, lower-cased; `undefined` when there is none. */
function emailDomain(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const at = value.lastIndexOf('@');
  if (at === -1 || at === value.length - 1) return undefined;
  return value.slice(at + 1).toLowerCase();
}

function compileHours(
  spec: NonNullable<OperatorsSpec['outside_hours']>,
  path: Path,
  context: CompileContext,
): ValueTest | undefined {
  let valid = true;
  for (const side of ['start', 'end'] as const) {
    if (parseTimeOfDay(spec[side]) === undefined) {
      valid = false;
      context.problems.push({
        code: 'INVALID_HOURS',
        path: [...path, side],
        message: `"${spec[side]}" is not a time of day: write HH:MM from 00:00 to 24:00, such as 08:30`,
      });
    }
  }
  if (valid && spec.start === spec.end) {
    valid = false;
    context.problems.push({
      code: 'INVALID_HOURS',
      path: [...path, 'end'],
      message: `working hours ${spec.start}-${spec.end} are empty: end must differ from start`,
    });
  }
  if (!isKnownTimeZone(spec.time_zone)) {
    valid = false;
    context.problems.push({
      code: 'INVALID_TIME_ZONE',
      path: [...path, 'time_zone'],
      message: `"${spec.time_zone}" is not an IANA time zone this runtime knows: write one such as Europe/Paris, America/New_York or UTC`,
    });
  }
  return valid ? compileOutsideHours(spec) : undefined;
}

/** Whether an operand the schema let through (a list of values, `{list: name}`, or none) names a list. */
function isListRef(value: readonly ScalarValue[] | ListRef | undefined): value is ListRef {
  return typeof value === 'object' && !Array.isArray(value);
}

/** The values of an operand, a named list read; `undefined` when there is no operand or no such list. */
function resolveList(
  values: readonly ScalarValue[] | ListRef | undefined,
  path: Path,
  context: CompileContext,
): readonly ScalarValue[] | undefined {
  if (!isListRef(values)) return values;
  return namedList(values.list, [...path, 'list'], context);
}

/** The values of the list named `name`; `undefined`, reported at `path`, when there is none. */
function namedList(name: string, path: Path, context: CompileContext): readonly ScalarValue[] | undefined {
  const found = context.lists.get(name);
  if (found === undefined) {
    const known = [...context.lists.keys()].sort();
    context.problems.push({
      code: 'UNKNOWN_LIST',
      path,
      message: `no list is named "${name}"${known.length > 0 ? `; lists defined: ${known.join(', ')}` : ': define it under lists:'}`,
    });
  }
  return found;
}

function resolveStrings(
  values: readonly string[] | ListRef | undefined,
  path: Path,
  operator: string,
  context: CompileContext,
): readonly string[] | undefined {
  const resolved = resolveList(values, path, context);
  if (resolved === undefined) return undefined;
  const wrong = resolved.find((value) => typeof value !== 'string');
  if (wrong !== undefined) {
    context.problems.push({
      code: 'INVALID_LIST_VALUE',
      path: isListRef(values) ? [...path, 'list'] : path,
      message: `${operator} needs strings, but list ${isListRef(values) ? `"${values.list}" ` : ''}holds ${JSON.stringify(wrong)}`,
    });
    return undefined;
  }
  return resolved as readonly string[];
}

function resolveRanges(
  values: readonly string[] | ListRef | undefined,
  path: Path,
  context: CompileContext,
): IpRange[] | undefined {
  const texts = resolveStrings(values, path, 'cidr_in', context);
  if (texts === undefined) return undefined;
  const ranges: IpRange[] = [];
  texts.forEach((text, index) => {
    const range = parseIpRange(text);
    if (range === undefined) {
      context.problems.push({
        code: 'INVALID_CIDR',
        path: isListRef(values) ? [...path, 'list'] : [...path, index],
        message: `"${text}"${isListRef(values) ? ` (in list "${values.list}")` : ''} is not an IP address or CIDR block: write 10.0.0.0/8, 203.0.113.7 or 2001:db8::/32`,
      });
    } else {
      ranges.push(range);
    }
  });
  return ranges.length === texts.length ? ranges : undefined;
}

// Nearly every match has one or two conditions, tested for every event: those skip the loop. Each case
// reads only the entries its list has.

/** A test that holds when every one of `tests` holds: an event's predicates or a value's tests. */
function allOf<T>(tests: readonly ((input: T) => boolean)[]): (input: T) => boolean {
  const [first, second] = tests as readonly [(input: T) => boolean, (input: T) => boolean];
  switch (tests.length) {
    case 1:
      return first;
    case 2:
      return (input) => first(input) && second(input);
    default:
      return (input) => {
        for (const test of tests) if (!test(input)) return false;
        return true;
      };
  }
}

function anyOf(predicates: readonly Predicate[]): Predicate {
  return (event) => {
    for (const predicate of predicates) if (predicate(event)) return true;
    return false;
  };
}
