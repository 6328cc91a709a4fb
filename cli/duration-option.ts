import { InvalidArgumentError } from 'commander';

const DURATION = /^(?:(\d+)d)?(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?$/;
const UNIT_MS = { d: 86_400_000, h: 3_600_000, m: 60_000, s: 1_000 } as const;

/**
 * Parses a duration written as the rule files write them (`30s`, `5m`, `1h30m`, `2d`: days, hours,
 * minutes, seconds, in that order) into milliseconds; `0` alone is zero. Returns `undefined` for
 * anything else.
 *
 * @example
 * ```ts
 * parseDurationText('1h30m'); // 5_400_000
 * parseDurationText('90'); // undefined: a unit is required
 * ```
 */
export function parseDurationText(text: string): number | undefined {
  const trimmed = text.trim();
  if (trimmed === '0') return 0;
  const match = DURATION.exec(trimmed);
  if (match === null || trimmed === '') return undefined;
  const [, days, hours, minutes, seconds] = match;
  return (
    Number(days ?? 0) * UNIT_MS.d +
    Number(hours ?? 0) * UNIT_MS.h +
    Number(minutes ?? 0) * UNIT_MS.m +
    Number(seconds ?? 0) * UNIT_MS.s
  );
}

/** Options of {@link durationArgument}. */
export interface DurationArgumentOptions {
  /** Smallest accepted duration, in milliseconds. Default 0. */
  minMs?: number;
  /** Largest accepted duration, in milliseconds. Default: 366 days. */
  maxMs?: number;
}

/**
 * A commander argument parser for a duration flag: returns milliseconds, or tells commander the value
 * is invalid (exit 2, with the flag named).
 *
 * @example
 * ```ts
 * command.option('--every <duration>', 'poll every DURATION', durationArgument({ minMs: 1_000 }));
 * ```
 */
export function durationArgument(options: DurationArgumentOptions = {}): (value: string) => number {
  const minMs = options.minMs ?? 0;
  const maxMs = options.maxMs ?? 366 * UNIT_MS.d;
  return (value) => {
    const ms = parseDurationText(value);
    if (ms === undefined) {
      throw new InvalidArgumentError('use a duration such as 30s, 5m, 1h or 1h30m.');
    }
    if (ms < minMs || ms > maxMs) {
      throw new InvalidArgumentError(
        `use a duration from ${formatDuration(minMs)} to ${formatDuration(maxMs)}.`,
      );
    }
    return ms;
  };
}

/**
 * Writes milliseconds back as a duration (`1h30m`, `45s`, `0s`), rounding down to the second.
 *
 * @example
 * ```ts
 * formatDuration(5_400_000); // '1h30m'
 * ```
 */
export function formatDuration(ms: number): string {
  let rest = Math.floor(ms / 1000);
  if (rest <= 0) return '0s';
  let text = '';
  for (const [unit, unitMs] of Object.entries(UNIT_MS)) {
    const seconds = unitMs / 1000;
    const count = Math.floor(rest / seconds);
    if (count > 0) {
      text += `${count}${unit}`;
      rest -= count * seconds;
    }
  }
  return text;
}
