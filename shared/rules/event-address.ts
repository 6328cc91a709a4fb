import { type IpRange, parseIpRangeCached } from './ip-range.js';

/** Longer values are not addresses: `[` + the longest IPv6 text with an IPv4 tail + `]:65535`. */
const MAX_ADDRESS_LENGTH = 64;
const BRACKETED = /^\[([^\]/]+)\](?::\d{1,5})?$/;

/**
 * Reads an address from an event value as a range: an IPv4 or IPv6 address (a /32 or /128), or a
 * CIDR block, also written in brackets as in a URL (`[2001:db8::1]`, `[2001:db8::1]:443`). IPv4-mapped
 * IPv6 (`::ffff:203.0.113.5`) is read as the IPv4 address it maps. `undefined` for anything else.
 *
 * @example
 * ```ts
 * parseEventAddress('[2001:DB8::1]:443'); // { kind: 'ipv6', prefix: 128, ... }
 * parseEventAddress('::ffff:203.0.113.5'); // { kind: 'ipv4', prefix: 32, ... }
 * ```
 */
export function parseEventAddress(value: unknown): IpRange | undefined {
  if (typeof value !== 'string' || value.length > MAX_ADDRESS_LENGTH) return undefined;
  const text = value.trim();
  const bracketed = BRACKETED.exec(text);
  // Cached: most values a first-seen rule compares are not addresses, and telling so costs the
  // address parser an exception each time.
  return parseIpRangeCached(bracketed === null ? text : (bracketed[1] ?? ''));
}

/**
 * The one spelling of a single address, so that the same address compares equal however an event
 * writes it: IPv6 lower case and compressed (RFC 5952), IPv4-mapped IPv6 as IPv4, brackets and port
 * dropped. `undefined` when the value is not a single address (a block, or no address at all).
 *
 * @example
 * ```ts
 * canonicalAddress('2001:DB8:0::1'); // '2001:db8::1'
 * canonicalAddress('::ffff:203.0.113.5'); // '203.0.113.5'
 * canonicalAddress('alice@example.com'); // undefined
 * ```
 */
export function canonicalAddress(value: unknown): string | undefined {
  const range = parseEventAddress(value);
  if (range === undefined || range.prefix !== (range.kind === 'ipv4' ? 32 : 128)) return undefined;
  return range.address.toString();
}
