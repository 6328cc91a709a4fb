import { describe, expect, it } from 'vitest';
import type { AtlasEvent } from '../../shared/atlas/types.js';
import {
  anchorField,
  type CompileProblem,
  compileMatch,
  requiredEventTypes,
  requiresValue,
} from '../../shared/rules/conditions.js';
import type { FieldConditionSpec, MatchSpec, ScalarValue } from '../../shared/rules/schema.js';

/** What compiling `spec` (built in code, so of any shape) reports, and which of `events` it matches. */
function compile(
  spec: unknown,
  events: Record<string, unknown>[] = [],
  lists: [string, ScalarValue[]][] = [],
): { problems: CompileProblem[]; matching: number[] } {
  const problems: CompileProblem[] = [];
  const predicate = compileMatch(spec as MatchSpec, ['match'], { lists: new Map(lists), problems });
  const matching = events.flatMap((event, index) => (predicate(event as AtlasEvent) ? [index] : []));
  return { problems, matching };
}

describe('compileMatch on conditions left undefined', () => {
  it('leaves out a field whose condition is undefined', () => {
    // Act
    const withOther = compile({ eventTypeName: 'A', username: undefined }, [{ eventTypeName: 'A' }]);
    const alone = compile({ username: undefined });

    // Assess
    expect(withOther).toStrictEqual({ problems: [], matching: [0] });
    expect(alone.problems.map((problem) => problem.message)).toStrictEqual([
      'a match needs at least one condition (an empty match would hold for every event)',
    ]);
  });

  it('counts an operator set to undefined as no operator', () => {
    // Act
    const { problems } = compile({ username: { equals: undefined } });

    // Assess
    expect(problems).toStrictEqual([
      {
        code: 'INVALID_CONDITION',
        path: ['match', 'username'],
        message: 'a field condition needs at least one operator, such as equals, in, regex or exists',
      },
    ]);
  });
});

describe('compileMatch combinators and shapes', () => {
  it('holds all only when every branch holds', () => {
    // Act
    const { matching } = compile({ all: [{ username: 'a' }, { groupId: 'g' }] }, [
      { username: 'a', groupId: 'g' },
      { username: 'a', groupId: 'h' },
      { username: 'b', groupId: 'g' },
    ]);

    // Assess
    expect(matching).toStrictEqual([0]);
  });

  it('reads a null value as "equals null", which a missing field does not meet', () => {
    // Act
    const { matching } = compile({ username: null }, [{ username: null }, {}, { username: 'a' }]);

    // Assess
    expect(matching).toStrictEqual([0]);
  });

  it('holds exists: false across an array that is missing or empty', () => {
    // Act
    const { problems, matching } = compile({ 'diffs[].name': { exists: false } }, [
      {},
      { diffs: [] },
      { diffs: [{ name: 'a' }] },
    ]);

    // Assess
    expect(problems).toStrictEqual([]);
    expect(matching).toStrictEqual([0, 1]);
  });
});

describe('compileMatch operator edges', () => {
  it('compares a number under ignore_case exactly', () => {
    // Act
    const { matching } = compile({ port: { equals: 27017, ignore_case: true } }, [
      { port: 27017 },
      { port: '27017' },
    ]);

    // Assess
    expect(matching).toStrictEqual([0]);
  });

  it('matches only the same text under ignore_case, and nothing that is not text, without failing', () => {
    // Act
    const { matching } = compile({ username: { equals: 'ALICE', ignore_case: true } }, [
      { username: 42 },
      { username: null },
      {},
      { username: 'alice' },
      { username: 'bob' },
    ]);

    // Assess
    expect(matching).toStrictEqual([3]);
  });

  it('finds no range in a value that is not an IP address', () => {
    // Act
    const { matching } = compile({ ip: { cidr_in: ['10.0.0.0/8'] } }, [
      { ip: 'not an address' },
      { ip: 42 },
      { ip: '10.1.2.3' },
    ]);

    // Assess
    expect(matching).toStrictEqual([2]);
  });

  it('accepts cidr_at_least_as_wide_as with an ipv6 prefix alone, and checks no IPv4 range then', () => {
    // Act
    const { problems, matching } = compile({ cidr: { cidr_at_least_as_wide_as: { ipv6: 48 } } }, [
      { cidr: '0.0.0.0/0' },
      { cidr: '::/0' },
    ]);

    // Assess
    expect(problems).toStrictEqual([]);
    expect(matching).toStrictEqual([1]);
  });

  it('finds no domain in a value without @, even when a domain is spelled like it', () => {
    // Act
    const { matching } = compile({ username: { email_domain_in: ['alice'] } }, [
      { username: 'alice' },
      { username: 'bob@alice' },
    ]);

    // Assess
    expect(matching).toStrictEqual([1]);
  });

  it('takes a listed domain as written after one leading @, so an address in the list matches nothing', () => {
    // Act
    const { matching } = compile({ username: { email_domain_in: ['ops@corp.example', '@b.example'] } }, [
      { username: 'x@opscorp.example' },
      { username: 'x@corp.example' },
      { username: 'x@b.example' },
    ]);

    // Assess
    expect(matching).toStrictEqual([2]);
  });

  it('sees no shared domain in two addresses that both end with @', () => {
    // Act
    const { matching } = compile({ username: { email_domain_same_as: 'targetUsername' } }, [
      { username: 'alice@', targetUsername: 'bob@' },
      { username: 'alice@x.example', targetUsername: 'bob@X.example' },
    ]);

    // Assess
    expect(matching).toStrictEqual([1]);
  });
});

