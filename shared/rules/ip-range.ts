import ipaddr from 'ipaddr.js';

type Address = ipaddr.IPv4 | ipaddr.IPv6;

/**
 * An IP range: a CIDR block, or a bare address read as a /32 (IPv4) or /128 (IPv6). So `0.0.0.0` is
 * the single unspecified address, while `0.0.0.0/0` is the whole IPv4 internet. IPv4-mapped IPv6
 * (`::ffff:10.0.0.1`) is read as the IPv4 range it maps.
 */
export interface IpRange {
  readonly kind: 'ipv4' | 'ipv6';
  readonly address: Address;
  readonly prefix: number;
}

const PREFIX_PATTERN = /^\d{1,3}$/;

/**
 * Parses a CIDR block or a bare IP address; `undefined` when the text is neither. IPv4 must be written
 * as four decimal parts (`10.0.0.1`, not `10.1` or `0x0a000001`).
 *
 * @example
 * ```ts
 * parseIpRange('10.0.0.0/8'); // { kind: 'ipv4', prefix: 8, ... }
 * parseIpRange('203.0.113.7'); // { kind: 'ipv4', prefix: 32, ... }
 * parseIpRange('nope'); // undefined
 * ```
 */
export function parseIpRange(text: string): IpRange | undefined {
  const trimmed = text.trim();
  const slash = trimmed.lastIndexOf('/');
  const addressText = slash === -1 ? trimmed : trimmed.slice(0, slash);
  const prefixText = slash === -1 ? undefined : trimmed.slice(slash + 1);
  if (prefixText !== undefined && !PREFIX_PATTERN.test(prefixText)) return undefined;
  let address: Address;
  if (ipaddr.IPv4.isValidFourPartDecimal(addressText)) address = ipaddr.IPv4.parse(addressText);
  else if (ipaddr.IPv6.isValid(addressText) && !addressText.includes('%'))
    address = ipaddr.IPv6.parse(addressText);
  else return undefined;
  const width = address.kind() === 'ipv4' ? 32 : 128;
  const prefix = prefixText === undefined ? width : Number(prefixText);
  if (prefix > width) return undefined;
  if (address instanceof ipaddr.IPv6 && address.isIPv4MappedAddress() && prefix >= 96) {
    return { kind: 'ipv4', address: address.toIPv4Address(), prefix: prefix - 96 };
  }
  return { kind: address.kind(), address, prefix };
}

/**
 * Whether every address of `inner` lies inside `outer`.
 *
 * @example
 * ```ts
 * rangeWithin(parseIpRange('10.1.0.0/16')!, parseIpRange('10.0.0.0/8')!); // true
 * ```
 */
export function rangeWithin(inner: IpRange, outer: IpRange): boolean {
  return (
    inner.kind === outer.kind &&
    inner.prefix >= outer.prefix &&
    inner.address.match(outer.address, outer.prefix)
  );
}

/**
 * Ranges whose addresses are not globally reachable, from the IANA special-purpose address registries
 * (IPv4 and IPv6, "Globally Reachable: False"), plus multicast. `::ffff:0:0/96` is absent: mapped
 * addresses are read as IPv4 before this list is consulted.
 */
const NON_PUBLIC_RANGES: readonly IpRange[] = [
  '0.0.0.0/8',
  '10.0.0.0/8',
  '100.64.0.0/10',
  '127.0.0.0/8',
  '169.254.0.0/16',
  '172.16.0.0/12',
  '192.0.0.0/24',
  '192.0.2.0/24',
  '192.168.0.0/16',
  '198.18.0.0/15',
  '198.51.100.0/24',
  '203.0.113.0/24',
  '224.0.0.0/4',
  '240.0.0.0/4',
  '::/128',
  '::1/128',
  '64:ff9b:1::/48',
  '100::/64',
  '2001::/23',
  '2001:db8::/32',
  'fc00::/7',
  'fe80::/10',
  'ff00::/8',
].map((text) => parseIpRange(text) as IpRange);

/**
 * Whether a range holds at least one publicly routable address: `0.0.0.0/0`, `8.8.8.8` and
 * `10.0.0.0/7` (which reaches into 11.0.0.0/8) do; `10.0.0.0/8`, `192.168.1.0/24`, `0.0.0.0` do not.
 *
 * @example
 * ```ts
 * isPublicRange(parseIpRange('0.0.0.0/0')!); // true
 * ```
 */
export function isPublicRange(range: IpRange): boolean {
  return !NON_PUBLIC_RANGES.some((nonPublic) => rangeWithin(range, nonPublic));
}

const CACHE_LIMIT = 4096;
const cache = new Map<string, IpRange | null>();

/**
 * `parseIpRange` for values read from events: the same few entries (`0.0.0.0/0`, an office range)
 * come back again and again, so results are kept in a small bounded cache.
 *
 * @example
 * ```ts
 * const range = parseIpRangeCached(event.whitelistEntry);
 * ```
 */
export function parseIpRangeCached(value: unknown): IpRange | undefined {
  if (typeof value !== 'string' || value.length > 64) return undefined;
  const cached = cache.get(value);
  if (cached !== undefined) return cached ?? undefined;
  const parsed = parseIpRange(value);
  if (cache.size >= CACHE_LIMIT) cache.clear();
  cache.set(value, parsed ?? null);
  return parsed;
}
