/** How often a route's digest is sent. */
export const DIGEST_EVERY = ['hourly', 'daily'] as const;

export type DigestEvery = (typeof DIGEST_EVERY)[number];

/** One period of a digest: its id (stable across workers), and when it starts and ends (UTC). */
export interface DigestPeriod {
  /** `daily:2026-11-28` or `hourly:2026-11-28T13`: what the store keys the period's entries by. */
  readonly id: string;
  readonly every: DigestEvery;
  /** Milliseconds since the epoch, inclusive. */
  readonly start: number;
  /** Milliseconds since the epoch, exclusive: the digest is due from then. */
  readonly end: number;
}

const HOUR_MS = 3_600_000;
const LENGTH: Readonly<Record<DigestEvery, number>> = { hourly: HOUR_MS, daily: 24 * HOUR_MS };

/**
 * The period of a digest sent `every` hour or day that holds `time` (UTC hours and days).
 *
 * @example
 * ```ts
 * digestPeriodAt('daily', Date.UTC(2026, 10, 28, 13, 5)).id; // 'daily:2026-11-28'
 * digestPeriodAt('hourly', Date.UTC(2026, 10, 28, 13, 5)).id; // 'hourly:2026-11-28T13'
 * ```
 */
export function digestPeriodAt(every: DigestEvery, time: number): DigestPeriod {
  const length = LENGTH[every];
  const start = Math.floor(time / length) * length;
  const iso = new Date(start).toISOString();
  const id = every === 'daily' ? `daily:${iso.slice(0, 10)}` : `hourly:${iso.slice(0, 13)}`;
  return { id, every, start, end: start + length };
}

const PERIOD_ID = /^(daily):(\d{4}-\d{2}-\d{2})$|^(hourly):(\d{4}-\d{2}-\d{2}T\d{2})$/;

/**
 * A period from its id, or `undefined` when the id is not one {@link digestPeriodAt} makes.
 *
 * @example
 * ```ts
 * parseDigestPeriod('hourly:2026-11-28T13')?.end; // Date.UTC(2026, 10, 28, 14)
 * ```
 */
export function parseDigestPeriod(id: string): DigestPeriod | undefined {
  const match = PERIOD_ID.exec(id);
  if (match === null) return undefined;
  const every = (match[1] ?? match[3]) as DigestEvery;
  const start = Date.parse(every === 'daily' ? `${match[2]}T00:00:00Z` : `${match[4]}:00:00Z`);
  if (Number.isNaN(start)) return undefined;
  const period = digestPeriodAt(every, start);
  return period.id === id ? period : undefined;
}
