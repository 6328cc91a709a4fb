import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AtlasEvent } from '../../shared/atlas/types.js';
import { createRuleEngine } from '../../shared/rules/engine.js';
import { loadRulePack } from '../../shared/rules/loader.js';
import { MemoryCounterStore } from '../../shared/rules/memory-counter-store.js';
import type { RulePack } from '../../shared/rules/rule-pack.js';

/**
 * What the whole default pack makes of one event at a time, in the shapes Atlas v2 sends
 * (`DataExplorerAccessedEventView`, `NDSAuditViewForNdsGroup`, the org events): every rule that
 * alerts, with its severity. Each case is one judgment the pack must make, not one rule's test.
 */

const builtinDirectory = fileURLToPath(new URL('../../rules/', import.meta.url));
const PROJECT = '5f4e3d2c1b0a998877665544';
const ORG = '5e4d3c2b1a09887766554433';

let sequence = 0;
function projectEvent(fields: Record<string, unknown>): AtlasEvent {
  sequence += 1;
  return {
    id: `65a1c0de${String(sequence).padStart(16, '0')}`,
    created: '2024-05-14T18:00:00Z',
    groupId: PROJECT,
    orgId: ORG,
    userId: '5f4e3d2c1b0a998877660001',
    username: 'bob@acme.example',
    remoteAddress: '198.51.100.42',
    isGlobalAdmin: false,
    ...fields,
  };
}

function orgEvent(fields: Record<string, unknown>): AtlasEvent {
  const { groupId: _none, ...event } = projectEvent(fields);
  return event;
}

function dataExplorer(eventTypeName: string, opType: string | undefined): AtlasEvent {
  return projectEvent({
    eventTypeName,
    database: 'payments',
    collection: 'refunds',
    ...(opType === undefined ? {} : { opType }),
  });
}

/** Each alert the pack raises for one event, as `rule id (severity)`; first-seen rules still learning. */
async function judged(pack: RulePack, event: AtlasEvent): Promise<string[]> {
  const engine = createRuleEngine({ pack, counters: new MemoryCounterStore() });
  const alerts = await engine.evaluate([event]);
  return alerts.map((alert) => `${alert.ruleId} (${alert.severity})`);
}

let builtin: RulePack;
let withDomains: RulePack;
let layerDirectory: string;

beforeAll(async () => {
  builtin = await loadRulePack({ paths: ['builtin'], builtinDirectory });
  layerDirectory = await mkdtemp(join(tmpdir(), 'atlas-audit-alerts-judgments-'));
  await writeFile(
    join(layerDirectory, 'domains.yaml'),
    'lists:\n  trusted_email_domains: { append: [acme.example] }\n',
  );
  withDomains = await loadRulePack({ paths: ['builtin', layerDirectory], builtinDirectory });
});

afterAll(async () => {
  await rm(layerDirectory, { recursive: true, force: true });
});

describe('the default pack on Data Explorer operations', () => {
  it.each([
    ['DATA_EXPLORER', 'dropCollection', ['data-explorer-drop (high)']],
    ['DATA_EXPLORER', 'dropDatabase', ['data-explorer-drop (high)']],
    ['DATA_EXPLORER_CRUD', 'dropCollection', ['data-explorer-drop (high)']],
    ['DATA_EXPLORER_CRUD', 'deleteMany', ['data-explorer-drop (high)']],
    ['DATA_EXPLORER_CRUD', 'deleteDocument', ['data-explorer-destructive-write (medium)']],
    ['DATA_EXPLORER_CRUD', 'updateDocument', ['data-explorer-destructive-write (medium)']],
    ['DATA_EXPLORER', 'updateDocument', ['data-explorer-destructive-write (medium)']],
    ['DATA_EXPLORER_CRUD', 'insertDocument', ['data-explorer-write (medium)']],
    ['DATA_EXPLORER', 'insertDocument', ['data-explorer-write (medium)']],
    ['DATA_EXPLORER', 'find', ['data-explorer-read (info)']],
    ['DATA_EXPLORER', undefined, ['data-explorer-read (info)']],
    ['DATA_EXPLORER_CRUD_ATTEMPT', 'dropCollection', ['data-explorer-write-attempted (low)']],
    ['DATA_EXPLORER_CRUD_ERROR', 'dropDatabase', ['data-explorer-write-attempted (low)']],
  ])('judges %s with opType %s by the operation, once', async (eventTypeName, opType, expected) => {
    const alerts = await judged(builtin, dataExplorer(eventTypeName, opType));

    expect(alerts).toEqual(expected);
  });
});

