import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { AtlasEvent } from '../../shared/atlas/types.js';
import { createRuleEngine } from '../../shared/rules/engine.js';
import { loadRulePack } from '../../shared/rules/loader.js';
import { MemoryCounterStore } from '../../shared/rules/memory-counter-store.js';
import { collectRuleTests } from '../../shared/rules/rule-tests.js';

const rulesDirectory = fileURLToPath(new URL('../../rules/', import.meta.url));
/**
 * Example bodies from public sources: Atlas documentation examples, captured events, detection test
 * fixtures and bodies built from the Atlas v2 OpenAPI field examples. The README's Rules section
 * lists what each one raises, and why.
 */
const examplesFile = fileURLToPath(new URL('./fixtures/event-examples.json', import.meta.url));

const pack = await loadRulePack({ paths: [rulesDirectory] });

async function alertsFor(events: readonly AtlasEvent[]): Promise<string[]> {
  const engine = createRuleEngine({ pack, counters: new MemoryCounterStore() });
  return (await engine.evaluate(events)).map((alert) => alert.ruleId);
}

describe('default rule pack inline tests', () => {
  for (const test of collectRuleTests(pack)) {
    const where = `${test.file.slice(rulesDirectory.length)}:${test.line ?? '?'}`;
    it(`${test.ruleId} › ${test.name} (${where})`, async () => {
      const result = await test.run();

      expect(result.failures).toEqual([]);
    });
  }
});

