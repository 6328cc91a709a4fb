import { describe, expect, it } from 'vitest';
import type { AtlasEvent } from '../../shared/atlas/types.js';
import {
  anchorField,
  type CompileProblem,
  compileMatch,
  isPlainEventTypeSet,
  requiredEventTypes,
} from '../../shared/rules/conditions.js';
import type { MatchSpec, ScalarValue } from '../../shared/rules/schema.js';

const lists = new Map<string, readonly ScalarValue[]>([
  ['destructive_ops', ['deleteDocument', 'dropCollection']],
  ['office_ranges', ['198.51.100.0/24', '2001:db8:1::/48']],
  ['trusted_domains', ['example.com', '@corp.example']],
  ['unset_domains', []],
]);

/** Events here are untyped on purpose: Atlas sends fields of unexpected types too. */
function matcher(spec: MatchSpec): (event: Record<string, unknown>) => boolean {
  const problems: CompileProblem[] = [];
  const predicate = compileMatch(spec, ['match'], { lists, problems });
  expect(problems).toEqual([]);
  return (event) => predicate(event as AtlasEvent);
}

describe('compileMatch', () => {
  it('requires every field condition to hold', () => {
    const matches = matcher({ eventTypeName: 'DATA_EXPLORER_CRUD', opType: 'deleteDocument' });

    expect(matches({ eventTypeName: 'DATA_EXPLORER_CRUD', opType: 'deleteDocument' })).toBe(true);
    expect(matches({ eventTypeName: 'DATA_EXPLORER_CRUD', opType: 'insertDocument' })).toBe(false);
    expect(matches({ eventTypeName: 'DATA_EXPLORER_CRUD' })).toBe(false);
  });

  it('compares values strictly, without type coercion', () => {
    const matches = matcher({ port: 27017, isGlobalAdmin: false });

    expect(matches({ port: 27017, isGlobalAdmin: false })).toBe(true);
    expect(matches({ port: '27017', isGlobalAdmin: false })).toBe(false);
    expect(matches({ port: 27017, isGlobalAdmin: 'false' })).toBe(false);
  });

  it('reads a list of values as "one of", inline or named', () => {
    const inline = matcher({ opType: ['deleteDocument', 'dropCollection'] });
    const named = matcher({ opType: { in: { list: 'destructive_ops' } } });

    expect([inline({ opType: 'dropCollection' }), named({ opType: 'dropCollection' })]).toEqual([true, true]);
    expect([inline({ opType: 'find' }), named({ opType: 'find' })]).toEqual([false, false]);
  });

  it('holds not_in for values outside the list and for missing fields', () => {
    const matches = matcher({ opType: { not_in: { list: 'destructive_ops' } } });

    expect(matches({ opType: 'find' })).toBe(true);
    expect(matches({})).toBe(true);
    expect(matches({ opType: 'deleteDocument' })).toBe(false);
  });

  it('compares text without case when asked', () => {
    const matches = matcher({
      username: { ends_with: '@EXAMPLE.com', ignore_case: true },
      opType: { in: ['DELETEdocument'], ignore_case: true },
    });

    expect(matches({ username: 'ana@example.COM', opType: 'deleteDocument' })).toBe(true);
  });

  it('tests regexes on strings only, and on the whole string however long', () => {
    const matches = matcher({ database: { regex: '^prod-.*-end$' } });

    expect(matches({ database: 'prod-billing-end' })).toBe(true);
    expect(matches({ database: 42 })).toBe(false);
    expect(matches({ database: `prod-${'x'.repeat(5000)}-end` })).toBe(true);
  });

  it('matches a long collection name with a regex wherever ends_with matches it', () => {
    const byRegex = matcher({ collection: { regex: '_pii$' } });
    const byEndsWith = matcher({ collection: { ends_with: '_pii' } });
    const long = { collection: `${'archived_orders_'.repeat(300)}customers_pii` };
    const other = { collection: `${'archived_orders_'.repeat(300)}customers_pii_masked` };

    expect(long.collection.length).toBeGreaterThan(4096);
    expect([byRegex(long), byEndsWith(long)]).toEqual([true, true]);
    expect([byRegex(other), byEndsWith(other)]).toEqual([false, false]);
  });

  it('maps ignore_case onto the regex', () => {
    const matches = matcher({ username: { regex: '^svc-[a-z]+@acme\\.io$', ignore_case: true } });

    expect(matches({ username: 'SVC-Deploy@ACME.io' })).toBe(true);
    expect(
      matcher({ username: { regex: '^svc-[a-z]+@acme\\.io$' } })({ username: 'SVC-Deploy@ACME.io' }),
    ).toBe(false);
  });

  it('matches starts_with, ends_with and contains against any of several texts', () => {
    const matches = matcher({
      hostname: { starts_with: ['atlas-', 'cluster0-'], contains: 'shard', ends_with: '.net' },
    });

    expect(matches({ hostname: 'cluster0-shard-00-02.abc.mongodb.net' })).toBe(true);
    expect(matches({ hostname: 'cluster1-shard-00-02.abc.mongodb.net' })).toBe(false);
  });

  it('treats null as absent for exists', () => {
    const present = matcher({ ipAddress: { exists: true } });
    const absent = matcher({ ipAddress: { exists: false } });

    expect([present({ ipAddress: '10.0.0.1' }), present({ ipAddress: null }), present({})]).toEqual([
      true,
      false,
      false,
    ]);
    expect([absent({ ipAddress: '10.0.0.1' }), absent({ ipAddress: null }), absent({})]).toEqual([
      false,
      true,
      true,
    ]);
  });

  it('compares numbers', () => {
    const matches = matcher({ 'currentValue.number': { gte: 80, lt: 100 } });

    expect([80, 99.5, 100, 79].map((number) => matches({ currentValue: { number } }))).toEqual([
      true,
      true,
      false,
      false,
    ]);
    expect(matches({ currentValue: { number: '90' } })).toBe(false);
  });

  it('requires all value operators to hold for the same array element', () => {
    const matches = matcher({ 'diffs[].type': { equals: 'USERS' }, 'diffs[].status': 'NEW' });
    const sameElement = matcher({ 'diffs[].roles[].role': { starts_with: 'read', ends_with: 'Admin' } });

    expect(
      matches({
        diffs: [
          { type: 'USERS', status: 'MODIFIED' },
          { type: 'ROLES', status: 'NEW' },
        ],
      }),
    ).toBe(true);
    expect(sameElement({ diffs: [{ roles: [{ role: 'readWrite' }, { role: 'dbAdmin' }] }] })).toBe(false);
    expect(sameElement({ diffs: [{ roles: [{ role: 'readAnyDatabaseAdmin' }] }] })).toBe(true);
  });

  it('catches ranges at least as wide as the given prefix, per IP version', () => {
    const matches = matcher({ whitelistEntry: { cidr_at_least_as_wide_as: { ipv4: 16, ipv6: 48 } } });

    const caught = ['0.0.0.0/0', '::/0', '10.0.0.0/8', '172.16.0.0/16', '2001:db8::/32', '2001:db8::/48'];
    const passed = ['10.1.0.0/17', '203.0.113.7', '0.0.0.0', '2001:db8::/64', 'not-an-ip'];
    expect(caught.map((whitelistEntry) => matches({ whitelistEntry }))).toEqual(caught.map(() => true));
    expect(passed.map((whitelistEntry) => matches({ whitelistEntry }))).toEqual(passed.map(() => false));
  });

  it('checks one IP version only when only its prefix is given', () => {
    const matches = matcher({ whitelistEntry: { cidr_at_least_as_wide_as: { ipv4: 8 } } });

    expect([matches({ whitelistEntry: '0.0.0.0/0' }), matches({ whitelistEntry: '::/0' })]).toEqual([
      true,
      false,
    ]);
  });

  it('tells public ranges from private ones', () => {
    const open = matcher({
      whitelistEntry: { cidr_public: true, cidr_at_least_as_wide_as: { ipv4: 16, ipv6: 48 } },
    });
    const privateOnly = matcher({ whitelistEntry: { cidr_public: false } });

    expect(['0.0.0.0/0', '::/0', '52.0.0.0/8'].map((whitelistEntry) => open({ whitelistEntry }))).toEqual([
      true,
      true,
      true,
    ]);
    expect(open({ whitelistEntry: '10.0.0.0/8' })).toBe(false);
    expect([
      privateOnly({ whitelistEntry: '10.0.0.0/8' }),
      privateOnly({ whitelistEntry: 'garbage' }),
    ]).toEqual([true, false]);
  });

  it('holds cidr_in when the whole range lies in one of the listed ranges', () => {
    const matches = matcher({ remoteAddress: { cidr_in: { list: 'office_ranges' } } });

    expect(matches({ remoteAddress: '198.51.100.17' })).toBe(true);
    expect(matches({ remoteAddress: '2001:db8:1::5' })).toBe(true);
    expect(matches({ remoteAddress: '198.51.0.0/16' })).toBe(false);
    expect(matches({ remoteAddress: '203.0.113.9' })).toBe(false);
  });

  it('checks the time of day in a time zone', () => {
    const matches = matcher({
      created: { outside_hours: { start: '09:00', end: '17:00', time_zone: 'America/New_York' } },
    });

    expect(matches({ created: '2024-03-18T15:00:00Z' })).toBe(false);
    expect(matches({ created: '2024-03-18T23:00:00Z' })).toBe(true);
  });

  it('compares e-mail domains with a list and with another field', () => {
    const trusted = matcher({ targetUsername: { email_domain_in: { list: 'trusted_domains' } } });
    const sameAsActor = matcher({ targetUsername: { email_domain_same_as: 'username' } });

    expect([
      trusted({ targetUsername: 'b@EXAMPLE.com' }),
      trusted({ targetUsername: 'c@corp.example' }),
    ]).toEqual([true, true]);
    expect(trusted({ targetUsername: 'x@other.com' })).toBe(false);
    expect(sameAsActor({ username: 'a@example.com', targetUsername: 'b@example.com' })).toBe(true);
    expect(sameAsActor({ username: 'a@example.com', targetUsername: 'b@other.com' })).toBe(false);
    expect(sameAsActor({ targetUsername: 'b@other.com' })).toBe(false);
  });

  it('negates operators on a field as a whole', () => {
    const matches = matcher({ targetUsername: { exists: true, not: { email_domain_in: ['example.com'] } } });

    expect(matches({ targetUsername: 'x@other.com' })).toBe(true);
    expect(matches({ targetUsername: 'x@example.com' })).toBe(false);
    expect(matches({})).toBe(false);
  });

  it('combines matches with any, all and not', () => {
    const matches = matcher({
      eventTypeName: 'NETWORK_PERMISSION_ENTRY_ADDED',
      any: [{ whitelistEntry: '0.0.0.0/0' }, { accessListEntry: '0.0.0.0/0' }],
      all: [{ groupId: { exists: true } }],
      not: { username: { ends_with: '@automation.example' } },
    });
    const base = { eventTypeName: 'NETWORK_PERMISSION_ENTRY_ADDED', groupId: 'g' };

    expect(matches({ ...base, accessListEntry: '0.0.0.0/0', username: 'ana@example.com' })).toBe(true);
    expect(matches({ ...base, whitelistEntry: '0.0.0.0/0', username: 'tf@automation.example' })).toBe(false);
    expect(matches({ ...base, whitelistEntry: '10.0.0.0/8' })).toBe(false);
  });
});

