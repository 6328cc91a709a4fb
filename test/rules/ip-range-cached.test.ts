import { describe, expect, it } from 'vitest';
import { parseIpRange, parseIpRangeCached } from '../../shared/rules/ip-range.js';

describe('parseIpRangeCached', () => {
  it('reads an event value once and gives the same range back for it after other values', () => {
    // Act
    const first = parseIpRangeCached('203.0.113.0/24');
    const other = parseIpRangeCached('198.51.100.7');
    const again = parseIpRangeCached('203.0.113.0/24');

    // Assess
    expect(first).toStrictEqual(parseIpRange('203.0.113.0/24'));
    expect(other?.prefix).toBe(32);
    expect(again).toBe(first);
  });

  it('gives nothing for a value that is not a range, the second time too', () => {
    // Act
    const first = parseIpRangeCached('not an address');
    const again = parseIpRangeCached('not an address');

    // Assess
    expect(first).toBeUndefined();
    expect(again).toBeUndefined();
  });

  it('reads no value that is not text, nor text over 64 characters', () => {
    // Prepare: padding that parseIpRange trims away.
    const padded64 = `10.0.0.1${' '.repeat(56)}`;
    const padded65 = `10.0.0.1${' '.repeat(57)}`;

    // Act
    const values = [42, null, undefined, { ip: '10.0.0.1' }].map(parseIpRangeCached);
    const at64 = parseIpRangeCached(padded64);
    const at65 = parseIpRangeCached(padded65);

    // Assess
    expect(values).toStrictEqual([undefined, undefined, undefined, undefined]);
    expect(at64?.prefix).toBe(32);
    expect(at65).toBeUndefined();
    expect(parseIpRange(padded65)?.prefix).toBe(32);
  });
});

describe('parseIpRange, IPv4-mapped prefixes', () => {
  it('reads a mapped block of /96 or longer as IPv4, and a shorter one as IPv6', () => {
    // Act
    const whole = parseIpRange('::ffff:0.0.0.0/96');
    const shorter = parseIpRange('::ffff:0:0/80');

    // Assess
    expect([whole?.kind, whole?.prefix]).toStrictEqual(['ipv4', 0]);
    expect([shorter?.kind, shorter?.prefix]).toStrictEqual(['ipv6', 80]);
  });
});
