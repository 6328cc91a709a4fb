/**
 * Reads the event fields of the API document this project implements (the Public Management API v1.0
 * text in `spec/`): the event table, the tables of the objects it nests (a link, an element of
 * `diffs`) and the element shapes its rows describe in words. A row whose meaning names event types of
 * the document ("Present when `eventTypeName` is `DATA_EXPLORER`") belongs to those types; every other
 * row may appear on any event ("Which fields appear depends on the event type").
 */

/** The event fields of the document. */
export interface SpecEventFields {
  /** The `eventTypeName` values the document shows. */
  readonly eventTypes: readonly string[];
  /** Field paths any event may carry, in rule syntax, sorted. */
  readonly common: readonly string[];
  /** Field paths only the named event types carry. */
  readonly byType: Readonly<Record<string, readonly string[]>>;
}

interface TableRow {
  readonly name: string;
  readonly type: string;
  readonly meaning: string;
}

/** The document does not hold the event table. */
export class SpecEventFieldsError extends Error {
  readonly code = 'SPEC_EVENT_FIELDS_UNREADABLE';
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'SpecEventFieldsError';
  }
}

const EVENT_TABLE_HEADING = /^###\s+Event\b/;
const EVENT_TYPES_LINE = /Values of `eventTypeName` seen:(.*)$/m;
const ELEMENT_TABLE_INTRO = /^Shape of an element of `([A-Za-z0-9_]+)`/;
const OBJECT_TABLE_HEADING = /^###\s+([A-Za-z]+) object\s*$/;

/**
 * Reads the event fields out of the document's text.
 *
 * @throws {SpecEventFieldsError} when the text has no event table or names no event type.
 * @example
 * ```ts
 * const fields = readSpecEventFields(await readFile('../shared/spec/000_954ac6e2b5d2ed21.txt', 'utf8'));
 * fields.byType.DATA_EXPLORER; // ['collection', 'database', 'opType']
 * ```
 */
export function readSpecEventFields(text: string): SpecEventFields {
  const lines = text.split(/\r?\n/);
  const typesLine = EVENT_TYPES_LINE.exec(text)?.[1] ?? '';
  const eventTypes = [...typesLine.matchAll(/`([A-Z][A-Z0-9_]*)`/g)].map((match) => match[1] as string);
  if (eventTypes.length === 0) {
    throw new SpecEventFieldsError(
      'the document names no eventTypeName values ("Values of `eventTypeName` seen:")',
    );
  }
  const known = new Set(eventTypes);
  const eventTableAt = lines.findIndex((line) => EVENT_TABLE_HEADING.test(line));
  if (eventTableAt === -1) throw new SpecEventFieldsError('the document has no "### Event" section');
  const objectTables = new Map<string, TableRow[]>();
  lines.forEach((line, index) => {
    const objectName = OBJECT_TABLE_HEADING.exec(line)?.[1];
    const elementOf = ELEMENT_TABLE_INTRO.exec(line)?.[1];
    if (objectName !== undefined) objectTables.set(objectName.toLowerCase(), tableAfter(lines, index));
    if (elementOf !== undefined) objectTables.set(`element:${elementOf}`, tableAfter(lines, index));
  });

  const common = new Set<string>();
  const byType = new Map<string, Set<string>>();
  const restrictions = new Map<string, readonly string[]>();
  const add = (path: string, types: readonly string[]): void => {
    if (types.length === 0) common.add(path);
    for (const type of types) {
      const set = byType.get(type) ?? new Set<string>();
      set.add(path);
      byType.set(type, set);
    }
  };
  for (const row of tableAfter(lines, eventTableAt)) {
    const types = typesOf(row, known, restrictions);
    restrictions.set(row.name, types);
    for (const path of rowPaths(row, row.name, objectTables)) add(path, types);
  }
  return {
    eventTypes,
    common: [...common].sort(),
    byType: Object.fromEntries(
      [...byType].sort(([a], [b]) => (a < b ? -1 : 1)).map(([type, set]) => [type, [...set].sort()]),
    ),
  };
}

/** The event types a row is restricted to: those its meaning names, or those of the row it refers to. */
function typesOf(
  row: TableRow,
  known: ReadonlySet<string>,
  restrictions: ReadonlyMap<string, readonly string[]>,
): readonly string[] {
  const named = [...row.meaning.matchAll(/`([A-Z][A-Z0-9_]*)`/g)]
    .map((match) => match[1] as string)
    .filter((name) => known.has(name));
  if (named.length > 0) return [...new Set(named)];
  const sameAs = /Same condition as `([A-Za-z0-9_.]+)`/.exec(row.meaning)?.[1];
  return sameAs === undefined ? [] : (restrictions.get(sameAs) ?? []);
}

/** The paths one row declares, with the element and object shapes it leads to. */
function rowPaths(row: TableRow, path: string, objectTables: ReadonlyMap<string, TableRow[]>): string[] {
  const paths = [path];
  const type = row.type.toLowerCase();
  if (type.startsWith('document')) paths.push(`${path}.*`);
  if (!type.startsWith('array')) return paths;
  const element = `${path}[]`;
  paths.push(element);
  const ofObject = /^array of ([a-z]+)$/.exec(type)?.[1];
  const elementTable =
    objectTables.get(`element:${row.name}`) ??
    (ofObject === undefined ? undefined : objectTables.get(ofObject));
  if (elementTable !== undefined) {
    for (const inner of elementTable)
      paths.push(...rowPaths(inner, `${element}.${inner.name}`, objectTables));
  }
  // "Elements have `a` (string) and `b`. `b` is an object with `c` or `d`."
  const sentences = row.meaning.split(/(?<=\.)\s+/);
  for (const sentence of sentences) {
    if (sentence.startsWith('Elements have')) {
      for (const match of sentence.matchAll(/`([A-Za-z0-9_]+)`( \(array)?/g)) {
        paths.push(`${element}.${match[1]}`);
        if (match[2] !== undefined) paths.push(`${element}.${match[1]}[]`);
      }
    }
    const object = /^`([A-Za-z0-9_]+)` is an object with (.*)$/.exec(sentence);
    if (object !== null) {
      for (const match of (object[2] ?? '').matchAll(/`([A-Za-z0-9_]+)`/g)) {
        paths.push(`${element}.${object[1]}.${match[1]}`);
      }
    }
  }
  return paths;
}

/** The rows of the first Markdown table after a line, without its header. */
function tableAfter(lines: readonly string[], from: number): TableRow[] {
  const rows: TableRow[] = [];
  let index = from + 1;
  while (index < lines.length && !(lines[index] ?? '').startsWith('|')) {
    if ((lines[index] ?? '').startsWith('#')) return rows;
    index++;
  }
  for (index += 2; index < lines.length && (lines[index] ?? '').startsWith('|'); index++) {
    const cells = (lines[index] ?? '')
      .split('|')
      .slice(1, -1)
      .map((cell) => cell.trim());
    const [name, type, meaning] = cells;
    if (name === undefined || type === undefined) continue;
    for (const single of name.split(/\s+or\s+/)) {
      if (/^[A-Za-z0-9_.[\]]+$/.test(single)) rows.push({ name: single, type, meaning: meaning ?? '' });
    }
  }
  return rows;
}
