/**
 * The child process of {@link startPollerProcess}: the poller as a local run builds it (Atlas client,
 * DynamoDB state store, the default rules over that store, the outbox notifier), running one tick
 * per call, so that its memory and CPU figures are the poller's own.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { AtlasClient } from '../../shared/atlas/index.js';
import { systemClock } from '../../shared/clock.js';
import { OutboxNotifier } from '../../shared/notify/index.js';
import {
  DiscoveryCache,
  NameCache,
  pollerConfigSchema,
  runTick,
  type TickDependencies,
  type TickSummary,
} from '../../shared/poll/index.js';
import { createRuleEngine, loadRulePack } from '../../shared/rules/index.js';
import { createStateTable, DynamoDbStateStore } from '../../shared/state/index.js';
import { createDynamoDbLocalClient } from '../../test/support/dynamodb-local.js';
import { serveRpc } from './child-rpc.js';
import type { PollerChildOptions, PollerTickReport } from './poller-process.js';
import { StateRequestsBySource } from './state-requests-by-source.js';

/** How often the heap is sampled during a tick: the kernel keeps the peak RSS, not the heap's. */
const MEMORY_SAMPLE_MS = 100;

let running:
  | {
      deps: TickDependencies;
      options: PollerChildOptions;
      dynamoDb: DynamoDBClient;
      atlas: AtlasClient;
      bySource: StateRequestsBySource;
    }
  | undefined;

serveRpc({
  async start(options: PollerChildOptions) {
    const dynamoDb = createDynamoDbLocalClient(options.dynamoDbEndpoint);
    const bySource = new StateRequestsBySource(dynamoDb);
    await createStateTable({ client: dynamoDb, tableName: options.tableName });
    const store = new DynamoDbStateStore({ client: dynamoDb, tableName: options.tableName });
    const pack = await loadRulePack({ paths: [options.rulesDirectory] });
    const atlas = new AtlasClient({
      baseUrl: options.atlas.baseUrl,
      credentials: {
        kind: 'digest',
        publicKey: options.atlas.publicKey,
        privateKey: options.atlas.privateKey,
      },
    });
    const deps: TickDependencies = {
      atlas,
      store,
      engine: createRuleEngine({ pack, counters: store, firstSeen: store, clock: systemClock }),
      notifier: new OutboxNotifier({ path: options.outboxPath, clock: systemClock }),
      clock: systemClock,
      discoveryCache: new DiscoveryCache(),
      names: new NameCache(),
    };
    running = { deps, options, dynamoDb, atlas, bySource };
    return { rssBytes: process.memoryUsage.rss() };
  },
  async tick(): Promise<PollerTickReport> {
    if (running === undefined) throw new Error('the poller is not started: call start first');
    const { deps, options, atlas, bySource } = running;
    const config = pollerConfigSchema.parse({
      atlas: { baseUrl: options.atlas.baseUrl },
      sources: {
        projectIds: options.projectIds,
        ...(options.accessHistory === true ? { accessHistory: true } : {}),
      },
      ...(options.concurrency === undefined ? {} : { concurrency: options.concurrency }),
      ...(options.maxEventsInMemory === undefined ? {} : { maxEventsInMemory: options.maxEventsInMemory }),
      timing: options.timing ?? {},
    });
    deps.store.resetStats();
    bySource.reset();
    const rssBeforeBytes = process.memoryUsage.rss();
    let peakHeapUsedBytes = 0;
    let peakExternalBytes = 0;
    const sample = (): void => {
      const usage = process.memoryUsage();
      peakHeapUsedBytes = Math.max(peakHeapUsedBytes, usage.heapUsed);
      peakExternalBytes = Math.max(peakExternalBytes, usage.external);
    };
    const sampler = setInterval(sample, MEMORY_SAMPLE_MS);
    const pacedBefore = atlas.stats.paced;
    const cpu = process.cpuUsage();
    let summary: TickSummary;
    try {
      summary = await runTick(deps, { config, owner: `bench:${process.pid}` });
    } finally {
      clearInterval(sampler);
    }
    const used = process.cpuUsage(cpu);
    sample();
    return {
      summary,
      stateRequestsByOperation: deps.store.stats().requests,
      stateRequestsBySource: bySource.counts(),
      rssBeforeBytes,
      peakRssBytes: process.resourceUsage().maxRSS * 1024,
      peakHeapUsedBytes,
      peakExternalBytes,
      cpuMs: (used.user + used.system) / 1000,
      atlasPaced: atlas.stats.paced - pacedBefore,
    };
  },
  async stop() {
    if (running === undefined) return;
    await running.atlas.close();
    await running.deps.store.close();
    running.dynamoDb.destroy();
    running = undefined;
  },
});
