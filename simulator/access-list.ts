import ipaddr from 'ipaddr.js';
import type { AccessListRecord, Principal } from './simulator-data.js';

/**
 * The caller's address as the access list sees it: IPv4-mapped IPv6 addresses (`::ffff:127.0.0.1`)
 * become plain IPv4. Returns `undefined` for an address that does not parse.
 *
 * @example
 * ```ts
 * clientAddress('::ffff:127.0.0.1')?.toString(); // '127.0.0.1'
 * ```
 */
export function clientAddress(
  remoteAddress: string | undefined,
): ReturnType<typeof ipaddr.process> | undefined {
  if (remoteAddress === undefined || !ipaddr.isValid(remoteAddress)) return undefined;
  return ipaddr.process(remoteAddress);
}

/**
 * The first access-list entry of a principal that covers the address, if any.
 *
 * @example
 * ```ts
 * findAccessListEntry(principal, clientAddress('127.0.0.1'));
 * ```
 */
export function findAccessListEntry(
  principal: Principal,
  address: ReturnType<typeof ipaddr.process> | undefined,
): AccessListRecord | undefined {
  if (address === undefined) return undefined;
  return principal.accessList.find(
    (entry) => entry.range[0].kind() === address.kind() && address.match(entry.range),
  );
}
