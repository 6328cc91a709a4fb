/**
 * Renders rows as an aligned plain-text table: the first `leftColumns` columns (text) left-aligned,
 * the others (figures) right-aligned, two spaces between columns.
 *
 * @example
 * ```ts
 * renderTable(['client', 'calls/s'], [['ours', '2,310']]);
 * ```
 */
export function renderTable(
  header: readonly string[],
  rows: readonly (readonly string[])[],
  leftColumns = 1,
): string {
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => (row[column] ?? '').length)),
  );
  const line = (cells: readonly string[]): string =>
    cells
      .map((cell, column) =>
        column < leftColumns ? cell.padEnd(widths[column] ?? 0) : cell.padStart(widths[column] ?? 0),
      )
      .join('  ')
      .trimEnd();
  return `${[header, ...rows].map(line).join('\n')}\n`;
}

/**
 * The median of a list of numbers (the mean of the middle two for an even count); 0 for an empty list.
 *
 * @example
 * ```ts
 * median([3, 1, 2]); // 2
 * ```
 */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] ?? 0)
    : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}
