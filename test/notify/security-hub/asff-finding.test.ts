import { readFileSync } from 'node:fs';
import type { AwsSecurityFinding } from '@aws-sdk/client-securityhub';
import { describe, expect, it } from 'vitest';
import type { Alert, Severity } from '../../../shared/notify/alert.js';
import { NotifyConfigError } from '../../../shared/notify/errors.js';
import {
  defaultProductArn,
  findingId,
  toAsffFinding,
} from '../../../shared/notify/security-hub/asff-finding.js';
import { ATLAS_TYPE, findingTypes } from '../../../shared/notify/security-hub/finding-types.js';
import { validateAsffFinding } from '../../../shared/notify/security-hub/validate-asff-finding.js';
import {
  ATLAS_CONTEXT,
  accessListEvent,
  apiKeyCreatedEvent,
  dataExplorerEvent,
  INVENTORY_CONTEXT,
  inventoryEntryEvent,
  makeAlert,
  NOW,
  ORG_ID,
  PROJECT_ID,
} from '../support/alerts.js';
import { POSTURE, postureOpeningAlerts, postureResolvedAlert, SNAPSHOTS } from '../support/posture-alerts.js';

const TARGET = { accountId: '123456789012', region: 'eu-west-1' };

function finding(alert: Alert, context = ATLAS_CONTEXT): AwsSecurityFinding {
  return toAsffFinding(alert, { ...TARGET, context });
}

/** The alert docs/security-hub.md shows the finding of. */
function documentedAlert(): Alert {
  return makeAlert({
    context: { orgId: ORG_ID, orgName: 'Acme Corp', projectId: PROJECT_ID, projectName: 'payments-prod' },
    rulePack: { version: '0.1.0', layers: ['builtin'] },
  });
}

