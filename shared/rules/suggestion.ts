/**
 * The candidate closest to a misspelt word, for "did you mean" hints: the fewest single-character
 * edits (insert, delete, replace, swap two neighbours), at most about a third of the word's length;
 * `undefined` when nothing is that close. Ties go to the candidate listed first.
 *
 * @example
 * ```ts
 * closestMatch('usernmae', ['username', 'userId']); // 'username'
 * closestMatch('zzz', ['username']); // undefined
 * ```
 */
export function closestMatch(word: string, candidates: Iterable<string>): string | undefined {
  const limit = Math.max(1, Math.min(6, Math.floor(word.length / 3)));
  let best: string | undefined;
  let bestDistance = limit + 1;
  const lowered = word.toLowerCase();
  for (const candidate of candidates) {
    if (candidate === word || Math.abs(candidate.length - word.length) >= bestDistance) continue;
    // A difference of case alone counts as one edit, so `userName` finds `username`.
    const distance = candidate.toLowerCase() === lowered ? 1 : editDistance(word, candidate, bestDistance);
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

/**
 * Optimal string alignment distance (insert, delete, replace, swap two neighbours), giving up
 * (returning `bound`) once it cannot be below `bound`. Case-sensitive: lower-case both for hints
 * that ignore case.
 *
 * @example
 * ```ts
 * editDistance('usernmae', 'username'); // 1
 * ```
 */
export function editDistance(a: string, b: string, bound = Number.POSITIVE_INFINITY): number {
  let before: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    let rowMinimum = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let value = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        value = Math.min(value, (before[j - 2] ?? 0) + 1);
      }
      current[j] = value;
      rowMinimum = Math.min(rowMinimum, value);
    }
    if (rowMinimum >= bound) return bound;
    before = previous;
    previous = current;
  }
  return previous[b.length] ?? 0;
}
