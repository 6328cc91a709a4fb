import { describe, expect, it } from 'vitest';
import { parseServerDate } from '../../shared/atlas/server-date.js';

describe('parseServerDate', () => {
  it('reads an IMF-fixdate', () => {
    expect(parseServerDate('Tue, 24 Nov 2026 03:00:07 GMT')?.toISOString()).toBe('2026-11-24T03:00:07.000Z');
  });

  it('reads the obsolete RFC 850 and asctime forms', () => {
    expect(parseServerDate('Tuesday, 24-Nov-26 03:00:07 GMT')?.toISOString()).toBe(
      '2026-11-24T03:00:07.000Z',
    );
    expect(parseServerDate('Tue Nov  3 03:00:07 2026')?.toISOString()).toBe('2026-11-03T03:00:07.000Z');
    expect(parseServerDate('Tue Nov 24 03:00:07 2026')?.toISOString()).toBe('2026-11-24T03:00:07.000Z');
  });

  it('ignores white space around the value', () => {
    expect(parseServerDate('  Tue, 24 Nov 2026 03:00:07 GMT ')?.toISOString()).toBe(
      '2026-11-24T03:00:07.000Z',
    );
  });

  it.each([
    undefined,
    '',
    'yesterday',
    '1795000000',
    '2026-11-24T03:00:07Z',
    'Tue, 24 Nov 2026 03:00:07 +0000',
    'Tue, 24 Nov 2026 03:00:07 PST',
    'Tue, 31 Feb 2026 03:00:07 GMT',
    'Tue, 00 Nov 2026 03:00:07 GMT',
    'Tue, 24 Nov 2026 24:00:07 GMT',
    'Tue, 24 Nov 2026 03:60:07 GMT',
    'Tue, 24 Nov 2026 03:00:60 GMT',
    'Tue, 24 Foo 2026 03:00:07 GMT',
    'Xyz, 24 Nov 2026 03:00:07 GMT',
    'Thu, 01 Jan 1970 00:00:00 GMT',
    'Fri, 31 Dec 9999 23:59:59 GMT',
    'Friday, 24-Nov-94 03:00:07 GMT',
    'Tue, 24 Nov 2026 03:00:07 GMT, Tue, 24 Nov 2026 03:00:08 GMT',
    `Tue, 24 Nov 2026 03:00:07 GMT${' '.repeat(100)}`,
    'Tue, 24 Nov 2026 03:00:07 GMT\u0000',
  ])('refuses %j', (value) => {
    expect(parseServerDate(value)).toBeUndefined();
  });

  it('refuses a megabyte of digits without reading it', () => {
    expect(parseServerDate('9'.repeat(1_000_000))).toBeUndefined();
  });
});
