/**
 * A small seeded pseudo-random generator (mulberry32): the same seed gives the same sequence on every
 * machine, which is what makes fault plans and generated events reproducible. Not for secrets.
 *
 * @example
 * ```ts
 * const next = createPrng(42);
 * next(); // a number in [0, 1), always the same first value for seed 42
 * ```
 */
export function createPrng(seed: number): () => number {
  let state = seed >>> 0;
  return (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}
