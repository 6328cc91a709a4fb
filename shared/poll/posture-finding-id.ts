import { createHash } from 'node:crypto';
import type { InventoryScope } from '../state/inventory-snapshot.js';

/** The longest posture finding id: Security Hub's `Id` and most ticketing keys take it whole. */
export const MAX_POSTURE_FINDING_ID_LENGTH = 256;

/** Hex digits of the hash that ends an id cut to {@link MAX_POSTURE_FINDING_ID_LENGTH}. */
const HASH_HEX_DIGITS = 32;

/** What a posture problem is about: an access-list entry, or a credential's missing access list. */
export type PostureProblemSubject =
  | { kind: 'api-key'; id: string; entry?: string | undefined }
  | { kind: 'service-account'; id: string; entry?: string | undefined }
  | { kind: 'project-entry'; entry: string };

/**
 * The stable id of a posture problem, readable by a person: the scope, the key or service account,
 * then the access-list entry (its normalized CIDR block: a bare address as its /32 or /128) or
 * `owner-without-access-list`:
 *
 * - `org/<orgId>/api-key/<apiKeyId>/access-list/<entry>`
 * - `org/<orgId>/service-account/<clientId>/access-list/<entry>`
 * - `org/<orgId>/api-key/<apiKeyId>/owner-without-access-list` (and the same for a service account)
 * - `project/<groupId>/access-list/<entry>`
 *
 * Each part is percent-encoded (as an RFC 3986 path segment: letters, digits, `-._:@` stay as they
 * are), so a `/` inside an entry or an id never reads as a separator: `0.0.0.0/0` is `0.0.0.0%2F0`,
 * `::/0` is `::%2F0`. The id
 * depends on nothing but the problem, so a problem found again, or found again after it was fixed,
 * has the same id. An id longer than {@link MAX_POSTURE_FINDING_ID_LENGTH} characters (a hostile
 * entry) keeps its head and ends in `~` and a hash of the whole id.
 *
 * @example
 * ```ts
 * postureFindingId({ orgId: '5f…' }, { kind: 'api-key', id: 'abc', entry: '0.0.0.0/0' });
 * // 'org/5f…/api-key/abc/access-list/0.0.0.0%2F0'
 * ```
 */
export function postureFindingId(scope: InventoryScope, subject: PostureProblemSubject): string {
  const parts = scope.groupId === undefined ? ['org', scope.orgId] : ['project', scope.groupId];
  if (subject.kind !== 'project-entry') parts.push(subject.kind, subject.id);
  if (subject.entry === undefined) parts.push('owner-without-access-list');
  else parts.push('access-list', subject.entry);
  return capped(parts.map(encodeSegment).join('/'));
}

/**
 * A path segment: letters, digits, `-._:@` kept, every other UTF-8 byte as `%XX`. `~` is escaped too,
 * so that only a cut id holds one (see {@link capped}): no entry can spell another's cut id.
 */
function encodeSegment(text: string): string {
  return encodeURIComponent(text)
    .replace(/%3A/g, ':')
    .replace(/%40/g, '@')
    .replace(/[!'()*~]/g, (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`);
}

function capped(id: string): string {
  if (id.length <= MAX_POSTURE_FINDING_ID_LENGTH) return id;
  const hash = createHash('sha256').update(id).digest('hex').slice(0, HASH_HEX_DIGITS);
  let head = id.slice(0, MAX_POSTURE_FINDING_ID_LENGTH - HASH_HEX_DIGITS - 1);
  // Never end the head inside a `%XX` escape.
  const percent = head.lastIndexOf('%');
  if (percent !== -1 && percent > head.length - 3) head = head.slice(0, percent);
  return `${head}~${hash}`;
}
