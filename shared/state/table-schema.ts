/**
 * The layout of the state table, for the CDK stack and for {@link createStateTable}: one table, string
 * partition and sort keys, a TTL attribute in epoch seconds. Every kind of item lives in its own
 * partition (`SOURCE#…`, `ALERT#…`, `COUNTER#…`, `INVENTORY#…`), so load spreads evenly.
 *
 * @example
 * ```ts
 * new Table(this, 'State', {
 *   partitionKey: { name: stateTableSchema.partitionKey, type: AttributeType.STRING },
 *   sortKey: { name: stateTableSchema.sortKey, type: AttributeType.STRING },
 *   timeToLiveAttribute: stateTableSchema.timeToLiveAttribute,
 * });
 * ```
 */
export const stateTableSchema = {
  /** String partition key. */
  partitionKey: 'pk',
  /** String sort key. */
  sortKey: 'sk',
  /** Both keys are strings (`S`). */
  keyType: 'S',
  /** TTL attribute, epoch seconds. The store treats expired items as absent itself. */
  timeToLiveAttribute: 'expiresAt',
} as const;