describe('default rule pack', () => {
  it('gives every rule at least one test that alerts and one that does not', () => {
    const undertested = pack.rules
      .filter(({ spec }) => {
        const outcomes = new Set((spec.tests ?? []).map((test) => test.expect.alert));
        return !(outcomes.has(true) && outcomes.has(false));
      })
      .map(({ spec }) => spec.id);

    expect(undertested).toEqual([]);
  });

  it('gives every rule a summary', () => {
    const withoutSummary = pack.rules
      .filter(({ spec }) => (spec.summary ?? '').trim() === '')
      .map(({ spec }) => spec.id);

    expect(pack.rules.length).toBeGreaterThan(100);
    expect(withoutSummary).toEqual([]);
  });

  it('raises no alert in its tests whose summary is empty or names a project of "(none)"', async () => {
    const unreadable: string[] = [];
    for (const test of collectRuleTests(pack)) {
      const { alerts } = await test.run();
      for (const alert of alerts) {
        if (alert.summary.trim() === '' || /project \(none\)/.test(`${alert.title} ${alert.summary}`))
          unreadable.push(`${test.ruleId} › ${test.name}: "${alert.summary}"`);
      }
    }

    expect(unreadable).toEqual([]);
  });

  it('leaves the place and the actor out of titles: the headline of every message adds them', () => {
    const naming = pack.rules
      .filter(({ spec }) =>
        /\bby \{\{username|(?:in|for) (?:project|organization) \{\{(?:groupId|orgId)/.test(spec.title),
      )
      .map(({ spec }) => `${spec.id}: ${spec.title}`);

    expect(naming).toEqual([]);
  });

  it('points every rule file at the committed JSON Schema on its first line', () => {
    const files = readdirSync(rulesDirectory).filter((name) => name.endsWith('.yaml'));

    const firstLines = files.map((name) => readFileSync(`${rulesDirectory}${name}`, 'utf8').split('\n')[0]);

    expect(files.length).toBeGreaterThanOrEqual(9);
    expect(new Set(firstLines)).toEqual(new Set(['# yaml-language-server: $schema=./rule-file.schema.json']));
  });

  it.each([
    ['ORG_TWO_FACTOR_AUTH_OPTIONAL', {}, 'org-mfa-made-optional'],
    ['NETWORK_PERMISSION_ENTRY_ADDED', { whitelistEntry: '0.0.0.0/0' }, 'network-access-open-to-internet'],
    ['ALERT_CONFIG_DISABLED_AUDIT', {}, 'alert-configuration-disabled'],
    ['ALERT_CONFIG_DELETED_AUDIT', {}, 'alert-configuration-deleted'],
    ['API_KEY_ACCESS_LIST_ENTRY_ADDED', { whitelistEntry: '1.2.3.4' }, 'api-key-access-list-entry-added'],
    [
      'INVITED_TO_ORG',
      { username: 'user@company.com', targetUsername: 'outsider@other.com' },
      'org-user-invited-other-domain',
    ],
    ['FEDERATION_SETTINGS_CREATED', {}, 'identity-provider-changed'],
    ['OIDC_IDENTITY_PROVIDER_DISABLED', {}, 'identity-provider-changed'],
    ['AUDIT_LOG_CONFIGURATION_UPDATED', {}, 'audit-log-configuration-changed'],
    ['ORG_PUBLIC_API_ACCESS_LIST_NOT_REQUIRED', {}, 'org-api-access-list-not-required'],
    ['JOINED_ORG', { targetUsername: 'insider@company.com' }, 'user-joined-organization'],
    ['REMOVED_FROM_ORG', { targetUsername: 'outsider@other.com' }, 'user-removed-from-organization'],
    ['USER_ROLES_CHANGED_AUDIT', { targetUsername: 'insider@company.com' }, 'user-roles-changed'],
  ])("covers Panther's detection of %s", async (eventTypeName, fields, ruleId) => {
    const alerts = await alertsFor([{ id: 'p1', eventTypeName, orgId: 'o1', ...fields }]);

    expect(alerts).toEqual([ruleId]);
  });
});

describe('default rule pack first-seen address rules', () => {
  const firstSeenAlerts = async (events: readonly AtlasEvent[], ruleId: string): Promise<unknown[]> => {
    const engine = createRuleEngine({
      pack,
      counters: new MemoryCounterStore(),
      ruleIds: [ruleId],
      firstSeenLearning: false,
    });
    return (await engine.evaluate(events)).map((alert) => alert.events[0]?.remoteAddress);
  };
  const at = (minute: number): string => new Date(Date.UTC(2026, 2, 1, 10, minute)).toISOString();

  it('api-key-new-address knows an address however its events spell it', async () => {
    const key = (minute: number, remoteAddress: string): AtlasEvent => ({
      id: `k${minute}`,
      eventTypeName: 'CLUSTER_UPDATED',
      created: at(minute),
      publicKey: 'qkzvbgyt',
      remoteAddress,
    });

    const alerts = await firstSeenAlerts(
      [
        key(0, '2001:DB8::1'),
        key(1, '2001:db8::1'),
        key(2, '203.0.113.5'),
        key(3, '::ffff:203.0.113.5'),
        key(4, '203.0.113.6'),
      ],
      'api-key-new-address',
    );

    expect(alerts).toEqual(['2001:DB8::1', '203.0.113.5', '203.0.113.6']);
  });

  it('user-new-network-org reads bracketed IPv6 addresses', async () => {
    const org = (minute: number, remoteAddress: string): AtlasEvent => ({
      id: `o${minute}`,
      eventTypeName: 'JOINED_ORG',
      created: at(minute),
      orgId: '5e4d3c2b1a09887766554433',
      username: 'alice@example.com',
      remoteAddress,
    });

    const alerts = await firstSeenAlerts(
      [org(0, '[2001:db8:1:1::5]'), org(1, '2001:db8:1:ff::9'), org(2, '[2001:db8:2::1]:443')],
      'user-new-network-org',
    );

    expect(alerts).toEqual(['[2001:db8:1:1::5]', '[2001:db8:2::1]:443']);
  });
});

describe('default rule pack over the example events', () => {
  const examples = JSON.parse(readFileSync(examplesFile, 'utf8')) as AtlasEvent[];

  it('raises the alerts the README lists, in order, without failing on odd bodies', async () => {
    const engine = createRuleEngine({ pack, counters: new MemoryCounterStore() });

    const alerts = await engine.evaluate(examples);

    expect(examples).toHaveLength(20);
    expect(alerts.map((alert) => [alert.events[0]?.eventTypeName, alert.ruleId, alert.severity])).toEqual([
      ['JOINED_TEAM', 'user-added-to-team', 'low'],
      ['JOINED_TEAM', 'mongodb-employee-action', 'medium'],
      ['OUTSIDE_METRIC_THRESHOLD', 'metric-outside-threshold', 'low'],
      ['ALERT_CONFIG_CHANGED_AUDIT', 'alert-configuration-changed', 'low'],
      ['NETWORK_PERMISSION_ENTRY_ADDED', 'network-access-open-to-internet', 'critical'],
      ['ALERT_CONFIG_DELETED_AUDIT', 'user-new-network-org', 'low'],
      ['ALERT_CONFIG_DELETED_AUDIT', 'alert-configuration-deleted', 'high'],
      ['USER_ROLES_CHANGED_AUDIT', 'user-new-network-org', 'low'],
      ['USER_ROLES_CHANGED_AUDIT', 'user-roles-changed', 'medium'],
      ['INVITED_TO_ORG', 'org-user-invited-other-domain', 'medium'],
      ['ORG_TWO_FACTOR_AUTH_OPTIONAL', 'org-mfa-made-optional', 'high'],
      ['AUDIT_LOG_CONFIGURATION_UPDATED', 'audit-log-configuration-changed', 'medium'],
      ['API_KEY_CREATED', 'api-key-created', 'medium'],
      ['API_KEY_CREATED', 'user-new-network-org', 'low'],
      ['API_KEY_ACCESS_LIST_ENTRY_ADDED', 'api-key-access-list-entry-added', 'medium'],
      ['DATA_EXPLORER_CRUD', 'data-explorer-write', 'medium'],
      ['MONGODB_USER_ADDED', 'database-user-created', 'medium'],
      ['CLUSTER_DELETED', 'cluster-deleted', 'high'],
    ]);
  });
});
