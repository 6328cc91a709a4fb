/**
 * A noun as a count of it reads: `entry` for 1, `entries` for 2 (a consonant and `y` become `ies`),
 * `events` for 0. Nouns of several words take the plural on the last one.
 *
 * @example
 * ```ts
 * nounFor(1, 'event'); // 'event'
 * nounFor(2, 'entry'); // 'entries'
 * ```
 */
export function nounFor(count: number, noun: string): string {
  if (count === 1) return noun;
  return /[^aeiou]y$/.test(noun) ? `${noun.slice(0, -1)}ies` : `${noun}s`;
}

/**
 * A count and its noun: `1 entry`, `2 entries`, `0 rules`.
 *
 * @example
 * ```ts
 * counted(2, 'inline test'); // '2 inline tests'
 * ```
 */
export function counted(count: number, noun: string): string {
  return `${count} ${nounFor(count, noun)}`;
}