describe('compileMatch on list_empty', () => {
  it('holds while the named list has no values, whatever the event', () => {
    const unset = matcher({ eventTypeName: 'INVITED_TO_ORG', list_empty: 'unset_domains' });
    const set = matcher({ eventTypeName: 'INVITED_TO_ORG', list_empty: 'trusted_domains' });
    const onceSet = matcher({ eventTypeName: 'INVITED_TO_ORG', not: { list_empty: 'trusted_domains' } });

    expect(unset({ eventTypeName: 'INVITED_TO_ORG' })).toBe(true);
    expect(unset({ eventTypeName: 'JOINED_ORG' })).toBe(false);
    expect(set({ eventTypeName: 'INVITED_TO_ORG' })).toBe(false);
    expect(onceSet({ eventTypeName: 'INVITED_TO_ORG' })).toBe(true);
  });

  it('is no field: it gives the engine no anchor and no event type', () => {
    const spec: MatchSpec = { list_empty: 'unset_domains', eventTypeName: 'INVITED_TO_ORG' };

    expect(anchorField(spec)).toBe('eventTypeName');
    expect(anchorField({ list_empty: 'unset_domains' })).toBeUndefined();
    expect(requiredEventTypes(spec, lists)).toEqual(new Set(['INVITED_TO_ORG']));
  });
});

