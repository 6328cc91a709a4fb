import type { MessageAttributeValue } from '@aws-sdk/client-sns';
import { describe, expect, it } from 'vitest';
import { filterPolicyMatches, UnsupportedFilterPolicyError } from '../../shared/routes/index.js';

const text = (value: string): MessageAttributeValue => ({ DataType: 'String', StringValue: value });
const number = (value: number): MessageAttributeValue => ({ DataType: 'Number', StringValue: String(value) });
const list = (...values: string[]): MessageAttributeValue => ({
  DataType: 'String.Array',
  StringValue: JSON.stringify(values),
});

describe('filterPolicyMatches', () => {
  it('takes every message when there is no policy', () => {
    expect(filterPolicyMatches(undefined, {})).toBe(true);
  });

  it('matches a string attribute against any of the listed values, case-sensitively', () => {
    const policy = { connection: ['prod', 'dev'] };

    expect(filterPolicyMatches(policy, { connection: text('dev') })).toBe(true);
    expect(filterPolicyMatches(policy, { connection: text('Dev') })).toBe(false);
    expect(filterPolicyMatches(policy, { connection: text('staging') })).toBe(false);
  });

  it('fails a condition whose attribute the message lacks', () => {
    expect(filterPolicyMatches({ groupName: ['payments-prod'] }, { orgId: text('x') })).toBe(false);
  });

  it('compares numbers with each bound of a numeric condition', () => {
    const policy = { severityRank: [{ numeric: ['>=', 3, '<', 5] }] };

    expect(filterPolicyMatches(policy, { severityRank: number(2) })).toBe(false);
    expect(filterPolicyMatches(policy, { severityRank: number(3) })).toBe(true);
    expect(filterPolicyMatches(policy, { severityRank: number(4) })).toBe(true);
    expect(filterPolicyMatches(policy, { severityRank: number(5) })).toBe(false);
  });

  it('does not match a number condition against a string attribute', () => {
    expect(filterPolicyMatches({ severityRank: [{ numeric: ['>=', 1] }] }, { severityRank: text('5') })).toBe(
      false,
    );
  });

  it('matches a String.Array attribute when any of its elements matches', () => {
    const policy = { tags: ['data-explorer'] };

    expect(filterPolicyMatches(policy, { tags: list('api-keys', 'data-explorer') })).toBe(true);
    expect(filterPolicyMatches(policy, { tags: list('api-keys') })).toBe(false);
    expect(filterPolicyMatches(policy, { tags: list() })).toBe(false);
  });

  it('requires every key of a policy to match', () => {
    const policy = { connection: ['prod'], severityRank: [{ numeric: ['>=', 4] }] };

    expect(filterPolicyMatches(policy, { connection: text('prod'), severityRank: number(4) })).toBe(true);
    expect(filterPolicyMatches(policy, { connection: text('prod'), severityRank: number(3) })).toBe(false);
  });

  it('requires one path of $or beside the other keys', () => {
    const policy = {
      severityRank: [{ numeric: ['>=', 2] }],
      $or: [{ groupId: ['64b5ca17f1a3d40012ab3d11'] }, { groupName: ['payments-prod'] }],
    };

    expect(filterPolicyMatches(policy, { severityRank: number(2), groupName: text('payments-prod') })).toBe(
      true,
    );
    expect(
      filterPolicyMatches(policy, { severityRank: number(2), groupId: text('64b5ca17f1a3d40012ab3d11') }),
    ).toBe(true);
    expect(filterPolicyMatches(policy, { severityRank: number(1), groupName: text('payments-prod') })).toBe(
      false,
    );
    expect(filterPolicyMatches(policy, { severityRank: number(5), groupName: text('analytics-prod') })).toBe(
      false,
    );
  });

  it('reads exists, prefix and anything-but as SNS documents them', () => {
    expect(filterPolicyMatches({ orgName: [{ exists: true }] }, { orgName: text('Acme') })).toBe(true);
    expect(filterPolicyMatches({ orgName: [{ exists: false }] }, {})).toBe(true);
    expect(filterPolicyMatches({ orgName: [{ exists: false }] }, { orgName: text('Acme') })).toBe(false);
    expect(
      filterPolicyMatches({ ruleId: [{ prefix: 'api-key-' }] }, { ruleId: text('api-key-created') }),
    ).toBe(true);
    expect(filterPolicyMatches({ ruleId: [{ 'anything-but': ['a', 'b'] }] }, { ruleId: text('c') })).toBe(
      true,
    );
    expect(filterPolicyMatches({ ruleId: [{ 'anything-but': ['a', 'b'] }] }, { ruleId: text('a') })).toBe(
      false,
    );
  });

  it('refuses an operator it does not read rather than guessing', () => {
    expect(() => filterPolicyMatches({ ruleId: [{ suffix: 'x' }] }, { ruleId: text('x') })).toThrow(
      UnsupportedFilterPolicyError,
    );
    expect(() => filterPolicyMatches({ ruleId: { nested: ['x'] } }, { ruleId: text('x') })).toThrow(/nested/);
  });
});
