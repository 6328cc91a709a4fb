import * as z from 'zod';
import { StateItemCorruptError } from './errors.js';
import type { AlertClaimResult } from './state-store.js';

/**
 * What a route's digests keep between ticks: the pending entries of each (route, period) and the
 * claim that sends the period's digest once. A port with the two state stores as its implementations,
 * which pass the same contract tests.
 *
 * The life of one digest: ticks append entries to the period the clock is in, in the step that
 * settles their alerts ({@link appendDigestEntries}); once the period has ended, a tick claims it
 * ({@link claimDigest}), reads its entries, publishes, and marks it sent ({@link markDigestSent}), which
 * drops the entries. A claim taken closes the period: an append that finds it claimed is refused and
 * goes to the next period, so no entry lands in a digest already read. A failed publish releases the
 * claim ({@link releaseDigestClaim}) and keeps the entries for the next tick.
 */
export interface DigestStore {
  /**
   * Adds entries to the digest of `route` for `period`, each once by its fingerprint (appending the
   * same alert again replaces its entry), unless that digest is already claimed or sent.
   *
   * @returns the entries not appended because the digest was claimed: append them to the next period.
   * @throws StateStoreRequestError when the store cannot be reached.
   */
  appendDigestEntries(options: AppendDigestEntriesOptions): Promise<DigestEntry[]>;

  /**
   * The periods of `route` that hold pending entries (not yet sent), oldest first.
   *
   * @throws StateStoreRequestError when the store cannot be reached.
   */
  listDigestPeriods(options: { route: string }): Promise<string[]>;

  /**
   * Claims the digest of (route, period) before publishing it, as alerts are claimed: a new claim,
   * or the takeover of an expired one; `sent` when it was sent, `in-progress` while another worker holds it.
   */
  claimDigest(options: ClaimDigestOptions): Promise<DigestClaimResult>;

  /**
   * The pending entries of (route, period), oldest first (by time, then fingerprint), and what was wrong
   * with each stored entry that is not one this program wrote: such an entry is left out, never holds
   * the digest back, and goes with the others when the digest is marked sent.
   *
   * @throws StateStoreRequestError when the store cannot be reached.
   */
  readDigestEntries(options: DigestPeriodOptions): Promise<DigestEntries>;

  /**
   * Records that the digest was published and drops its entries. Any worker that published may
   * record it: SENT is a fact, not a lock.
   */
  markDigestSent(options: DigestClaimOptions): Promise<void>;

  /** Drops a claim whose publish failed, keeping the entries; does nothing when the claim is no longer the caller's. */
  releaseDigestClaim(options: DigestClaimOptions): Promise<void>;
}

/** The longest text a digest entry keeps of one value, in characters. */
export const MAX_DIGEST_TEXT = 256;

const text = z.string().max(MAX_DIGEST_TEXT * 4);

/** The facts of one alert a digest renders: what the entry holds, nothing more. */
export const digestEntrySchema = z.strictObject({
  /** The alert's fingerprint: one entry per alert. */
  fingerprint: z.string().min(1).max(2_048),
  ruleId: text,
  /** The rule's name, as the alert carried it. */
  ruleName: text,
  severity: z.enum(['info', 'low', 'medium', 'high', 'critical']),
  /** When the alert was raised, in milliseconds since the epoch. */
  raisedAt: z.number(),
  /** The alert's title. */
  title: text,
  orgId: text.optional(),
  groupId: text.optional(),
  /** The project's name, when the poller knew it. */
  projectName: text.optional(),
  /** Who acted, as the event named them. */
  actor: text.optional(),
  /** The Atlas activity feed of the alert's project or organization. */
  link: z.string().max(2_048).optional(),
  /** Occurrences of the alert's group that were suppressed before it (see `Alert.rollUp`). */
  rollUp: z
    .strictObject({ suppressed: z.number().int().min(1), first: z.number(), last: z.number() })
    .optional(),
});

export type DigestEntry = z.output<typeof digestEntrySchema>;

export interface DigestPeriodOptions {
  /** The route's name. */
  route: string;
  /** The period's id (see `digestPeriodAt`): `daily:2026-11-28`, `hourly:2026-11-28T13`. */
  period: string;
}

