import { editDistance } from './suggestion.js';

/**
 * The known name closest to a misspelt one, for "did you mean" hints: within two edits (one for
 * names of four characters or fewer), or `undefined` when none is that close.
 *
 * @example
 * ```ts
 * closestName('admin-key-created', ['api-key-created', 'project-deleted']); // 'api-key-created'
 * ```
 */
export function closestName(name: string, known: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestDistance = name.length <= 4 ? 1 : Math.max(2, Math.floor(name.length / 5));
  for (const candidate of known) {
    const distance = editDistance(name.toLowerCase(), candidate.toLowerCase());
    if (distance > 0 && distance <= bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

/**
 * ` (did you mean "x"?)` for the closest known name, or an empty string.
 *
 * @example
 * ```ts
 * `no rule "${id}"${didYouMean(id, ids)}`;
 * ```
 */
export function didYouMean(name: string, known: Iterable<string>): string {
  const best = closestName(name, known);
  return best === undefined ? '' : ` (did you mean "${best}"?)`;
}
