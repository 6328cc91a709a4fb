import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { normalizeSeenId, SeenIdSet } from '../../shared/state/seen-id-set.js';

const sha256Prefix = (id: string): string =>
  createHash('sha256').update(id, 'utf8').digest('hex').slice(0, 24);

describe('normalizeSeenId forms', () => {
  it.each([
    ['a 24-hex id with a prefix', 'x5f4e3d2c1b0a998877665544'],
    ['a 24-hex id with a suffix', '5f4e3d2c1b0a998877665544x'],
    ['25 hex characters', '5f4e3d2c1b0a9988776655441'],
    ['23 hex characters', '5f4e3d2c1b0a99887766554'],
    ['24 characters, one not hex', '5f4e3d2c1b0a99887766554g'],
  ])('hashes %s rather than storing it as is', (_, id) => {
    // Act
    const form = normalizeSeenId(id);

    // Assess
    expect(form).toBe(sha256Prefix(id));
  });

  it('hashes the id as UTF-8 text', () => {
    // Act
    const form = normalizeSeenId('événement');

    // Assess
    expect(form).toBe(sha256Prefix('événement'));
  });

  it('packs any id into 12 bytes that unpack to its stored form', () => {
    // Prepare
    const ids = ['x5f4e3d2c1b0a998877665544', 'inventory:key-added:abc', '5F4E3D2C1B0A998877665544'];

    // Act
    const unpacked = SeenIdSet.fromBytes(SeenIdSet.from(ids).toBytes());

    // Assess
    expect([...unpacked]).toEqual(ids.map(normalizeSeenId));
    expect(ids.every((id) => unpacked.has(id))).toBe(true);
  });
});

describe('SeenIdSet bytes', () => {
  it('reads a view into a larger buffer from its own offset', () => {
    // Prepare
    const whole = SeenIdSet.from(['000000000000000000000001', '000000000000000000000002']).toBytes();
    const view = new Uint8Array(whole.buffer, whole.byteOffset + 12, 12);

    // Act
    const set = SeenIdSet.fromBytes(view);

    // Assess
    expect([...set]).toEqual(['000000000000000000000002']);
  });

  it('says how long the packed bytes were', () => {
    // Act
    const act = (): SeenIdSet => SeenIdSet.fromBytes(new Uint8Array(24), new Uint8Array(13));

    // Assess
    expect(act).toThrow('packed seen ids are 13 bytes long, not a multiple of 12');
  });

  it('is empty when made empty or from no bytes', () => {
    // Act
    const sets = [SeenIdSet.empty(), SeenIdSet.fromBytes(), SeenIdSet.fromBytes(new Uint8Array(0))];

    // Assess
    expect(sets.map((set) => [set.size, set.toBytes().length])).toEqual([
      [0, 0],
      [0, 0],
      [0, 0],
    ]);
    expect(SeenIdSet.empty().has('000000000000000000000001')).toBe(false);
  });
});
