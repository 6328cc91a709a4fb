/**
 * Expiry as both stores keep it: in whole epoch seconds, the unit of DynamoDB's TTL attribute, so an
 * item is absent at the same moment in the file store as in DynamoDB.
 */

/** Milliseconds in a day. */
export const DAY_MS = 86_400_000;

/**
 * The TTL value (epoch seconds) for an item that must live until `ms`: rounded up, never early.
 *
 * @example
 * ```ts
 * ttlSeconds(1_500); // 2
 * ```
 */
export function ttlSeconds(ms: number): number {
  return Math.ceil(ms / 1000);
}

/**
 * `now` (milliseconds) as the epoch second an expiry is compared with: an item is expired when its
 * `expiresAt` is at or before this.
 *
 * @example
 * ```ts
 * nowSeconds(1_999); // 1
 * ```
 */
export function nowSeconds(now: number): number {
  return Math.floor(now / 1000);
}

/**
 * Whether an item whose TTL is `expiresAtSeconds` counts as absent at `now` (milliseconds).
 *
 * @example
 * ```ts
 * isExpired(2, 1_999); // false
 * isExpired(2, 2_000); // true
 * ```
 */
export function isExpired(expiresAtSeconds: number | undefined, now: number): boolean {
  return expiresAtSeconds !== undefined && expiresAtSeconds <= nowSeconds(now);
}

/**
 * The TTL value (epoch seconds) of a first-seen record that holds values until `expiresAt` on the
 * engine's clock: at least a day from `wallNow` too, so a backfill over old events keeps what it just
 * wrote. `undefined` (no TTL) for a record that never expires (a rule's learning start).
 *
 * @example
 * ```ts
 * firstSeenTtlSeconds(Number.MAX_SAFE_INTEGER, 0); // undefined
 * firstSeenTtlSeconds(0, 0); // 86400
 * ```
 */
export function firstSeenTtlSeconds(expiresAt: number, wallNow: number): number | undefined {
  if (expiresAt >= Number.MAX_SAFE_INTEGER) return undefined;
  return ttlSeconds(Math.max(expiresAt, wallNow + DAY_MS));
}
