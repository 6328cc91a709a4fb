import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { counterMember } from '../../shared/state/counter-increments.js';
import { stateKeys } from '../../shared/state/dynamodb-keys.js';

const sha256 = (text: string): string => createHash('sha256').update(text, 'utf8').digest('base64url');

describe('stateKeys', () => {
  it('names each item kind with its prefix and sort key', () => {
    // Act
    const keys = [
      stateKeys.source('orgs/5f'),
      stateKeys.alert('rule:fp'),
      stateKeys.counter('rule:group'),
      stateKeys.inventory('5f'),
    ];

    // Assess
    expect(keys).toEqual([
      { pk: 'SOURCE#orgs/5f', sk: 'CURSOR' },
      { pk: 'ALERT#rule:fp', sk: 'ALERT' },
      { pk: 'COUNTER#rule:group', sk: 'COUNTER' },
      { pk: 'INVENTORY#5f', sk: 'SNAPSHOT' },
    ]);
    expect(stateKeys.seenChunkPrefix('g1')).toBe('CURSOR#SEEN#g1#');
    expect(stateKeys.inventoryChunkPrefix('g1')).toBe('SNAPSHOT#g1#');
  });

  it('keeps a name of exactly 1,024 UTF-8 bytes and hashes one of 1,025', () => {
    // Prepare
    const exact = `${'é'.repeat(511)}ab`;
    const over = `${'é'.repeat(512)}a`;

    // Act
    const keys = [stateKeys.alert(exact).pk, stateKeys.alert(over).pk];

    // Assess
    expect(keys).toEqual([`ALERT#${exact}`, `ALERT#sha256:${sha256(over)}`]);
  });
});

describe('counterMember', () => {
  it('keeps a member of 1 to 64 UTF-8 bytes that does not start with #', () => {
    // Act
    const members = [
      counterMember('a'),
      counterMember('m'.repeat(64)),
      counterMember('a#b'),
      counterMember('漢'.repeat(21)),
    ];

    // Assess
    expect(members).toEqual(['a', 'm'.repeat(64), 'a#b', '漢'.repeat(21)]);
  });

  it.each([
    ['the empty string', ''],
    ['65 characters', 'm'.repeat(65)],
    ['22 characters of 3 bytes each', '漢'.repeat(22)],
    ['a member that starts with #', '#abc'],
  ])('hashes %s behind a #', (_, member) => {
    // Act
    const stored = counterMember(member);

    // Assess
    expect(stored).toBe(`#${sha256(member)}`);
  });
});
