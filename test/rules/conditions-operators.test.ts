import { describe, expect, it } from 'vitest';
import type { AtlasEvent } from '../../shared/atlas/types.js';
import {
  anchorField,
  type CompileContext,
  compileMatch,
  isPlainEventTypeSet,
  requiredEventTypes,
} from '../../shared/rules/conditions.js';
import type { MatchSpec, ScalarValue } from '../../shared/rules/schema.js';

/** The events of `events` that `spec` matches, by index; throws on a compile problem. */
function matching(spec: MatchSpec, events: AtlasEvent[], lists: [string, ScalarValue[]][] = []): number[] {
  const context: CompileContext = { lists: new Map(lists), problems: [] };
  const matches = compileMatch(spec, ['match'], context);
  if (context.problems.length > 0) throw new Error(JSON.stringify(context.problems));
  return events.flatMap((event, index) => (matches(event) ? [index] : []));
}

const users = (...names: unknown[]): AtlasEvent[] => names.map((username) => ({ username }) as AtlasEvent);

describe('text operators', () => {
  it('starts_with holds only at the start', () => {
    // Act
    const found = matching({ username: { starts_with: 'adm' } }, users('admin', 'xadm', 'xadmx', 'ad'));

    // Assess
    expect(found).toEqual([0]);
  });

  it('ends_with holds only at the end', () => {
    // Act
    const found = matching(
      { username: { ends_with: '.example' } },
      users('a.example', 'a.examplex', '.exam'),
    );

    // Assess
    expect(found).toEqual([0]);
  });

  it('contains holds anywhere, and for any of several texts', () => {
    // Act
    const found = matching(
      { username: { contains: ['root', 'admin'] } },
      users('xrootx', 'sysadmin', 'rot', 7),
    );

    // Assess
    expect(found).toEqual([0, 1]);
  });

  it('compares case exactly unless ignore_case is set', () => {
    // Prepare
    const events = users('Admin', 'admin');

    // Act
    const exact = [
      matching({ username: { equals: 'admin' } }, events),
      matching({ username: { in: ['admin'] } }, events),
      matching({ username: { starts_with: 'adm' } }, events),
      matching({ username: 'admin' }, events),
      matching({ username: ['admin'] }, events),
    ];
    const folded = [
      matching({ username: { equals: 'ADMIN', ignore_case: true } }, events),
      matching({ username: { in: ['ADMIN'], ignore_case: true } }, events),
      matching({ username: { starts_with: 'ADM', ignore_case: true } }, events),
      matching({ username: { not_in: ['ADMIN'], ignore_case: true } }, events),
    ];

    // Assess
    expect(exact).toEqual([[1], [1], [1], [1], [1]]);
    expect(folded).toEqual([[0, 1], [0, 1], [0, 1], []]);
  });

  it('keeps non-text values exact under ignore_case', () => {
    // Act
    const found = matching(
      { username: { in: [7, 'SEVEN'], ignore_case: true } },
      users(7, '7', 'seven', true),
    );

    // Assess
    expect(found).toEqual([0, 2]);
  });

  it('reads a named list for in and not_in', () => {
    // Prepare
    const lists: [string, ScalarValue[]][] = [['admins', ['root', 'admin']]];

    // Act
    const inList = matching({ username: { in: { list: 'admins' } } }, users('root', 'bob'), lists);
    const notInList = matching({ username: { not_in: { list: 'admins' } } }, users('root', 'bob'), lists);

    // Assess
    expect(inList).toEqual([0]);
    expect(notInList).toEqual([1]);
  });
});

describe('number operators', () => {
  const values = [4, 5, 6, '6', null].map((value) => ({ value }) as AtlasEvent);

  it.each([
    ['gt', [2]],
    ['gte', [1, 2]],
    ['lt', [0]],
    ['lte', [0, 1]],
  ] as const)('%s 5 holds for the numbers it names, never for text', (operator, expected) => {
    // Act
    const found = matching({ value: { [operator]: 5 } }, values);

    // Assess
    expect(found).toEqual(expected);
  });
});

