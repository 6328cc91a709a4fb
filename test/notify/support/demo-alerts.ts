import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AdvancingClock } from '../../../cli/demo-clock.js';
import { makeInventoryChanges, secondTickEvents } from '../../../cli/demo-scenario.js';
import { openLocalPoll } from '../../../cli/local-dependencies.js';
import { DEFAULT_RULE_LAYERS } from '../../../cli/rule-layers.js';
import type { RunSettings } from '../../../cli/run-options.js';
import { silentLogger } from '../../../shared/logger.js';
import type { Alert, Notifier, PublishResult } from '../../../shared/notify/index.js';
import { effectiveConnections, pollerConfigSchema, runTick } from '../../../shared/poll/index.js';
import { learningEndingAt } from '../../../shared/rules/index.js';
import { startSimulator } from '../../../simulator/index.js';

/** How much later the demo's second tick runs. */
const TICK_INTERVAL_MS = 5 * 60_000;

/** Takes every alert and keeps it: what a destination receives from the demo's ticks. */
class CollectingNotifier implements Notifier {
  readonly alerts: Alert[] = [];

  async publish(alerts: readonly Alert[]): Promise<PublishResult[]> {
    this.alerts.push(...alerts);
    return alerts.map((alert) => ({ status: 'sent', fingerprint: alert.fingerprint }));
  }
}

/**
 * Every alert `npm start` raises, as its two real poll ticks hand them to a notifier: the simulator
 * with its default seed, the built-in rules, tick 1 over the last hour of both organizations and all
 * their projects, then the demo's new events and inventory change, then tick 2.
 *
 * @example
 * ```ts
 * const alerts = await demoAlerts();
 * ```
 */
export async function demoAlerts(): Promise<Alert[]> {
  const clock = new AdvancingClock();
  const sim = await startSimulator({ clock });
  const directory = await mkdtemp(join(tmpdir(), 'atlas-audit-alerts-demo-alerts-'));
  const notifier = new CollectingNotifier();
  const config = pollerConfigSchema.parse({
    atlas: { baseUrl: sim.baseUrl, flavor: 'atlas-v2' },
    sources: { orgIds: [...sim.orgIds], allProjectsOfOrgs: true, accessHistory: true },
    timing: { inventoryIntervalSeconds: TICK_INTERVAL_MS / 1000 },
  });
  const atlas = {
    baseUrl: sim.baseUrl,
    flavor: 'atlas-v2' as const,
    credentials: {
      kind: 'digest' as const,
      publicKey: sim.credentials.publicKey,
      privateKey: sim.credentials.privateKey,
    },
  };
  const settings: RunSettings = {
    config,
    atlas,
    connections: effectiveConnections(config).map((connection) => ({ connection, atlas })),
    rules: [...DEFAULT_RULE_LAYERS],
    state: { kind: 'file', path: join(directory, 'state.json') },
    notify: { kind: 'console' },
    everyMs: undefined,
  };
  const poll = await openLocalPoll({
    settings,
    clock,
    logger: silentLogger,
    stdout: process.stdout,
    notifier,
    consoleLinks: null,
  });
  try {
    const tick = (now: number) => runTick(poll.deps, { config, owner: `demo-alerts:${process.pid}:${now}` });
    const firstTickAt = clock.now();
    await poll.store.writeFirstSeen(learningEndingAt(poll.pack, firstTickAt));
    await tick(firstTickAt);
    clock.advance(TICK_INTERVAL_MS);
    const secondTickAt = clock.now();
    for (const { scope, event } of secondTickEvents({ sim, firstTickAt, secondTickAt }))
      sim.addEvent(scope, event);
    makeInventoryChanges(sim);
    await tick(secondTickAt);
    return notifier.alerts;
  } finally {
    await poll.close();
    await sim.stop();
    await rm(directory, { recursive: true, force: true });
  }
}