export interface AppendDigestEntriesOptions extends DigestPeriodOptions {
  entries: readonly DigestEntry[];
}

export interface ClaimDigestOptions extends DigestPeriodOptions {
  /** How long the claim holds before another worker may take it over: longer than a publish takes. */
  claimMs: number;
}

/** A held claim on the digest of (route, period). */
export interface DigestClaim {
  readonly route: string;
  readonly period: string;
  /** Unique to this claim. */
  readonly token: string;
  /** When the claim lapses, in milliseconds since the epoch. */
  readonly expiresAt: number;
}

export interface DigestClaimOptions {
  claim: DigestClaim;
}

/** The outcome of {@link DigestStore.claimDigest}: as for alerts, with a digest claim. */
export type DigestClaimResult =
  | { readonly outcome: 'claimed'; readonly claim: DigestClaim; readonly tookOver: boolean }
  | Exclude<AlertClaimResult, { outcome: 'claimed' }>;

/**
 * An entry's facts cut to what the store keeps: each text to {@link MAX_DIGEST_TEXT} characters.
 *
 * @example
 * ```ts
 * boundDigestEntry({ ...entry, actor: 'x'.repeat(1_000) }).actor?.length; // 256
 * ```
 */
export function boundDigestEntry(entry: DigestEntry): DigestEntry {
  const cut = (value: string): string =>
    value.length <= MAX_DIGEST_TEXT ? value : `${value.slice(0, MAX_DIGEST_TEXT - 1)}…`;
  const out: DigestEntry = {
    ...entry,
    ruleId: cut(entry.ruleId),
    ruleName: cut(entry.ruleName),
    title: cut(entry.title),
  };
  for (const key of ['orgId', 'groupId', 'projectName', 'actor'] as const) {
    const value = entry[key];
    if (value !== undefined) out[key] = cut(value);
  }
  return out;
}

/** Entries oldest first, by time then fingerprint: the order every store reads them in. */
export function compareDigestEntries(a: DigestEntry, b: DigestEntry): number {
  return (
    a.raisedAt - b.raisedAt || (a.fingerprint < b.fingerprint ? -1 : a.fingerprint > b.fingerprint ? 1 : 0)
  );
}

/** A digest's pending entries as read: those that parse, and a problem for each that does not. */
export interface DigestEntries {
  /** The entries, oldest first (by time, then fingerprint). */
  entries: DigestEntry[];
  /** For each stored entry left out, where it is and what is wrong with it; never the entry's text. */
  unreadable: string[];
}

/**
 * Narrows stored entries to {@link DigestEntry}, oldest first, leaving out (and saying why) each that is
 * not an entry this program wrote, so that one bad item cannot hold a route's digest back.
 *
 * @example
 * ```ts
 * readStoredDigestEntries([{ value: JSON.parse(item.entry.S), where: 'DIGEST#security#daily:2026-11-28 E#…' }]);
 * ```
 */
export function readStoredDigestEntries(stored: Iterable<{ value: unknown; where: string }>): DigestEntries {
  const entries: DigestEntry[] = [];
  const unreadable: string[] = [];
  for (const { value, where } of stored) {
    try {
      entries.push(parseDigestEntry(value, where));
    } catch (error) {
      if (!(error instanceof StateItemCorruptError)) throw error;
      unreadable.push(error.message);
    }
  }
  return { entries: entries.sort(compareDigestEntries), unreadable };
}

/**
 * A stored entry narrowed to {@link DigestEntry}.
 *
 * @throws StateItemCorruptError naming `where` when it is not an entry this program wrote.
 *
 * @example
 * ```ts
 * parseDigestEntry(JSON.parse(item.entry.S), 'DIGEST#security#daily:2026-11-28');
 * ```
 */
export function parseDigestEntry(value: unknown, where: string): DigestEntry {
  const parsed = digestEntrySchema.safeParse(value);
  if (parsed.success) return parsed.data;
  throw new StateItemCorruptError(
    `a digest entry in ${where} is not one this program wrote (${parsed.error.issues[0]?.message ?? 'invalid'}): it is left out of the digest`,
  );
}
