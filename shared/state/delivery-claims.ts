/**
 * Claims on deliveries that must be acted on once: an Atlas webhook push, whose replays (a sender's
 * retry, or a captured request sent again) must not each wake a poll. A port with the two state
 * stores as its implementations, which pass the same contract tests; separate from `StateStore`,
 * since only the push receiver needs it and its role may touch nothing else of the table.
 *
 * Each claim is one item (DynamoDB: partition key `PUSH#<key>`) that lives for `holdMs`: while it
 * lives, a second claim of the same key is refused; once it expires (by the store's own clock, not
 * DynamoDB's late TTL deletion) the key can be claimed again.
 */
export interface DeliveryClaimStore {
  /**
   * Claims `key` for `holdMs`, unless a live claim holds it.
   *
   * @returns the claim, or `undefined` when the key is already claimed (a replay).
   * @throws StateStoreRequestError when the store cannot be reached.
   */
  claimDelivery(options: ClaimDeliveryOptions): Promise<DeliveryClaim | undefined>;

  /**
   * Drops a claim whose delivery could not be acted on (the poll could not be queued), so the
   * sender's retry is taken rather than refused as a replay. Does nothing when the claim is no
   * longer the caller's.
   *
   * @throws StateStoreRequestError when the store cannot be reached.
   */
  releaseDelivery(claim: DeliveryClaim): Promise<void>;
}

export interface ClaimDeliveryOptions {
  /** What identifies the delivery: for a push, its connection, alert id, event and update time. */
  key: string;
  /** How long the claim refuses a second delivery of the same key, in milliseconds. */
  holdMs: number;
}

/** A held claim on a delivery. */
export interface DeliveryClaim {
  readonly key: string;
  /** Unique to this claim. */
  readonly token: string;
  /** When the claim lapses, in milliseconds since the epoch, on the store's clock (rounded up to a second). */
  readonly expiresAt: number;
}