describe('the default pack on changes that make posture stronger', () => {
  it.each([
    ['DOMAIN_CREATED', ['federation-domain-added (low)']],
    ['DOMAIN_VERIFIED', ['federation-domain-added (low)']],
    ['RESOURCE_POLICY_CREATED', ['resource-policy-created (low)']],
    ['DOMAINS_ASSOCIATED', ['federation-domain-changed (medium)']],
    ['RESOURCE_POLICY_MODIFIED', ['resource-policy-changed (medium)']],
  ])('judges %s', async (eventTypeName, expected) => {
    const alerts = await judged(
      builtin,
      orgEvent({ eventTypeName, resourcePolicyId: '6651f0a1c2d3e4f5a6b7c8d9' }),
    );

    expect(alerts).toEqual(expected);
  });
});

describe('the default pack on database users', () => {
  it.each([
    [
      'MONGODB_USER_ADDED',
      'atlas-sample-dataset-load-6650f0a1c2d3e4f5a6b7c8d9',
      ['atlas-sample-data-loader-user (info)'],
    ],
    [
      'MONGODB_USER_DELETED',
      'atlas-sample-dataset-load-6650f0a1c2d3e4f5a6b7c8d9',
      ['atlas-sample-data-loader-user (info)'],
    ],
    ['MONGODB_USER_ADDED', 'temp-admin', ['database-user-created (medium)']],
    ['MONGODB_USER_ADDED', 'atlas-sample-dataset-load-admin', ['database-user-created (medium)']],
  ])('judges %s of %s', async (eventTypeName, dbUserUsername, expected) => {
    const alerts = await judged(builtin, projectEvent({ eventTypeName, dbUserUsername }));

    expect(alerts).toEqual(expected);
  });
});

describe('the default pack on invitations to the organization', () => {
  const invitation = (username: string, targetUsername: string): AtlasEvent =>
    orgEvent({ eventTypeName: 'INVITED_TO_ORG', username, targetUsername });

  it('judges an invitation against the inviter’s domain while no trusted domain is set, and says so', async () => {
    const engine = createRuleEngine({ pack: builtin, counters: new MemoryCounterStore() });

    const [colleague, outsider] = await Promise.all([
      engine.evaluate([invitation('alice@acme.example', 'dan@Acme.example')]),
      engine.evaluate([invitation('alice@acme.example', 'contractor@freemail.example')]),
    ]);

    expect(colleague).toEqual([]);
    expect(outsider.map((alert) => [alert.ruleId, alert.severity])).toEqual([
      ['org-user-invited-other-domain', 'medium'],
    ]);
    expect(outsider[0]?.summary).toContain("Judged against the inviter's own domain");
  });

  it('judges an invitation against the trusted domains once a layer sets them', async () => {
    const [colleague, outsider, partnerOfPartner] = await Promise.all([
      judged(withDomains, invitation('alice@acme.example', 'dan@acme.example')),
      judged(withDomains, invitation('alice@acme.example', 'contractor@freemail.example')),
      judged(withDomains, invitation('lee@partner.example', 'kim@partner.example')),
    ]);

    expect(colleague).toEqual([]);
    expect(outsider).toEqual(['org-user-invited-untrusted-domain (medium)']);
    expect(partnerOfPartner).toEqual(['org-user-invited-untrusted-domain (medium)']);
  });
});