describe('several operators on one field', () => {
  it('requires every one of three or more to hold for the same value', () => {
    // Prepare
    const spec: MatchSpec = { username: { starts_with: 'a', ends_with: 'z', contains: 'q' } };

    // Act
    const found = matching(spec, users('aqz', 'abz', 'aqy', 'bqz'));

    // Assess
    expect(found).toEqual([0]);
  });

  it('requires every one of three or more field conditions to hold', () => {
    // Prepare
    const spec: MatchSpec = { a: 1, b: 2, c: 3 };
    const events = [
      { a: 1, b: 2, c: 3 },
      { a: 1, b: 2, c: 4 },
      { a: 0, b: 2, c: 3 },
    ] as unknown as AtlasEvent[];

    // Act
    const found = matching(spec, events);

    // Assess
    expect(found).toEqual([0]);
  });

  it('holds for any of three branches, and none when none does', () => {
    // Prepare
    const spec: MatchSpec = { any: [{ username: 'a' }, { username: 'b' }, { username: 'c' }] };

    // Act
    const found = matching(spec, users('a', 'c', 'd'));

    // Assess
    expect(found).toEqual([0, 1]);
  });
});

describe('email domains', () => {
  it('reads the domain after the last @, without regard to case', () => {
    // Act
    const found = matching(
      { username: { email_domain_in: ['@Example.com'] } },
      users('a@example.COM', 'a@b@example.com', 'a@example.com.evil', 7),
    );

    // Assess
    expect(found).toEqual([0, 1]);
  });

  it('finds no domain in a value without @ or ending with @', () => {
    // Act
    const found = matching(
      { username: { email_domain_in: ['example.com'] } },
      users('example.com', 'a@', '@example.com'),
    );

    // Assess
    expect(found).toEqual([2]);
  });

  it('compares the domains of two fields, and finds none without @', () => {
    // Prepare
    const events = [
      { username: 'a@x.example', target: 'b@X.example' },
      { username: 'a@x.example', target: 'b@y.example' },
      { username: 'x.example', target: 'x.example' },
    ] as unknown as AtlasEvent[];

    // Act
    const found = matching({ username: { email_domain_same_as: 'target' } }, events);

    // Assess
    expect(found).toEqual([0]);
  });
});

describe('anchorField', () => {
  it.each([
    ['in with null', { username: { in: ['x', null] }, groupId: 'g' }, 'groupId'],
    ['a list with null', { username: ['x', null], groupId: 'g' }, 'groupId'],
    ['an empty list', { username: [], groupId: 'g' }, 'groupId'],
    ['equals null', { username: { equals: null }, groupId: 'g' }, 'groupId'],
    ['null', { username: null, groupId: 'g' }, 'groupId'],
    ['exists false', { username: { exists: false }, groupId: 'g' }, 'groupId'],
    ['not_in alone', { username: { not_in: ['x'] }, groupId: 'g' }, 'groupId'],
  ] as const)(
    'does not anchor on a field tested with %s, whose absent values could still match',
    (_, spec, anchor) => {
      // Act
      const field = anchorField(spec as unknown as MatchSpec);

      // Assess
      expect(field).toBe(anchor);
    },
  );

  it.each([
    ['exists true', { exists: true }],
    ['equals', { equals: 'x' }],
    ['in', { in: ['x'] }],
    ['gt', { gt: 1 }],
    ['regex', { regex: '^x' }],
    ['email_domain_in', { email_domain_in: ['x.example'] }],
    ['a value', 'x'],
  ] as const)('anchors on the first segment of a field tested with %s', (_, condition) => {
    // Act
    const field = anchorField({ 'user.name': condition } as unknown as MatchSpec);

    // Assess
    expect(field).toBe('user');
  });

  it('skips the field it is told to skip and the combinators', () => {
    // Act
    const field = anchorField(
      { any: [{ a: 1 }], eventTypeName: 'X', groupId: 'g' } as MatchSpec,
      'eventTypeName',
    );

    // Assess
    expect(field).toBe('groupId');
  });
});

