/**
 * One poll tick in a process of its own, so that the test that starts it can give it a small V8 heap
 * (`--max-old-space-size`) and watch it survive. Reads its options as JSON from the first argument,
 * polls the given projects against the given Atlas server with DynamoDB Local as the state store (its
 * counters and first-seen records too, as in the Lambda) and an in-memory notifier, and writes one
 * JSON line to stdout: the tick's summary, the alerts published (rule id and event ids) and the
 * metrics the tick emitted. Start it with `runMemoryLimitedTick`.
 */
import { fileURLToPath } from 'node:url';
import { AtlasClient } from '../../../shared/atlas/index.js';
import { systemClock } from '../../../shared/clock.js';
import type { Alert } from '../../../shared/notify/index.js';
import type { Notifier, PublishResult } from '../../../shared/notify/notifier.js';
import { type MetricsSink, pollerConfigSchema, runTick } from '../../../shared/poll/index.js';
import { createRuleEngine, loadRulePack } from '../../../shared/rules/index.js';
import { createStateTable, DynamoDbStateStore } from '../../../shared/state/index.js';
import { createDynamoDbLocalClient } from '../../support/dynamodb-local.js';

/** What the child is started with. */
export interface MemoryLimitedTickOptions {
  baseUrl: string;
  credentials: { publicKey: string; privateKey: string };
  projectIds: string[];
  /** Organizations polled too (their events and inventory). */
  orgIds?: string[];
  dynamoDbEndpoint: string;
  tableName: string;
}

/** What the child writes back. */
export interface MemoryLimitedTickReport {
  summary: Awaited<ReturnType<typeof runTick>>;
  published: Array<{ ruleId: string; eventIds: string[] }>;
  metrics: Array<{ name: string; value: number; dimensions?: Readonly<Record<string, string>> }>;
}

const options = JSON.parse(process.argv[2] ?? '{}') as MemoryLimitedTickOptions;
const client = createDynamoDbLocalClient(options.dynamoDbEndpoint);
await createStateTable({ client, tableName: options.tableName, timeToLive: false });
const store = new DynamoDbStateStore({ client, tableName: options.tableName });
const pack = await loadRulePack({ paths: [fileURLToPath(new URL('../../../rules/', import.meta.url))] });
const engine = createRuleEngine({ pack, counters: store, firstSeen: store, clock: systemClock });
const published: MemoryLimitedTickReport['published'] = [];
const notifier: Notifier = {
  async publish(alerts: readonly Alert[]): Promise<PublishResult[]> {
    return alerts.map((alert) => {
      published.push({ ruleId: alert.ruleId, eventIds: alert.events.map((event) => String(event.id)) });
      return { status: 'sent', fingerprint: alert.fingerprint };
    });
  },
};
const metrics: MemoryLimitedTickReport['metrics'] = [];
const sink: MetricsSink = {
  addMetric(name, _unit, value, dimensions) {
    metrics.push({ name, value, ...(dimensions === undefined ? {} : { dimensions }) });
  },
};
const atlas = new AtlasClient({
  baseUrl: options.baseUrl,
  allowInsecureHttp: true,
  credentials: { kind: 'digest', ...options.credentials },
});
const config = pollerConfigSchema.parse({
  sources: { projectIds: options.projectIds, orgIds: options.orgIds ?? [] },
});
const summary = await runTick(
  { atlas, store, engine, notifier, metrics: sink },
  { config, owner: 'memory-test' },
);
await atlas.close();
client.destroy();
const report: MemoryLimitedTickReport = { summary, published, metrics };
process.stdout.write(`${JSON.stringify(report)}\n`);
