import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { CreateBucketCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import S3rver from 's3rver';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type AuditObjectContext, processAuditObject } from '../../shared/audit-log/index.js';
import { S3ObjectStore } from '../../shared/audit-log/s3-object-store.js';
import { silentLogger } from '../../shared/logger.js';
import { AlertDescriber } from '../../shared/poll/alert-describer.js';
import { NameCache } from '../../shared/poll/name-cache.js';
import { createRuleEngine, parseRulePack } from '../../shared/rules/index.js';
import type { StateStore } from '../../shared/state/index.js';
import { type AtlasSimulator, startSimulator } from '../../simulator/index.js';
import { ids, pollerAtlasClient, pollSeed } from '../poll/support/poll-fixture.js';
import { RecordingNotifier } from '../poll/support/recording-notifier.js';
import { storeKinds } from '../poll/support/store-kinds.js';
import { TestClock } from '../poll/support/test-clock.js';

const BUCKET = 'atlas-logs';
const PREFIX = 'exports/payments';
const HOST = 'payments-main-shard-00-01.abcde.mongodb.net';
const KEY = `${PREFIX}/payments-main/${HOST}/mongodb-audit-log/1795827600-1795827660.log.gz`;

/** Two rules on audit messages: a role granted, and authorization refused three times for one user. */
const RULES = `rules:
  - id: db-role-granted
    name: Role granted to a database user
    severity: high
    match:
      eventTypeName: DB_AUDIT_GRANT_ROLES_TO_USER
    title: '{{username}} granted roles on {{clusterName}}'
  - id: db-authorization-refused
    name: Operations refused for a database user
    severity: medium
    match:
      eventTypeName: DB_AUDIT_AUTH_CHECK
      result: 13
    group_by: [groupId, clusterName, username]
    threshold: { count: 3, window: 5m }
    title: '{{username}} was refused 3 operations on {{clusterName}}'
`;

function message(atype: string, second: number, fields: Record<string, unknown> = {}): string {
  return JSON.stringify({
    atype,
    ts: { $date: new Date(Date.UTC(2026, 10, 28, 1, 0, second)).toISOString() },
    remote: { ip: '203.0.113.7', port: 51_000 + second },
    users: [{ user: 'mallory', db: 'admin' }],
    result: 0,
    ...fields,
  });
}

/** One minute of a host's audit log: a grant, four refusals, routine checks, and a broken line. */
const LINES = [
  message('authenticate', 1, { param: { user: 'mallory', db: 'admin', mechanism: 'SCRAM-SHA-256' } }),
  message('grantRolesToUser', 2, {
    param: { user: 'mallory', db: 'admin', roles: [{ role: 'root', db: 'admin' }] },
  }),
  ...[3, 4, 5, 6].map((second) =>
    message('authCheck', second, { result: 13, param: { command: 'dropDatabase' } }),
  ),
  ...[7, 8, 9].map((second) => message('authCheck', second, { param: { command: 'find' } })),
  '{"atype": "authCheck", "ts": ',
];

