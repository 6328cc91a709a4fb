import { readFile } from 'node:fs/promises';
import type { AtlasEvent } from '../shared/atlas/types.js';
import { UsageError } from './errors.js';
import { parseJsonEntries } from './json-entries.js';

/** Warnings named one by one; the rest are counted in one line. */
const WARNINGS_NAMED = 10;

/** The events of a file, and a warning for each entry no rule can read (the first ten, then a count). */
export interface EventsFile {
  events: AtlasEvent[];
  warnings: string[];
}

/**
 * Reads the events `rules eval` and `rules replay` take with `--events`: JSON Lines, a JSON array of
 * events, an Atlas events page (`{"results": [...]}`) or a single event object, from a file or from
 * stdin (`-`). Entries that are not objects are skipped with a warning; events without an
 * `eventTypeName` are kept, with a warning that only rules naming no event type can match them. The
 * first ten such entries are named; the others are counted in one last warning.
 *
 * @throws UsageError when the file cannot be read, or a line of JSON Lines is not JSON (naming the
 *   line).
 * @example
 * ```ts
 * const { events, warnings } = await readEventsFile('events.jsonl');
 * ```
 */
export async function readEventsFile(file: string): Promise<EventsFile> {
  const source = file === '-' ? 'stdin' : file;
  return parseEvents(await readEventsText(file), source);
}

async function readEventsText(file: string): Promise<string> {
  try {
    if (file === '-') {
      const chunks: Buffer[] = [];
      for await (const chunk of process.stdin) chunks.push(Buffer.from(chunk as Uint8Array));
      return Buffer.concat(chunks).toString('utf8');
    }
    return await readFile(file, 'utf8');
  } catch (error) {
    throw new UsageError(`cannot read the events file ${file}: ${readFailure(error)}`, { cause: error });
  }
}

function readFailure(error: unknown): string {
  switch ((error as { code?: unknown }).code) {
    case 'ENOENT':
      return 'no such file';
    case 'EISDIR':
      return 'it is a directory; give a file of events';
    case 'EACCES':
      return 'permission denied';
    default:
      return error instanceof Error ? error.message : String(error);
  }
}

function parseEvents(text: string, file: string): EventsFile {
  const parsed = parseJsonEntries(
    text,
    (line, reason) =>
      `${file} line ${line} is not JSON (${reason}): give JSON Lines, a JSON array or an Atlas events page`,
  );
  const entries =
    parsed.kind === 'lines'
      ? parsed.values.map(({ value }) => value)
      : Array.isArray(parsed.value)
        ? parsed.value
        : hasResults(parsed.value)
          ? parsed.value.results
          : [parsed.value];
  const events: AtlasEvent[] = [];
  const warnings: string[] = [];
  // A file of a million bad entries must not print a million lines: the first few are named.
  const unnamed = { notObjects: 0, untyped: 0 };
  const warn = (kind: keyof typeof unnamed, text: () => string): void => {
    if (warnings.length < WARNINGS_NAMED) warnings.push(text());
    else unnamed[kind] += 1;
  };
  entries.forEach((entry, index) => {
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
      warn('notObjects', () => `${file} entry ${index + 1} is not an object: skipped`);
      return;
    }
    const event = entry as AtlasEvent;
    if (typeof event.eventTypeName !== 'string') {
      warn('untyped', () => {
        const lowerCased = Object.keys(event).some((key) => key !== key.toLowerCase())
          ? ''
          : ' and its keys are all lower case (Atlas spells them camelCase, such as eventTypeName)';
        return `${file} entry ${index + 1} (id ${String(event.id ?? 'none')}) has no eventTypeName${lowerCased}: only rules that name no event type can match it`;
      });
    }
    events.push(event);
  });
  if (unnamed.notObjects + unnamed.untyped > 0) {
    const parts = [
      ...(unnamed.notObjects === 0 ? [] : [`${moreEntries(unnamed.notObjects)} not an object (skipped)`]),
      ...(unnamed.untyped === 0 ? [] : [`${moreEntries(unnamed.untyped)} without an eventTypeName`]),
    ];
    warnings.push(`${file} has ${parts.join(' and ')} besides the ${WARNINGS_NAMED} named above`);
  }
  return { events, warnings };
}

function moreEntries(value: number): string {
  return `${value.toLocaleString('en-US')} more ${value === 1 ? 'entry' : 'entries'}`;
}

function hasResults(value: unknown): value is { results: unknown[] } {
  return (
    typeof value === 'object' && value !== null && Array.isArray((value as { results?: unknown }).results)
  );
}
