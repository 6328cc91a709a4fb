import { describe, expect, it } from 'vitest';
import { type CompileProblem, compileMatch } from '../../shared/rules/conditions.js';
import type { MatchSpec, ScalarValue } from '../../shared/rules/schema.js';

/** What compiling `spec` (read from a rule file, so of any shape) reports, and whether it then matches `event`. */
function compile(
  spec: unknown,
  lists: [string, ScalarValue[]][] = [],
  event: Record<string, unknown> = { username: 'alice@example.com' },
): { problems: CompileProblem[]; matches: boolean } {
  const problems: CompileProblem[] = [];
  const predicate = compileMatch(spec as MatchSpec, ['match'], { lists: new Map(lists), problems });
  return { problems, matches: predicate(event) };
}

const NOT_A_PATH = (text: string): string =>
  `"${text}" is not a field path: segment "${text}" must be letters, digits, "_", "$", "@" or "-", optionally followed by "[]" (write paths like "diffs[].type")`;

describe('compileMatch problems', () => {
  it('reports list_empty naming no list, at its value, and never matches', () => {
    // Act
    const { problems, matches } = compile({ list_empty: 'trusted_domain' }, [['trusted_domains', []]]);

    // Assess
    expect(problems).toStrictEqual([
      {
        code: 'UNKNOWN_LIST',
        path: ['match', 'list_empty'],
        message: 'no list is named "trusted_domain"; lists defined: trusted_domains',
      },
    ]);
    expect(matches).toBe(false);
  });

  it('reports an empty match, which would hold for every event, and never matches', () => {
    // Act
    const { problems, matches } = compile({});

    // Assess
    expect(problems).toStrictEqual([
      {
        code: 'INVALID_CONDITION',
        path: ['match'],
        message: 'a match needs at least one condition (an empty match would hold for every event)',
      },
    ]);
    expect(matches).toBe(false);
  });

  it('reports a field path that is not one at its key', () => {
    // Act
    const { problems, matches } = compile({ 'user name': 'alice@example.com' });

    // Assess
    expect(problems).toStrictEqual([
      {
        code: 'INVALID_FIELD_PATH',
        path: ['match', 'user name'],
        key: true,
        message: NOT_A_PATH('user name'),
      },
    ]);
    expect(matches).toBe(false);
  });

  it('names an unknown list, where it is used and how to define one', () => {
    // Act
    const none = compile({ username: { in: { list: 'admins' } } });
    const others = compile({ username: { not_in: { list: 'admins' } } }, [
      ['staff', ['a']],
      ['bots', ['b']],
    ]);

    // Assess
    expect(none.problems).toStrictEqual([
      {
        code: 'UNKNOWN_LIST',
        path: ['match', 'username', 'in', 'list'],
        message: 'no list is named "admins": define it under lists:',
      },
    ]);
    expect(others.problems).toStrictEqual([
      {
        code: 'UNKNOWN_LIST',
        path: ['match', 'username', 'not_in', 'list'],
        message: 'no list is named "admins"; lists defined: bots, staff',
      },
    ]);
    expect(none.matches).toBe(false);
    expect(others.matches).toBe(false);
  });

  it('reports a value that is not text where text is needed, in a named list or inline', () => {
    // Act
    const named = compile({ username: { starts_with: { list: 'nums' } } }, [['nums', ['a', 5]]]);
    const inline = compile({ username: { email_domain_in: ['example.com', 5] } });

    // Assess
    expect(named.problems).toStrictEqual([
      {
        code: 'INVALID_LIST_VALUE',
        path: ['match', 'username', 'starts_with', 'list'],
        message: 'starts_with needs strings, but list "nums" holds 5',
      },
    ]);
    expect(inline.problems).toStrictEqual([
      {
        code: 'INVALID_LIST_VALUE',
        path: ['match', 'username', 'email_domain_in'],
        message: 'email_domain_in needs strings, but list holds 5',
      },
    ]);
    expect(named.matches).toBe(false);
    expect(inline.matches).toBe(false);
  });

  it('points at the CIDR block that is not one, by index inline and at the list otherwise', () => {
    // Act
    const inline = compile({ ip: { cidr_in: ['10.0.0.0/8', 'nope'] } }, [], { ip: '10.0.0.1' });
    const named = compile({ ip: { cidr_in: { list: 'nets' } } }, [['nets', ['10.0.0.0/8', 'nope']]], {
      ip: '10.0.0.1',
    });

    // Assess
    const advice = 'is not an IP address or CIDR block: write 10.0.0.0/8, 203.0.113.7 or 2001:db8::/32';
    expect(inline.problems).toStrictEqual([
      { code: 'INVALID_CIDR', path: ['match', 'ip', 'cidr_in', 1], message: `"nope" ${advice}` },
    ]);
    expect(named.problems).toStrictEqual([
      {
        code: 'INVALID_CIDR',
        path: ['match', 'ip', 'cidr_in', 'list'],
        message: `"nope" (in list "nets") ${advice}`,
      },
    ]);
    expect(inline.matches).toBe(false);
    expect(named.matches).toBe(false);
  });

  it('reports cidr_at_least_as_wide_as without a prefix length', () => {
    // Act
    const { problems, matches } = compile({ ip: { cidr_at_least_as_wide_as: {} } }, [], { ip: '0.0.0.0/0' });

    // Assess
    expect(problems).toStrictEqual([
      {
        code: 'INVALID_CONDITION',
        path: ['match', 'ip', 'cidr_at_least_as_wide_as'],
        message:
          'cidr_at_least_as_wide_as needs a prefix length for ipv4, ipv6 or both, such as {ipv4: 16, ipv6: 48}',
      },
    ]);
    expect(matches).toBe(false);
  });

  it('reports each side of working hours that is not a time, and an unknown time zone', () => {
    // Act
    const { problems } = compile({
      created: { outside_hours: { start: '25:00', end: '9', time_zone: 'Mars/Base' } },
    });

    // Assess
    const at = ['match', 'created', 'outside_hours'];
    const advice = 'is not a time of day: write HH:MM from 00:00 to 24:00, such as 08:30';
    expect(problems).toStrictEqual([
      { code: 'INVALID_HOURS', path: [...at, 'start'], message: `"25:00" ${advice}` },
      { code: 'INVALID_HOURS', path: [...at, 'end'], message: `"9" ${advice}` },
      {
        code: 'INVALID_TIME_ZONE',
        path: [...at, 'time_zone'],
        message:
          '"Mars/Base" is not an IANA time zone this runtime knows: write one such as Europe/Paris, America/New_York or UTC',
      },
    ]);
  });

  it('reports working hours that end where they start, and only that', () => {
    // Act
    const { problems, matches } = compile(
      { created: { outside_hours: { start: '09:00', end: '09:00', time_zone: 'UTC' } } },
      [],
      { created: '2025-06-02T03:00:00Z' },
    );

    // Assess
    expect(problems).toStrictEqual([
      {
        code: 'INVALID_HOURS',
        path: ['match', 'created', 'outside_hours', 'end'],
        message: 'working hours 09:00-09:00 are empty: end must differ from start',
      },
    ]);
    expect(matches).toBe(false);
  });

  it('reports a bad regex and a bad email_domain_same_as path at their operators', () => {
    // Act
    const regex = compile({ username: { regex: '(' } });
    const same = compile({ username: { email_domain_same_as: 'a b' } });

    // Assess
    expect(regex.problems).toStrictEqual([
      {
        code: 'INVALID_REGEX',
        path: ['match', 'username', 'regex'],
        message: 'invalid regex /(/: missing closing ) `(`',
      },
    ]);
    expect(same.problems).toStrictEqual([
      {
        code: 'INVALID_FIELD_PATH',
        path: ['match', 'username', 'email_domain_same_as'],
        message: NOT_A_PATH('a b'),
      },
    ]);
    expect(regex.matches).toBe(false);
    expect(same.matches).toBe(false);
  });

  it('reports a field condition with no operator, and ignore_case alone', () => {
    // Act
    const none = compile({ username: {} });
    const ignoreCase = compile({ username: { ignore_case: true } });

    // Assess
    expect(none.problems).toStrictEqual([
      {
        code: 'INVALID_CONDITION',
        path: ['match', 'username'],
        message: 'a field condition needs at least one operator, such as equals, in, regex or exists',
      },
    ]);
    expect(ignoreCase.problems).toStrictEqual([
      {
        code: 'INVALID_CONDITION',
        path: ['match', 'username'],
        message:
          'ignore_case changes equals, in, not_in, regex, starts_with, ends_with, contains; add one of them',
      },
    ]);
    expect(none.matches).toBe(false);
    expect(ignoreCase.matches).toBe(false);
  });

  it('reports problems under any, all and not at their own paths', () => {
    // Act
    const { problems } = compile({
      any: [{}, { username: 'x' }],
      all: [{ username: { in: { list: 'z' } } }],
      not: {},
      username: { not: { regex: '(' } },
    });

    // Assess
    expect(problems.map((problem) => [problem.code, problem.path])).toStrictEqual([
      ['INVALID_CONDITION', ['match', 'any', 0]],
      ['UNKNOWN_LIST', ['match', 'all', 0, 'username', 'in', 'list']],
      ['INVALID_CONDITION', ['match', 'not']],
      ['INVALID_REGEX', ['match', 'username', 'not', 'regex']],
    ]);
  });

  it('reports an unknown list of a text operator at the list of that operator', () => {
    // Act
    const { problems } = compile({ username: { contains: { list: 'words' } } });

    // Assess
    expect(problems.map((problem) => problem.path)).toStrictEqual([
      ['match', 'username', 'contains', 'list'],
    ]);
  });
});