describe('requiredEventTypes', () => {
  it('reads names from a value, a list, equals and in, and intersects all branches', () => {
    // Prepare
    const lists = new Map<string, ScalarValue[]>([['keys', ['A', 'B']]]);

    // Act
    const sets = [
      requiredEventTypes({ eventTypeName: 'A' }, lists),
      requiredEventTypes({ eventTypeName: { in: { list: 'keys' } } }, lists),
      requiredEventTypes({ eventTypeName: ['A', 'B'], all: [{ eventTypeName: { equals: 'B' } }] }, lists),
      requiredEventTypes({ any: [{ eventTypeName: 'A' }, { eventTypeName: ['B', 'C'] }] }, lists),
    ];

    // Assess
    expect(sets.map((set) => (set === undefined ? undefined : [...set].sort()))).toEqual([
      ['A'],
      ['A', 'B'],
      ['B'],
      ['A', 'B', 'C'],
    ]);
  });

  it('gives no bound for ignore_case, a non-text value, an unknown list or an open branch', () => {
    // Prepare
    const lists = new Map<string, ScalarValue[]>();

    // Act
    const sets = [
      requiredEventTypes({ eventTypeName: { equals: 'A', ignore_case: true } }, lists),
      requiredEventTypes({ eventTypeName: [1] } as unknown as MatchSpec, lists),
      requiredEventTypes({ eventTypeName: { in: { list: 'none' } } }, lists),
      requiredEventTypes({ any: [{ eventTypeName: 'A' }, { username: 'b' }] }, lists),
      requiredEventTypes({ eventTypeName: { regex: '^A' } }, lists),
    ];

    // Assess
    expect(sets).toEqual([undefined, undefined, undefined, undefined, undefined]);
  });
});

describe('isPlainEventTypeSet', () => {
  it.each([
    ['A', true],
    [['A', 'B'], true],
    [['A', 1], false],
    [{ equals: 'A' }, true],
    [{ in: ['A'] }, true],
    [{ in: ['A'], ignore_case: true }, false],
    [{ in: ['A'], regex: undefined }, true],
    [{ regex: '^A' }, false],
    [null, false],
    [7, false],
  ])('reads %j as plain: %s', (condition, plain) => {
    // Act
    const result = isPlainEventTypeSet(condition);

    // Assess
    expect(result).toBe(plain);
  });
});

describe('cidr_valid', () => {
  const entries = (...values: unknown[]): AtlasEvent[] =>
    values.map((whitelistEntry) => ({ whitelistEntry }) as AtlasEvent);

  it('false holds for a value that is not an IP address or CIDR block, such as those Atlas answers may hold', () => {
    // Act
    const found = matching(
      { whitelistEntry: { cidr_valid: false } },
      entries(
        '000.000.000.000/0',
        '0.0.0.0/0.0.0.0',
        '0/0',
        '0.0.0.0 /0',
        '10.0.0.1/33',
        7,
        '0.0.0.0/0',
        '::/0',
        '203.0.113.7',
        ' 198.51.100.0/24 ',
        '::ffff:10.0.0.1',
        `${' '.repeat(40)}198.51.100.7${' '.repeat(40)}`,
      ),
    );

    // Assess
    expect(found).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it('true holds for an IP address or CIDR block, and neither holds for a missing, null, empty or blank value', () => {
    // Act
    const valid = matching(
      { whitelistEntry: { cidr_valid: true } },
      entries('0.0.0.0/0', '2001:db8::/32', '0/0'),
    );
    const missing = [
      ...matching({ whitelistEntry: { cidr_valid: false } }, entries(undefined, null, '', '  ')),
      ...matching({ whitelistEntry: { cidr_valid: true } }, entries(undefined, null, '', '  ')),
    ];

    // Assess
    expect(valid).toEqual([0, 1]);
    expect(missing).toEqual([]);
  });
});
