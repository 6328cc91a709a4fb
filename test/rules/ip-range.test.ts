import { describe, expect, it } from 'vitest';
import { type IpRange, isPublicRange, parseIpRange, rangeWithin } from '../../shared/rules/ip-range.js';

function range(text: string): IpRange {
  const parsed = parseIpRange(text);
  if (parsed === undefined) throw new Error(`not a range: ${text}`);
  return parsed;
}

describe('parseIpRange', () => {
  it.each([
    ['0.0.0.0/0', 'ipv4', 0],
    ['10.0.0.0/8', 'ipv4', 8],
    ['203.0.113.7', 'ipv4', 32],
    ['0.0.0.0', 'ipv4', 32],
    ['::/0', 'ipv6', 0],
    ['2001:db8::/32', 'ipv6', 32],
    ['2600:1f18::1', 'ipv6', 128],
    ['::ffff:10.0.0.1', 'ipv4', 32],
    [' 192.168.1.0/24 ', 'ipv4', 24],
  ])('reads %j as %s /%i', (text, kind, prefix) => {
    expect(parseIpRange(text)).toMatchObject({ kind, prefix });
  });

  it.each(['', '10.1', '0x0a000001', '1.2.3.4/33', '::/129', '10.0.0.0/abc', 'fe80::1%eth0', 'example.com'])(
    'rejects %j',
    (text) => {
      expect(parseIpRange(text)).toBeUndefined();
    },
  );
});

describe('rangeWithin', () => {
  it('holds when every address of the inner range is in the outer one', () => {
    expect(rangeWithin(range('10.1.0.0/16'), range('10.0.0.0/8'))).toBe(true);
    expect(rangeWithin(range('10.1.2.3'), range('10.0.0.0/8'))).toBe(true);
  });

  it('fails for a wider range, another range or another IP version', () => {
    expect(rangeWithin(range('10.0.0.0/7'), range('10.0.0.0/8'))).toBe(false);
    expect(rangeWithin(range('11.0.0.1'), range('10.0.0.0/8'))).toBe(false);
    expect(rangeWithin(range('::ffff:0a00:0001/128'), range('10.0.0.0/8'))).toBe(true);
    expect(rangeWithin(range('2001:db8::1'), range('0.0.0.0/0'))).toBe(false);
  });
});

describe('isPublicRange', () => {
  it.each(['0.0.0.0/0', '::/0', '8.8.8.8', '10.0.0.0/7', '2600:1f18::/32', '52.0.0.0/8'])(
    'calls %j public',
    (text) => {
      expect(isPublicRange(range(text))).toBe(true);
    },
  );

  it.each([
    '0.0.0.0',
    '10.0.0.0/8',
    '172.16.5.0/24',
    '192.168.1.10',
    '127.0.0.1',
    '169.254.169.254',
    '100.64.0.0/10',
    '203.0.113.0/24',
    '::1',
    'fd00::/8',
    'fe80::1',
    '2001:db8::/48',
  ])('calls %j not public', (text) => {
    expect(isPublicRange(range(text))).toBe(false);
  });
});
