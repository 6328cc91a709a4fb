import { InvalidArgumentError } from 'commander';
import { toInstant } from '../shared/atlas/event-filter.js';
import { formatDuration, parseDurationText } from './duration-option.js';

/** A `--since` value: a duration back from now, or an instant. */
export type SinceValue = { kind: 'ago'; ms: number } | { kind: 'at'; time: number };

/** The longest duration `--since` takes: Atlas keeps events for a limited time anyway. */
const MAX_AGO_MS = 366 * 86_400_000;

/**
 * Parses a `--since` flag that takes either a duration back from now (`7d`, `12h`, `1d12h`, as rule
 * files write durations) or an ISO-8601 date or instant with a time zone (`2024-05-01`,
 * `2024-05-01T12:00:00Z`). For commander: an unreadable value exits 2 with the flag named.
 *
 * @example
 * ```ts
 * parseSince('7d'); // { kind: 'ago', ms: 604_800_000 }
 * parseSince('2024-05-01T00:00:00Z'); // { kind: 'at', time: 1_714_521_600_000 }
 * ```
 */
export function parseSince(value: string): SinceValue {
  const ms = parseDurationText(value);
  if (ms !== undefined) {
    if (ms <= 0 || ms > MAX_AGO_MS) {
      throw new InvalidArgumentError(`use a duration from 1s to ${formatDuration(MAX_AGO_MS)}.`);
    }
    return { kind: 'ago', ms };
  }
  try {
    return { kind: 'at', time: toInstant('--since', value) };
  } catch {
    throw new InvalidArgumentError(
      'use a duration back from now (7d, 12h, 1d12h) or an ISO-8601 date or instant (2024-05-01, 2024-05-01T12:00:00Z).',
    );
  }
}

/**
 * The instant a `--since` value names, `now` being the end of the read.
 *
 * @example
 * ```ts
 * sinceInstant({ kind: 'ago', ms: 3_600_000 }, Date.parse('2024-05-01T12:00:00Z')); // 2024-05-01T11:00:00Z
 * ```
 */
export function sinceInstant(value: SinceValue, now: number): number {
  return value.kind === 'ago' ? now - value.ms : value.time;
}