describe('toAsffFinding', () => {
  it('writes the finding docs/security-hub.md shows for an access list opened to the internet', () => {
    // Prepare
    const page = readFileSync(new URL('../../../docs/security-hub.md', import.meta.url), 'utf8');
    const shown = /```json\n([\s\S]*?)\n```/.exec(page)?.[1];

    // Act
    const built = finding(documentedAlert());

    // Assess
    expect(shown).toBeDefined();
    expect(JSON.parse(shown ?? '{}')).toEqual(built);
  });

  it.each([
    ['info', 'INFORMATIONAL'],
    ['low', 'LOW'],
    ['medium', 'MEDIUM'],
    ['high', 'HIGH'],
    ['critical', 'CRITICAL'],
  ] as const)('maps severity %s to %s, keeping ours as Original, also for the provider', (ours, label) => {
    const built = finding(makeAlert({ severity: ours as Severity }));

    expect(built.Severity).toEqual({ Label: label, Original: ours });
    expect(built.FindingProviderFields?.Severity).toEqual({ Label: label, Original: ours });
  });

  it('names the rule as generator and the alert by its fingerprint, in the account default product', () => {
    const built = finding(makeAlert({ fingerprint: 'network-access-open-to-internet:e1' }));

    expect(built.Id).toBe('atlas-audit-alerts/alert/network-access-open-to-internet:e1');
    expect(built.GeneratorId).toBe('network-access-open-to-internet');
    expect(built.ProductArn).toBe('arn:aws:securityhub:eu-west-1:123456789012:product/123456789012/default');
    expect(built.AwsAccountId).toBe('123456789012');
    expect(built.SchemaVersion).toBe('2018-10-08');
  });

  it('builds the product ARN of another partition', () => {
    expect(defaultProductArn({ accountId: '123456789012', region: 'cn-north-1', partition: 'aws-cn' })).toBe(
      'arn:aws-cn:securityhub:cn-north-1:123456789012:product/123456789012/default',
    );
  });

  it.each([
    [{ accountId: '12345678901', region: 'eu-west-1' }, /account id "12345678901" is not 12 digits/],
    [{ accountId: '123456789012', region: 'Europe' }, /Region "Europe" is not a Region/],
    [{ accountId: '123456789012', region: 'eu-west-1', partition: 'azure' }, /partition "azure"/],
  ])('refuses a target that is not one (%j)', (target, message) => {
    expect(() => toAsffFinding(makeAlert(), target)).toThrow(NotifyConfigError);
    expect(() => toAsffFinding(makeAlert(), target)).toThrow(message);
  });

  it('names a fingerprint that is not plain ASCII or too long by its digest, the same every time', () => {
    const unicode = makeAlert({ fingerprint: 'rule:grüße\nzeile' });
    const long = makeAlert({ fingerprint: `rule:${'k'.repeat(600)}` });
    const other = makeAlert({ fingerprint: `rule:${'k'.repeat(599)}j` });

    expect(findingId(unicode)).toMatch(/^atlas-audit-alerts\/alert-sha256\/[0-9a-f]{32}\/rule:gr__e_zeile$/);
    expect(findingId(unicode)).toBe(findingId(makeAlert({ fingerprint: 'rule:grüße\nzeile' })));
    expect(findingId(long).length).toBeLessThanOrEqual(512);
    expect(findingId(long)).not.toBe(findingId(other));
  });

  it('gives the alert that opens a posture finding, the one that resolves it and the one that reopens it one Id', async () => {
    // Prepare
    const [opened] = (await postureOpeningAlerts(SNAPSHOTS.first)).filter(
      (alert) => alert.ruleId === 'inventory-access-list-open-to-internet',
    );
    const resolved = postureResolvedAlert(POSTURE.keyOpenToInternet, SNAPSHOTS.second);
    const [reopened] = (await postureOpeningAlerts(SNAPSHOTS.third, SNAPSHOTS.second)).filter(
      (alert) => alert.ruleId === 'inventory-access-list-open-to-internet',
    );

    // Act
    const life = [opened, resolved, reopened].map((alert) => finding(alert as Alert));

    // Assess
    expect(new Set(life.map((step) => step.Id))).toEqual(
      new Set([`atlas-audit-alerts/posture/${POSTURE.keyOpenToInternet}`]),
    );
    expect(new Set(life.map((step) => step.ProductFields?.Fingerprint)).size).toBe(3);
    expect(life.map((step) => [step.RecordState, step.Workflow?.Status, step.Compliance?.Status])).toEqual([
      ['ACTIVE', 'NEW', 'FAILED'],
      ['ARCHIVED', 'RESOLVED', 'PASSED'],
      ['ACTIVE', 'NEW', 'FAILED'],
    ]);
    const updated = life.map((step) => Date.parse(step.UpdatedAt as string));
    expect(updated).toEqual([SNAPSHOTS.first, SNAPSHOTS.second, SNAPSHOTS.third]);
    expect(life.map((step) => step.ProductFields?.PostureFindingState)).toEqual(['open', 'resolved', 'open']);
  });

  it('leaves Compliance out of a finding about an event, which no later snapshot resolves', () => {
    const built = finding(makeAlert());

    expect(built.Compliance).toBeUndefined();
    expect([built.RecordState, built.Workflow?.Status]).toEqual(['ACTIVE', 'NEW']);
  });

  it('takes its times from the events: first observed the oldest, created, updated and last observed the newest', () => {
    const built = finding(
      makeAlert({
        events: [
          accessListEvent({ id: 'a', created: '2026-11-22T06:00:00Z' }),
          accessListEvent({ id: 'b', created: '2026-11-22T06:05:30.250Z' }),
        ],
      }),
    );

    expect(built.FirstObservedAt).toBe('2026-11-22T06:00:00.000Z');
    expect([built.LastObservedAt, built.CreatedAt, built.UpdatedAt]).toEqual([
      '2026-11-22T06:05:30.250Z',
      '2026-11-22T06:05:30.250Z',
      '2026-11-22T06:05:30.250Z',
    ]);
  });

  it('holds an event stamped in the future to the time the alert was raised, and uses that time without events', () => {
    const future = finding(makeAlert({ events: [accessListEvent({ created: '2999-01-01T00:00:00Z' })] }));
    const none = finding(makeAlert({ events: [] }));

    expect(future.UpdatedAt).toBe('2026-11-22T06:14:03.000Z');
    expect(none.UpdatedAt).toBe('2026-11-22T06:14:03.000Z');
    expect(finding(makeAlert({ events: [], raisedAt: Number.NaN })).UpdatedAt).toBe(
      new Date(NOW).toISOString(),
    );
  });

  it('maps tags to types: tactics to TTPs, effects to Effects, the rest under MongoDB Atlas', () => {
    expect(
      findingTypes(['api-keys', 'privilege-escalation', 'Defense_Evasion', 'exfiltration', 'impact']),
    ).toEqual([
      'Software and Configuration Checks/MongoDB Atlas/api-keys',
      'TTPs/Privilege Escalation',
      'TTPs/Defense Evasion',
      'Effects/Data Exfiltration',
      'Effects',
    ]);
    expect(findingTypes([])).toEqual([ATLAS_TYPE]);
    expect(findingTypes(['a/b', '\u0000', ' ', 'x'.repeat(100), 'a/b'])).toEqual([
      `${ATLAS_TYPE}/a-b`,
      `${ATLAS_TYPE}/\uFFFD`,
      `${ATLAS_TYPE}/${'x'.repeat(64)}`,
    ]);
    expect(finding(makeAlert({ tags: ['network', 'initial-access'] })).Types).toEqual([
      'Software and Configuration Checks/MongoDB Atlas/network',
      'TTPs/Initial Access',
    ]);
  });

  it('names the organization and project with their names, and the key the alert is about', () => {
    const built = finding(makeAlert({ events: [inventoryEntryEvent()], context: INVENTORY_CONTEXT }));

    expect(built.Resources).toEqual([
      {
        Type: 'Other',
        Id: `atlas:organization/${ORG_ID}`,
        Details: { Other: { Kind: 'organization', OrgId: ORG_ID, OrgName: 'Acme Corp' } },
      },
      {
        Type: 'Other',
        Id: 'atlas:api-key/qkzvbgyt',
        Details: {
          Other: {
            Kind: 'api-key',
            PublicKey: 'qkzvbgyt',
            Description: 'CI automation (owner)',
            Roles: 'ORG_OWNER in Acme Corp (5b47…6a3); ORG_READ_ONLY in Acme Labs (64b5…c02)',
            ApiKeyId: '64b5cc01f1a3d40012ab3f01',
          },
        },
      },
    ]);
  });

  it('names a service account, a cluster, and the connection of an alert read through another one', async () => {
    const [owner] = (await postureOpeningAlerts(SNAPSHOTS.first)).filter((alert) =>
      alert.ruleId.startsWith('inventory-credential-without-access-list'),
    );
    const cluster = finding(
      makeAlert({
        events: [dataExplorerEvent({ clusterName: 'Cluster0' })],
        context: { connection: 'ops-manager-eu', projectId: PROJECT_ID },
      }),
    );

    expect(finding(owner as Alert).Resources?.map((resource) => resource.Id)).toEqual([
      `atlas:organization/${ORG_ID}`,
      'atlas:service-account/mdb_sa_id_64b5cc01f1a3d400',
    ]);
    expect(cluster.Resources?.map((resource) => resource.Id)).toEqual([
      `atlas:organization/${ORG_ID}`,
      `atlas:project/${PROJECT_ID}`,
      `atlas:project/${PROJECT_ID}/cluster/Cluster0`,
    ]);
    expect(cluster.Resources?.[1]?.Details?.Other?.Connection).toBe('ops-manager-eu');
    expect(cluster.ProductFields?.Connection).toBe('ops-manager-eu');
  });

  it('names the connection as the one resource of an alert that names nothing else', () => {
    const built = finding(makeAlert({ events: [{ id: 'e1', eventTypeName: 'X' }] }));

    expect(built.Resources).toEqual([
      {
        Type: 'Other',
        Id: 'atlas:connection/default',
        Details: { Other: { Kind: 'connection', Connection: 'default' } },
      },
    ]);
  });

  it('names at most 32 resources, however many places the events name', () => {
    const events = Array.from({ length: 100 }, (_, index) =>
      accessListEvent({ id: `e${index}`, orgId: `org-${index}`, groupId: `project-${index}` }),
    );

    expect(finding(makeAlert({ events })).Resources).toHaveLength(32);
  });

  it('links the console page of the newest event, and carries no link without a console', () => {
    const alert = makeAlert({ events: [apiKeyCreatedEvent()] });

    expect(finding(alert).SourceUrl).toBe(`https://cloud.mongodb.com/v2#/org/${ORG_ID}/activity`);
    expect(finding(alert, { now: NOW }).SourceUrl).toBeUndefined();
    expect(finding(alert, { now: NOW }).ProductFields?.AdminApiLink).toBe(
      `https://cloud.mongodb.com/api/atlas/v2/orgs/${ORG_ID}/events/6740ee7aa3b2c1d0e9f80077`,
    );
  });

  it('carries the connection, the event ids and types, the actors and the rule in ProductFields', () => {
    const built = finding(
      makeAlert({
        events: [accessListEvent({ id: 'a' }), accessListEvent({ id: 'b', username: 'k.lee@example.com' })],
        rulePack: { version: '0.1.0', layers: ['builtin', 'rules/acme'] },
      }),
    );

    expect(built.ProductFields).toMatchObject({
      ProviderName: 'atlas-audit-alerts',
      ProviderVersion: '0.1.0',
      RuleLayers: 'builtin, rules/acme',
      Connection: 'default',
      EventTypes: 'NETWORK_PERMISSION_ENTRY_ADDED',
      EventIds: 'a, b',
      EventCount: '2',
      Actors: 'j.doe@example.com from 203.0.113.22; k.lee@example.com from 203.0.113.22',
    });
  });

  it('cuts title and description by characters without splitting a surrogate pair, and cleans control characters', () => {
    const built = finding(
      makeAlert({
        title: `${'a'.repeat(254)}😀😀 tail`,
        summary: `line one\r\nline\u0007 two\u202E ${'b'.repeat(2_000)}`,
      }),
    );

    expect(built.Title).toBe(`${'a'.repeat(254)}\u2026`);
    expect(built.Description?.length).toBe(1_024);
    expect(built.Description?.startsWith('line one\nline\uFFFD two b')).toBe(true);
    expect(built.Description?.endsWith('\u2026')).toBe(true);
  });

  it('falls back to the rule name for a blank title and to the title for a blank summary', () => {
    const built = finding(makeAlert({ title: ' \u200B ', summary: '\n\n' }));

    expect(built.Title).toBe('Project IP access list opened to the internet');
    expect(built.Description).toBe(built.Title);
  });

  it('passes the check the notifier runs, for an alert of each kind', () => {
    for (const alert of [
      makeAlert(),
      makeAlert({ events: [inventoryEntryEvent()], context: INVENTORY_CONTEXT }),
    ]) {
      expect(validateAsffFinding(finding(alert))).toEqual({ valid: true });
    }
  });
});