describe('requiredEventTypes', () => {
  it('reads the event types a match requires', () => {
    expect(requiredEventTypes({ eventTypeName: 'A' }, lists)).toEqual(new Set(['A']));
    expect(requiredEventTypes({ eventTypeName: ['A', 'B'], opType: 'x' }, lists)).toEqual(
      new Set(['A', 'B']),
    );
    expect(requiredEventTypes({ eventTypeName: { in: { list: 'destructive_ops' } } }, lists)).toEqual(
      new Set(['deleteDocument', 'dropCollection']),
    );
    expect(requiredEventTypes({ any: [{ eventTypeName: 'A' }, { eventTypeName: 'B' }] }, lists)).toEqual(
      new Set(['A', 'B']),
    );
    expect(requiredEventTypes({ eventTypeName: ['A', 'B'], all: [{ eventTypeName: 'B' }] }, lists)).toEqual(
      new Set(['B']),
    );
  });

  it('leaves a match unindexed when it may hold for any event type', () => {
    expect(requiredEventTypes({ username: 'x' }, lists)).toBeUndefined();
    expect(requiredEventTypes({ eventTypeName: { equals: 'a', ignore_case: true } }, lists)).toBeUndefined();
    expect(requiredEventTypes({ eventTypeName: { regex: '^API_' } }, lists)).toBeUndefined();
    expect(requiredEventTypes({ any: [{ eventTypeName: 'A' }, { username: 'x' }] }, lists)).toBeUndefined();
    expect(requiredEventTypes({ not: { eventTypeName: 'A' } }, lists)).toBeUndefined();
  });
});

