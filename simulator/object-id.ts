import { createPrng } from './prng.js';

/** Makes 24-hex ids shaped like MongoDB ObjectIds. */
export interface ObjectIdGenerator {
  /** An id whose first 4 bytes are the seconds of `timeMs`, as Atlas ids are. */
  next(timeMs: number): string;
}

/**
 * Creates an ObjectId generator: 4 bytes of seconds, 5 bytes fixed per generator, a 3-byte counter.
 * The same seed and the same calls give the same ids, so generated data is reproducible; ids stay
 * unique for 16.7 million calls.
 *
 * @example
 * ```ts
 * const ids = createObjectIdGenerator({ seed: 7 });
 * ids.next(Date.parse('2026-01-01T00:00:00Z')); // '69559380' + 16 more hex digits
 * ```
 */
export function createObjectIdGenerator(options: { seed: number }): ObjectIdGenerator {
  const random = createPrng(options.seed);
  const machine = Array.from({ length: 5 }, () =>
    Math.floor(random() * 256)
      .toString(16)
      .padStart(2, '0'),
  ).join('');
  let counter = Math.floor(random() * 0x10_00_00);
  return {
    next(timeMs: number): string {
      const seconds = Math.max(0, Math.floor(timeMs / 1000)) % 0x1_00_00_00_00;
      counter = (counter + 1) % 0x1_00_00_00;
      return `${seconds.toString(16).padStart(8, '0')}${machine}${counter.toString(16).padStart(6, '0')}`;
    },
  };
}
