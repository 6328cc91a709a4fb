import { describe, expect, it } from 'vitest';
import { parseIpRange, parseIpRangeCached } from '../../shared/rules/ip-range.js';

// One test in this file: the cache is module state, and its bound is counted from empty.
describe('parseIpRangeCached bound', () => {
  it('holds 4,096 values, then starts again from empty', () => {
    // Prepare
    const first = parseIpRangeCached('10.0.0.1');
    for (let index = 1; index < 4_096; index += 1) parseIpRangeCached(`10.1.${index >> 8}.${index & 255}`);

    // Act
    const stillKept = parseIpRangeCached('10.0.0.1');
    parseIpRangeCached('10.2.0.1');
    const afterClear = parseIpRangeCached('10.0.0.1');

    // Assess
    expect(stillKept).toBe(first);
    expect(afterClear).not.toBe(first);
    expect(afterClear).toStrictEqual(parseIpRange('10.0.0.1'));
  });
});