describe('anchorField', () => {
  it('names the first top-level field whose value a match tests', () => {
    expect(anchorField({ eventTypeName: 'A', opType: 'x' })).toBe('eventTypeName');
    expect(anchorField({ eventTypeName: 'A', 'currentValue.number': { gt: 5 } }, 'eventTypeName')).toBe(
      'currentValue',
    );
    expect(anchorField({ 'diffs[].type': 'USERS' })).toBe('diffs');
    expect(anchorField({ username: { exists: false }, ipAddress: { exists: true } })).toBe('ipAddress');
  });

  it('names none when a matching event may lack every field', () => {
    expect(anchorField({ opType: { not_in: ['find'] } })).toBeUndefined();
    expect(anchorField({ opType: null, ipAddress: { equals: null } })).toBeUndefined();
    expect(anchorField({ opType: ['find', null] })).toBeUndefined();
    expect(anchorField({ any: [{ opType: 'find' }], not: { username: 'x' } })).toBeUndefined();
  });
});

describe('isPlainEventTypeSet', () => {
  it('accepts names, lists and equals or in alone', () => {
    expect([
      isPlainEventTypeSet('A'),
      isPlainEventTypeSet(['A', 'B']),
      isPlainEventTypeSet({ in: { list: 'x' } }),
    ]).toEqual([true, true, true]);
  });

  it('refuses conditions that test more than membership', () => {
    expect(isPlainEventTypeSet({ in: ['A'], ignore_case: true })).toBe(false);
    expect(isPlainEventTypeSet({ equals: 'A', not: { equals: 'B' } })).toBe(false);
    expect(isPlainEventTypeSet({ regex: '^A' })).toBe(false);
  });
});
