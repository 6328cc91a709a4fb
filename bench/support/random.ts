/** A seeded pseudo-random source, so that benchmark inputs are the same on every run. */
export interface Random {
  /** A float in [0, 1). */
  next(): number;
  /** An integer in [0, bound). */
  int(bound: number): number;
  /** One element of a non-empty list. */
  pick<T>(items: readonly T[]): T;
}

/**
 * A small, fast seeded generator (mulberry32): good enough to spread benchmark inputs, not for secrets.
 *
 * @example
 * ```ts
 * const random = createRandom(42);
 * random.pick(['a', 'b']);
 * ```
 */
export function createRandom(seed: number): Random {
  let state = seed >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (bound) => Math.floor(next() * bound),
    pick: <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T,
  };
}
