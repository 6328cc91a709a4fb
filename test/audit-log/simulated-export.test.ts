import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FolderObjectStore, processAuditObject } from '../../shared/audit-log/index.js';
import { silentLogger } from '../../shared/logger.js';
import { AlertDescriber } from '../../shared/poll/alert-describer.js';
import { NameCache } from '../../shared/poll/name-cache.js';
import { createRuleEngine, MemoryCounterStore } from '../../shared/rules/index.js';
import { FileStateStore } from '../../shared/state/index.js';
import {
  type AtlasSimulator,
  type AuditLogMessage,
  startSimulator,
  writeAuditLogExport,
} from '../../simulator/index.js';
import { defaultRulePack, ids, pollerAtlasClient, pollSeed } from '../poll/support/poll-fixture.js';
import { RecordingNotifier } from '../poll/support/recording-notifier.js';
import { TestClock } from '../poll/support/test-clock.js';

const START = Date.UTC(2026, 10, 28, 1, 0, 0);
const HOSTS = ['payments-main-shard-00-00.abcde.mongodb.net', 'payments-main-shard-00-01.abcde.mongodb.net'];

/** An hour of a cluster's audit log: routine reads and logins, and three things a person should see. */
function anHour(): AuditLogMessage[] {
  const messages: AuditLogMessage[] = [];
  for (let minute = 0; minute < 60; minute++) {
    for (let n = 0; n < 20; n++) {
      const at = START + minute * 60_000 + n * 2_900;
      messages.push({
        at,
        atype: 'authCheck',
        user: 'payments-app@admin',
        param: { command: 'find', ns: 'payments.charges' },
      });
    }
    messages.push({
      at: START + minute * 60_000 + 100,
      atype: 'authenticate',
      user: 'payments-app@admin',
      param: { mechanism: 'SCRAM-SHA-256' },
    });
  }
  // Atlas's automation applies a configuration change: not an alert.
  messages.push({
    at: START + 5 * 60_000,
    atype: 'createUser',
    user: 'mms-automation@admin',
    param: { user: 'reporting', db: 'admin', roles: [{ role: 'read', db: 'payments' }] },
  });
  // A person gives themselves root, probes, and drops a collection.
  messages.push({
    at: START + 20 * 60_000 + 1_000,
    atype: 'grantRolesToUser',
    user: 'mallory@admin',
    remote: '198.51.100.23',
    param: { user: 'mallory', db: 'admin', roles: [{ role: 'root', db: 'admin' }] },
  });
  for (let n = 0; n < 12; n++) {
    messages.push({
      at: START + 30 * 60_000 + n * 5_000,
      atype: 'authCheck',
      user: 'intruder@admin',
      remote: '198.51.100.23',
      param: { command: 'listDatabases' },
      result: 13,
    });
  }
  messages.push({
    at: START + 40 * 60_000,
    atype: 'dropCollection',
    user: 'mallory@admin',
    remote: '198.51.100.23',
    param: { ns: 'payments.charges' },
  });
  return messages;
}

describe('an audit log export written as Atlas writes it, read from a folder through the default pack', () => {
  let folder: string;
  let sim: AtlasSimulator;
  beforeAll(async () => {
    folder = await mkdtemp(join(tmpdir(), 'atlas-audit-alerts-export-'));
    sim = await startSimulator({ seed: pollSeed() });
  });
  afterAll(async () => {
    await sim?.stop();
    if (folder !== undefined) await rm(folder, { recursive: true, force: true });
  });

  it('alerts on each of the three once, over duplicated objects, and on nothing routine', async () => {
    const written = writeAuditLogExport({
      folder,
      bucket: 'atlas-logs',
      prefix: 'exports/payments',
      clusters: [{ name: 'payments-main', hosts: HOSTS, messages: anHour() }],
      duplicateChance: 0.5,
      seed: 7,
    });
    const clock = new TestClock(START + 2 * 60 * 60_000);
    const store = await FileStateStore.open({ path: join(folder, 'state.json'), clock });
    const notifier = new RecordingNotifier();
    const objects = new FolderObjectStore(folder);
    const context = {
      store,
      engine: createRuleEngine({ pack: await defaultRulePack(), counters: new MemoryCounterStore() }),
      notifier,
      destinations: [],
      describer: new AlertDescriber({
        atlas: pollerAtlasClient(sim.baseUrl, clock),
        store,
        names: new NameCache(),
        clock,
        logger: silentLogger,
        signal: new AbortController().signal,
      }),
      claimMs: 300_000,
      signal: new AbortController().signal,
      logger: silentLogger,
      exports: [{ groupId: ids.project, prefix: 'exports/payments' }],
    };

    const keys = objects.keys('atlas-logs');
    const outcomes = [];
    for (const key of keys) {
      outcomes.push(
        await processAuditObject(context, {
          bucket: 'atlas-logs',
          key,
          open: () => objects.read('atlas-logs', key),
        }),
      );
    }
    await store.close();

    expect(written.objects.filter((object) => object.duplicateOf !== undefined).length).toBeGreaterThan(10);
    expect(keys).toEqual(written.objects.map((object) => object.key).sort());
    expect(outcomes.every((outcome) => outcome.status === 'settled')).toBe(true);
    const lines = outcomes.reduce((sum, outcome) => sum + outcome.counts.events, 0);
    expect(lines).toBe(written.objects.reduce((sum, object) => sum + object.lines, 0));
    expect(notifier.delivered.map((alert) => [alert.ruleId, alert.title]).sort()).toEqual([
      ['db-dropped-by-user', 'mallory dropped payments.charges on payments-main'],
      ['db-operations-refused-burst', 'intruder was refused 10 operations on payments-main in 5 minutes'],
      ['db-privileged-role-granted', 'mallory gave mallory a privileged role on payments-main'],
    ]);
  });
});
