import { join } from 'node:path';
import type { AtlasClient } from '../shared/atlas/index.js';
import { FolderObjectStore, processAuditObject } from '../shared/audit-log/index.js';
import type { Clock } from '../shared/clock.js';
import type { Logger } from '../shared/logger.js';
import type { Notifier } from '../shared/notify/notifier.js';
import { AlertDescriber } from '../shared/poll/alert-describer.js';
import { NameCache } from '../shared/poll/index.js';
import type { RuleEngine } from '../shared/rules/engine.js';
import type { StateStore } from '../shared/state/state-store.js';
import { type AtlasSimulator, type AuditLogMessage, writeAuditLogExport } from '../simulator/index.js';
import { publishedCount } from './summary-table.js';

/** The bucket and cluster of the demo's audit log object. */
const BUCKET = 'my-atlas-audit-logs';
const CLUSTER = 'payments-main';
const HOST = 'payments-main-shard-00-01.abcde.mongodb.net';

export interface DemoAuditLogOptions {
  sim: AtlasSimulator;
  /** A folder of the demo's own: it stands for the bucket. */
  folder: string;
  atlas: AtlasClient;
  store: StateStore;
  engine: RuleEngine;
  notifier: Notifier;
  clock: Clock;
  logger: Logger;
}

/** What the demo's audit log object held and raised. */
export interface DemoAuditLogOutcome {
  key: string;
  lines: number;
  events: number;
  alerts: number;
  status: string;
}

/**
 * The demo's database audit log: a minute of one host's audit log, written by the simulator as
 * Atlas's log export writes it (gzip, under `{prefix}/{cluster}/{host}/mongodb-audit-log/`) into a
 * folder that stands for the bucket, then read through `FolderObjectStore` and `processAuditObject`,
 * the object source, with the demo's rules, state and notifier. Among routine authorization checks, a
 * user grants themselves `root` through a driver: the critical `db-privileged-role-granted` alert.
 *
 * @example
 * ```ts
 * const outcome = await showDemoAuditLog({ sim, folder, atlas, store, engine, notifier, clock, logger });
 * ```
 */
export async function showDemoAuditLog(options: DemoAuditLogOptions): Promise<DemoAuditLogOutcome> {
  const project = options.sim.projects.find((candidate) => candidate.name === 'payments-prod') ??
    options.sim.projects[0] ?? { id: '000000000000000000000000' };
  const prefix = `atlas-audit-logs/${project.id}`;
  const start = Math.floor((options.clock.now() - 2 * 60_000) / 60_000) * 60_000;
  const messages: AuditLogMessage[] = [
    ...[1, 4, 9, 15].map((second) => ({
      at: start + second * 1_000,
      atype: 'authCheck',
      user: 'payments-app@admin',
      remote: '10.8.0.12',
      param: { command: 'find', ns: 'payments.charges' },
    })),
    {
      at: start + 31_000,
      atype: 'grantRolesToUser',
      user: 'mallory@admin',
      remote: '198.51.100.23',
      param: { user: 'mallory', db: 'admin', roles: [{ role: 'root', db: 'admin' }] },
    },
  ];
  const folder = join(options.folder, 'buckets');
  const written = writeAuditLogExport({
    folder,
    bucket: BUCKET,
    prefix,
    clusters: [{ name: CLUSTER, hosts: [HOST], messages }],
  });
  const key = written.objects[0]?.key ?? '';
  const objects = new FolderObjectStore(folder);
  const signal = new AbortController().signal;
  const outcome = await processAuditObject(
    {
      store: options.store,
      engine: options.engine,
      notifier: options.notifier,
      destinations: [],
      describer: new AlertDescriber({
        atlas: options.atlas,
        store: options.store,
        names: new NameCache(),
        clock: options.clock,
        logger: options.logger,
        signal,
      }),
      claimMs: 5 * 60_000,
      signal,
      logger: options.logger,
      exports: [{ groupId: project.id, prefix }],
    },
    { bucket: BUCKET, key, open: () => objects.read(BUCKET, key) },
  );
  return {
    key: `s3://${BUCKET}/${key}`,
    lines: outcome.counts.lines,
    events: outcome.counts.events,
    alerts: publishedCount(outcome.alerts),
    status: outcome.status,
  };
}
