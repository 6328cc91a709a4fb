import { describe, expect, it } from 'vitest';
import { parseInventorySnapshot } from '../../shared/state/inventory-snapshot.js';

const stored = {
  orgId: '6650a1b2c3d4e5f601000001',
  takenAt: 1_700_000_000_000,
  apiKeys: [
    { apiKey: { id: 'k1', privateKey: 'fake-private-key' }, accessList: [{ cidrBlock: '0.0.0.0/0' }] },
  ],
};

describe('parseInventorySnapshot', () => {
  it('keeps when each posture problem was first found', () => {
    const openFindings = { 'org/o/api-key/k1/access-list/0.0.0.0%2F0': { foundAt: 5, preExisting: true } };

    const snapshot = parseInventorySnapshot({ ...stored, openFindings }, 'state.json');

    expect(snapshot.openFindings).toEqual(openFindings);
    expect(JSON.stringify(snapshot)).not.toContain('fake-private-key');
  });

  it('drops first-found times it cannot read, and keeps the snapshot', () => {
    for (const openFindings of [{ id: { foundAt: 'yesterday' } }, { id: 5 }, ['id'], 'none']) {
      const snapshot = parseInventorySnapshot({ ...stored, openFindings }, 'state.json');

      expect(snapshot.openFindings).toBeUndefined();
      expect(snapshot.apiKeys).toHaveLength(1);
    }
  });
});
