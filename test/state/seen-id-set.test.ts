import { describe, expect, it } from 'vitest';
import { normalizeSeenId, SeenIdSet } from '../../shared/state/index.js';

describe('normalizeSeenId', () => {
  it('keeps an Atlas id, lowercased', () => {
    expect(normalizeSeenId('5F4E3D2C1B0A998877665544')).toBe('5f4e3d2c1b0a998877665544');
  });

  it('hashes any other id to 24 hex characters, the same each time', () => {
    const first = normalizeSeenId('inventory:key-added:abc');

    expect(first).toMatch(/^[0-9a-f]{24}$/);
    expect(normalizeSeenId('inventory:key-added:abc')).toBe(first);
    expect(normalizeSeenId('inventory:key-added:abd')).not.toBe(first);
  });
});

describe('SeenIdSet', () => {
  it('packs each id into 12 bytes and unpacks them again', () => {
    const ids = ['5f4e3d2c1b0a998877665544', '000000000000000000000001', 'synthetic-event'];
    const set = SeenIdSet.from(ids);

    const bytes = set.toBytes();
    const unpacked = SeenIdSet.fromBytes(bytes.subarray(0, 12), bytes.subarray(12));

    expect(bytes).toHaveLength(36);
    expect(unpacked.size).toBe(3);
    expect(ids.every((id) => unpacked.has(id))).toBe(true);
    expect([...unpacked]).toEqual([...set]);
  });

  it('merges duplicates and accepts its own stored forms back', () => {
    const set = SeenIdSet.from(['abc', 'abc', '5F4E3D2C1B0A998877665544', '5f4e3d2c1b0a998877665544']);

    const copy = SeenIdSet.from(set);

    expect(set.size).toBe(2);
    expect(copy.has('abc')).toBe(true);
    expect([...copy]).toEqual([...set]);
  });

  it('refuses packed bytes whose length is not a multiple of 12', () => {
    expect(() => SeenIdSet.fromBytes(new Uint8Array(13))).toThrow(RangeError);
  });
});
