import { createHash } from 'node:crypto';

/**
 * Names longer than this (in UTF-8 bytes) are hashed before they go into a key: DynamoDB allows 2,048
 * bytes in a partition key, and fingerprints and counter keys carry event values of any length.
 */
const MAX_NAME_BYTES = 1_024;

/** A name as it appears in a key: itself when short, else its SHA-256. */
function keyName(name: string): string {
  if (Buffer.byteLength(name) <= MAX_NAME_BYTES) return name;
  return `sha256:${createHash('sha256').update(name).digest('base64url')}`;
}

/** The partition key prefix of delivery claims: the only items the push receiver may write. */
export const PUSH_KEY_PREFIX = 'PUSH#';

/** The primary key of an item, as plain strings. */
export interface ItemKey {
  pk: string;
  sk: string;
}

/** Keys of the items of the state table. */
export const stateKeys = {
  /** The source's item: lease, watermark, first chunk of seen ids, inventory time. */
  source: (source: string): ItemKey => ({ pk: `SOURCE#${keyName(source)}`, sk: 'CURSOR' }),
  /** Sort-key prefix of one generation of a source's extra seen-id chunks. */
  seenChunkPrefix: (generation: string): string => `CURSOR#SEEN#${generation}#`,
  alert: (fingerprint: string): ItemKey => ({ pk: `ALERT#${keyName(fingerprint)}`, sk: 'ALERT' }),
  /**
   * A claim on a webhook delivery. The push receiver's role may write only items whose partition key
   * starts with {@link PUSH_KEY_PREFIX} (an IAM condition on `dynamodb:LeadingKeys`).
   */
  delivery: (key: string): ItemKey => ({ pk: `${PUSH_KEY_PREFIX}${keyName(key)}`, sk: 'PUSH' }),
  /** One pending entry of the digest of (route, period), by the alert's fingerprint. */
  digestEntry: (route: string, period: string, fingerprint: string): ItemKey => ({
    pk: `DIGEST#${keyName(route)}#${period}`,
    sk: `ENTRY#${keyName(fingerprint)}`,
  }),
  /** Sort-key prefix of the entries of a digest. */
  digestEntryPrefix: 'ENTRY#',
  /** The claim on the digest of (route, period): IN_PROGRESS while it is published, then SENT. */
  digestClaim: (route: string, period: string): ItemKey => ({
    pk: `DIGEST#${keyName(route)}#${period}`,
    sk: 'CLAIM',
  }),
  /** A route's periods with pending entries: the one read a tick makes for a route with nothing due. */
  digestPeriods: (route: string): ItemKey => ({ pk: `DIGESTS#${keyName(route)}`, sk: 'PENDING' }),
  counter: (key: string): ItemKey => ({ pk: `COUNTER#${keyName(key)}`, sk: 'COUNTER' }),
  /** A first-seen rule's values for one group, or its learning start. */
  firstSeen: (key: string): ItemKey => ({ pk: `FIRSTSEEN#${keyName(key)}`, sk: 'FIRSTSEEN' }),
  inventory: (orgId: string): ItemKey => ({ pk: `INVENTORY#${keyName(orgId)}`, sk: 'SNAPSHOT' }),
  /** An organization's or project's name kept for alerts (`org:<id>`, `project:<id>`). */
  name: (key: string): ItemKey => ({ pk: `NAME#${keyName(key)}`, sk: 'NAME' }),
  /** Sort-key prefix of one generation of an inventory snapshot's extra chunks. */
  inventoryChunkPrefix: (generation: string): string => `SNAPSHOT#${generation}#`,
} as const;