describe('compileMatch problems of cidr_in and working hours', () => {
  it('names cidr_in when its list holds a value that is not text', () => {
    // Act
    const { problems } = compile({ ip: { cidr_in: { list: 'ports' } } }, [], [['ports', [27017]]]);

    // Assess
    expect(problems).toStrictEqual([
      {
        code: 'INVALID_LIST_VALUE',
        path: ['match', 'ip', 'cidr_in', 'list'],
        message: 'cidr_in needs strings, but list "ports" holds 27017',
      },
    ]);
  });

  it('reports an unknown list of cidr_in once, as an unknown list', () => {
    // Act
    const { problems } = compile({ ip: { cidr_in: { list: 'offices' } } });

    // Assess
    expect(problems.map((problem) => problem.code)).toStrictEqual(['UNKNOWN_LIST']);
  });

  it('reports two sides that are not times without calling the hours empty', () => {
    // Act
    const { problems } = compile({
      created: { outside_hours: { start: 'nope', end: 'nope', time_zone: 'UTC' } },
    });

    // Assess
    expect(problems.map((problem) => problem.path)).toStrictEqual([
      ['match', 'created', 'outside_hours', 'start'],
      ['match', 'created', 'outside_hours', 'end'],
    ]);
  });
});

describe('requiresValue', () => {
  it.each([
    ['in', { in: ['a'] }],
    ['regex', { regex: '^a' }],
    ['starts_with', { starts_with: 'a' }],
    ['ends_with', { ends_with: 'a' }],
    ['contains', { contains: 'a' }],
    ['gt', { gt: 1 }],
    ['gte', { gte: 1 }],
    ['lt', { lt: 1 }],
    ['lte', { lte: 1 }],
    ['cidr_in', { cidr_in: ['10.0.0.0/8'] }],
    ['cidr_at_least_as_wide_as', { cidr_at_least_as_wide_as: { ipv4: 8 } }],
    ['cidr_public', { cidr_public: true }],
    ['cidr_valid', { cidr_valid: false }],
    ['outside_hours', { outside_hours: { start: '08:00', end: '18:00', time_zone: 'UTC' } }],
    ['email_domain_in', { email_domain_in: ['a.example'] }],
    ['email_domain_same_as', { email_domain_same_as: 'targetUsername' }],
    ['a list of values', ['a', 'b']],
    ['another operator next to in with null', { in: ['a', null], starts_with: 'a' }],
  ] as const)('says %s holds only for a present value', (_, condition) => {
    // Act
    const required = requiresValue(condition as FieldConditionSpec);

    // Assess
    expect(required).toBe(true);
  });

  it.each([
    ['an empty list', []],
    ['a list with null', ['a', null]],
    ['not_in', { not_in: ['a'] }],
  ] as const)('says %s may hold for a missing value', (_, condition) => {
    // Act
    const required = requiresValue(condition as FieldConditionSpec);

    // Assess
    expect(required).toBe(false);
  });
});

describe('anchorField and requiredEventTypes on odd shapes', () => {
  it('anchors past a condition left undefined and past a path that is not one', () => {
    // Act
    const pastUndefined = anchorField({ username: undefined, groupId: 'g' });
    const pastBadPath = anchorField({ 'user name': 'x', groupId: 'g' });

    // Assess
    expect([pastUndefined, pastBadPath]).toStrictEqual(['groupId', 'groupId']);
  });

  it('intersects the names at the top with a wider set under all', () => {
    // Act
    const types = requiredEventTypes(
      { eventTypeName: ['A', 'B'], all: [{ eventTypeName: ['B', 'C'] }] },
      new Map(),
    );

    // Assess
    expect(types === undefined ? undefined : [...types]).toStrictEqual(['B']);
  });

  it('gives no bound for null, a list mixing names and numbers, or operators without equals or in', () => {
    // Act
    const sets = [
      requiredEventTypes({ eventTypeName: null }, new Map()),
      requiredEventTypes({ eventTypeName: ['A', 5] }, new Map()),
      requiredEventTypes({ eventTypeName: { starts_with: 'A' } }, new Map()),
    ];

    // Assess
    expect(sets).toStrictEqual([undefined, undefined, undefined]);
  });
});
