/**
 * Runs `task` over `items` with at most `limit` running at once, and resolves with the results in the
 * order of `items`. Tasks are started in order; a task that throws rejects the whole call (the tick's
 * tasks catch their own failures and return an outcome instead).
 *
 * @throws RangeError when `limit` is not a positive integer.
 *
 * @example
 * ```ts
 * const outcomes = await mapWithConcurrency(sources, 4, (source) => pollSource(source));
 * ```
 */
export async function mapWithConcurrency<T, R>(
  items: readonly T[],
  limit: number,
  task: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  if (!Number.isInteger(limit) || limit < 1) {
    throw new RangeError(`concurrency must be a positive integer, got ${limit}`);
  }
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const index = next;
      next += 1;
      results[index] = await task(items[index] as T, index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