describe.each(storeKinds())('an exported audit log object read from S3 ($name)', ({ factory }) => {
  let server: S3rver;
  let directory: string;
  let s3: S3Client;
  let sim: AtlasSimulator;
  let clock: TestClock;
  let store: StateStore;
  let notifier: RecordingNotifier;
  let context: AuditObjectContext;

  beforeAll(async () => {
    directory = await mkdtemp(join(tmpdir(), 'atlas-audit-alerts-s3-'));
    server = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory });
    const { port } = await server.run();
    s3 = new S3Client({
      endpoint: `http://127.0.0.1:${port}`,
      region: 'eu-west-1',
      forcePathStyle: true,
      credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
    await s3.send(new CreateBucketCommand({ Bucket: BUCKET }));
    sim = await startSimulator({ seed: pollSeed() });
  });
  afterAll(async () => {
    s3?.destroy();
    await server?.close();
    await sim?.stop();
    if (directory !== undefined) await rm(directory, { recursive: true, force: true });
  });

  beforeEach(async () => {
    clock = new TestClock(Date.UTC(2026, 10, 28, 1, 5, 0));
    store = await factory(clock);
    notifier = new RecordingNotifier();
    const pack = parseRulePack({ sources: [{ file: 'audit.yaml', text: RULES }] });
    const atlas = pollerAtlasClient(sim.baseUrl, clock);
    context = {
      store,
      engine: createRuleEngine({ pack, counters: store }),
      notifier,
      destinations: [],
      describer: new AlertDescriber({
        atlas,
        store,
        names: new NameCache(),
        clock,
        logger: silentLogger,
        signal: new AbortController().signal,
      }),
      claimMs: 300_000,
      signal: new AbortController().signal,
      logger: silentLogger,
      exports: [{ groupId: ids.project, prefix: PREFIX }],
    };
  });
  afterEach(async () => {
    await store?.close();
  });

  const objects = () => new S3ObjectStore(s3);
  const read = (key: string) =>
    processAuditObject(context, { bucket: BUCKET, key, open: () => objects().read(BUCKET, key) });
  const put = (key: string, lines: readonly string[]) =>
    s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: key, Body: gzipSync(`${lines.join('\n')}\n`) }));

  it('raises each alert once, over a duplicated object and a redelivered notification', async () => {
    await put(KEY, LINES);
    // Atlas delivers at least once: the same lines again, in an object of another name.
    const again = KEY.replace('1795827600-1795827660', '1795827600-1795827660-retry');
    await put(again, LINES);

    const first = await read(KEY);
    const duplicate = await read(again);
    const redelivered = await read(KEY);

    expect(first).toMatchObject({
      status: 'settled',
      counts: { lines: 10, events: 9, malformed: 1, overlong: 0 },
      alerts: { published: { critical: 0, high: 1, medium: 1, low: 0, info: 0 }, alreadySent: 0 },
    });
    expect(duplicate.status).toBe('settled');
    expect(redelivered.status).toBe('settled');
    expect(notifier.delivered.map((alert) => [alert.ruleId, alert.title])).toEqual([
      ['db-role-granted', 'mallory granted roles on payments-main'],
      ['db-authorization-refused', 'mallory was refused 3 operations on payments-main'],
    ]);
    const [granted] = notifier.delivered;
    expect(granted?.events[0]).toMatchObject({
      source: 'audit-log',
      groupId: ids.project,
      hostname: HOST,
      remoteAddress: '203.0.113.7',
      param: { roles: [{ role: 'root', db: 'admin' }] },
    });
  });

  it('keeps an object unsettled while an alert fails, and delivers it once when read again', async () => {
    await put(KEY, LINES);
    notifier.failNext({ count: 1, retryable: true, only: (alert) => alert.ruleId === 'db-role-granted' });

    const failed = await read(KEY);
    const retried = await read(KEY);

    expect(failed.status).toBe('unsettled');
    expect(failed.error).toMatch(/^notifier: Throttling: planned failure/);
    expect(retried.status).toBe('settled');
    expect(notifier.delivered.map((alert) => alert.ruleId).sort()).toEqual([
      'db-authorization-refused',
      'db-role-granted',
    ]);
  });

  it('names the connection of the export in its alerts, as a poll of that connection does', async () => {
    await put(KEY, LINES);
    context = { ...context, exports: [{ groupId: ids.project, prefix: PREFIX, connection: 'prod' }] };

    await read(KEY);

    expect(notifier.delivered.map((alert) => alert.context?.connection)).toEqual(['prod', 'prod']);
  });

  it('skips objects under no export of the deployment, and diagnostic logs', async () => {
    const diagnostic = KEY.replace('mongodb-audit-log', 'mongodb');
    await put(diagnostic, LINES);

    const other = await read(`other-prefix/payments-main/${HOST}/mongodb-audit-log/1.log.gz`);
    const log = await read(diagnostic);

    expect([other.status, log.status]).toEqual(['skipped', 'skipped']);
    expect(notifier.delivered).toEqual([]);
  });

  it('fails, without alerts, an object S3 cannot give', async () => {
    const missing = await read(KEY.replace('.log.gz', '-missing.log.gz'));

    expect(missing.status).toBe('failed');
    expect(missing.error).toMatch(/key does not exist|NoSuchKey/i);
    expect(notifier.delivered).toEqual([]);
  });
});
