import { UsageError } from './errors.js';

/** What a file of JSON holds: one document, or JSON Lines with each value's line number. */
export type JsonEntries =
  | { readonly kind: 'document'; readonly value: unknown }
  | {
      readonly kind: 'lines';
      readonly values: ReadonlyArray<{ readonly line: number; readonly value: unknown }>;
    };

/**
 * Reads text that is one JSON document, or else JSON Lines (blank lines skipped). A line that is not
 * JSON is a usage error whose message `lineError` writes from the line number and the parser's reason.
 *
 * @throws {UsageError} when a line of a JSON Lines text is not JSON.
 * @example
 * ```ts
 * parseJsonEntries('{"a":1}\n{"a":2}\n', (line, reason) => `alerts.jsonl line ${line}: ${reason}`);
 * // { kind: 'lines', values: [{ line: 1, value: { a: 1 } }, { line: 2, value: { a: 2 } }] }
 * ```
 */
export function parseJsonEntries(
  text: string,
  lineError: (line: number, reason: string) => string,
): JsonEntries {
  const trimmed = text.trim();
  try {
    return { kind: 'document', value: trimmed === '' ? [] : (JSON.parse(trimmed) as unknown) };
  } catch {
    const values: Array<{ line: number; value: unknown }> = [];
    trimmed.split('\n').forEach((line, index) => {
      if (line.trim() === '') return;
      try {
        values.push({ line: index + 1, value: JSON.parse(line) as unknown });
      } catch (error) {
        throw new UsageError(lineError(index + 1, error instanceof Error ? error.message : String(error)));
      }
    });
    return { kind: 'lines', values };
  }
}