describe('validateAsffFinding', () => {
  const good = finding(makeAlert());

  it.each([
    [
      'a lone surrogate in a product field',
      { ProductFields: { Actors: 'a\uD800' } },
      /lone UTF-16 surrogate/,
    ],
    ['a type outside the taxonomy', { Types: ['Atlas/x'] }, /Types holds "Atlas\/x"/],
    ['a title of 257 characters', { Title: 't'.repeat(257) }, /Title has 257 characters/],
    ['no resource', { Resources: [] }, /Resources must hold 1 to 32/],
    [
      'another account in the product ARN',
      { AwsAccountId: '210987654321' },
      /ProductArn must name the account/,
    ],
    ['a time without a zone', { UpdatedAt: '2026-11-22 06:12:41' }, /UpdatedAt must be an RFC 3339 time/],
    ['a severity label of ours', { Severity: { Label: 'critical' } }, /Severity.Label must be one of/],
    ['a record state of ours', { RecordState: 'RESOLVED' }, /RecordState must be one of/],
    [
      'a detail of 1,024 characters',
      { Resources: [{ Type: 'Other', Id: 'x', Details: { Other: { K: 'v'.repeat(1_024) } } }] },
      /at most 1023/,
    ],
  ])('refuses %s', (_, change, message) => {
    const result = validateAsffFinding({ ...good, ...change } as AwsSecurityFinding);

    expect(result.valid).toBe(false);
    expect(result.valid ? '' : result.problems.join('\n')).toMatch(message);
  });
});
