import { randomBytes } from 'node:crypto';
import type { Clock } from '../shared/clock.js';
import { silentLogger } from '../shared/logger.js';
import { DiscoveryCache, runTick, type TickSummary } from '../shared/poll/index.js';
import type { AtlasSimulator } from '../simulator/index.js';
import { WebhookSender } from '../simulator/webhook-sender.js';
import type { LocalPoll } from './local-dependencies.js';
import type { CommandOutput } from './poll-command-io.js';
import { openPushListener, WEBHOOK_SECRET_ENV } from './push-listener.js';
import type { RunSettings } from './run-options.js';

/** How long the simulated Atlas takes to post the alert of an event, as Atlas takes a moment to raise it. */
export const DEMO_PUSH_DELAY_MS = 1_500;

/** Options of {@link runPushDemo}. */
export interface PushDemoOptions {
  sim: AtlasSimulator;
  poll: LocalPoll;
  settings: RunSettings;
  clock: Clock;
  stdout: CommandOutput;
}

/** What the push part of the demo did. */
export interface PushDemoResult {
  /** The poll the push woke. */
  summary: TickSummary;
  /** From the event's `created` to the end of that poll, its alert printed, in milliseconds. */
  elapsedMs: number;
}

/**
 * The push part of `demo --push`: a local receiver as `run --push-listen` opens it (a fresh secret
 * of this run's own), an event of an alertable type added to the simulator, the simulator's
 * `WebhookSender` posting its alert signed after {@link DEMO_PUSH_DELAY_MS} (and a forged copy,
 * refused), and the poll the push wakes, which reads up to now and prints the alert. Real time: the
 * alert arrives seconds after its event, where the schedule would take minutes.
 *
 * @throws Error when the receiver does not take the signed push, or takes the forged one.
 * @example
 * ```ts
 * const { summary, elapsedMs } = await runPushDemo({ sim, poll, settings, clock, stdout });
 * ```
 */
export async function runPushDemo(options: PushDemoOptions): Promise<PushDemoResult> {
  const { sim, poll, settings, clock, stdout } = options;
  const secret = randomBytes(20).toString('base64url');
  const push = await openPushListener({
    address: '127.0.0.1:0',
    connections: settings.connections.map(({ connection }) => connection),
    env: { [WEBHOOK_SECRET_ENV]: secret },
    store: poll.store,
    atlas: async (connection) => {
      const atlas = poll.deps.atlas;
      return typeof atlas === 'function' ? atlas(connection) : atlas;
    },
    discoveryCache: poll.deps.discoveryCache ?? new DiscoveryCache(),
    onQueued: () => {},
    logger: silentLogger,
    clock,
  });
  try {
    const project = sim.projects[0];
    if (project === undefined) throw new Error('the simulator has no project to push for');
    const created = Math.floor(clock.now() / 1_000) * 1_000;
    const event = sim.addEvent(
      { groupId: project.id },
      {
        eventTypeName: 'ALERT_HOST_SSH_SESSION_STARTED',
        created: new Date(created).toISOString().replace('.000Z', 'Z'),
        hostname: `${project.name}-shard-00-01.mongodb.net`,
        username: 'support@mongodb.example',
      },
    );
    stdout.write(
      `  ${project.name.padEnd(15)} ${String(event.eventTypeName).padEnd(31)} someone opened a shell on a cluster host\n`,
    );
    stdout.write(`  The receiver listens at ${push.url} and checks each post's X-MMS-Signature.\n`);
    const pushed = {
      eventTypeName: String(event.eventTypeName),
      groupId: project.id,
      orgId: project.orgId,
      created: String(event.created),
    };
    const [signed, forged] = await Promise.all([
      new WebhookSender({ url: push.url, secret, delayMs: DEMO_PUSH_DELAY_MS }).push(pushed),
      new WebhookSender({ url: push.url, secret: randomBytes(20).toString('base64url') }).push(pushed),
    ]);
    stdout.write(
      `  a post with a forged signature:                      ${forged} (refused, nothing queued)\n`,
    );
    stdout.write(
      `  Atlas's signed post, ${(DEMO_PUSH_DELAY_MS / 1_000).toFixed(1)} s after the event:          ${signed} (the project queued for a poll)\n`,
    );
    if (signed !== 202 || forged !== 401) {
      throw new Error(`the receiver answered ${signed} to the signed push and ${forged} to the forged one`);
    }
    const sources = await push.take();
    stdout.write(`  push: polling ${sources.map((source) => source.name).join(', ')}, up to now\n\n`);
    const summary = await runTick(poll.deps, {
      config: settings.config,
      owner: `demo:${process.pid}:push`,
      sources,
      woken: sources,
    });
    return { summary, elapsedMs: clock.now() - created };
  } finally {
    await push.close();
  }
}
