import { describe, expect, it } from 'vitest';
import {
  cleanAtlasName,
  displayName,
  MAX_NAME_LENGTH,
  namedIds,
  shortId,
  templateValues,
} from '../../shared/notify/alert-context.js';

describe('shortId', () => {
  it('keeps the first four and last three characters of a long id, and a short id whole', () => {
    expect(shortId('64b5ca17f1a3d40012ab3d11')).toBe('64b5…d11');
    expect(shortId('g1')).toBe('g1');
    expect(shortId('abcdefghij')).toBe('abcdefghij');
    expect(shortId('abcdefghijk')).toBe('abcd…ijk');
  });

  it('counts characters, not code units, when the id holds characters outside the BMP', () => {
    // Ten emoji are twenty code units but ten characters: shown whole. Eleven are cut, never inside a pair.
    expect(shortId('😀'.repeat(10))).toBe('😀'.repeat(10));
    expect(shortId(`a${'😀'.repeat(9)}b`)).toBe('a😀😀😀…😀😀b');
    expect(shortId(`😀bcdefghij😀`)).toBe('😀bcd…ij😀');
  });
});

describe('displayName', () => {
  it('puts the short id after a known name, and shows the whole id without one', () => {
    expect(displayName('64b5ca17f1a3d40012ab3d11', 'payments-prod')).toBe('payments-prod (64b5…d11)');
    expect(displayName('64b5ca17f1a3d40012ab3d11', undefined)).toBe('64b5ca17f1a3d40012ab3d11');
    expect(displayName('64b5ca17f1a3d40012ab3d11', '')).toBe('64b5ca17f1a3d40012ab3d11');
  });
});

describe('cleanAtlasName', () => {
  it('removes line breaks and bidi overrides, bounds the length, and refuses what is not text', () => {
    expect(cleanAtlasName('pay\u202Ements\nprod')).not.toMatch(/[\u202E\n]/);
    expect(cleanAtlasName('x'.repeat(1_000))?.length).toBe(MAX_NAME_LENGTH);
    expect(cleanAtlasName('   ')).toBeUndefined();
    expect(cleanAtlasName(42)).toBeUndefined();
    expect(cleanAtlasName({ name: 'x' })).toBeUndefined();
  });
});

describe('templateValues and namedIds', () => {
  it('give templates the names, the ids, the display forms and the key details', () => {
    // Prepare
    const context = {
      orgId: '64b5c9e2f1a3d40012ab3c01',
      orgName: 'Acme Corp',
      projectId: '64b5ca17f1a3d40012ab3d11',
      credential: {
        kind: 'api-key' as const,
        id: 'qkzvbgyt',
        description: 'CI automation',
        roles: ['ORG_OWNER in Acme Corp (64b5…c01)', 'ORG_READ_ONLY in Acme Labs (64b5…c02)'],
        snapshotTakenAt: 0,
      },
      team: { id: '64b5cf01f1a3d40012ab6001', name: 'data-analysts' },
      alertConfig: { id: '64b5ce01f1a3d40012ab5003' },
    };

    // Act
    const values = templateValues(context);
    const named = namedIds(context);

    // Assess
    expect(values).toEqual({
      orgId: '64b5c9e2f1a3d40012ab3c01',
      org: 'Acme Corp (64b5…c01)',
      orgName: 'Acme Corp',
      projectId: '64b5ca17f1a3d40012ab3d11',
      project: '64b5ca17f1a3d40012ab3d11',
      keyDescription: 'CI automation',
      keyRoles: 'ORG_OWNER in Acme Corp (64b5…c01); ORG_READ_ONLY in Acme Labs (64b5…c02)',
      teamName: 'data-analysts',
    });
    expect(named).toEqual({
      orgId: { id: '64b5c9e2f1a3d40012ab3c01', shown: 'Acme Corp (64b5…c01)' },
    });
    expect(templateValues(undefined)).toEqual({});
  });
});
