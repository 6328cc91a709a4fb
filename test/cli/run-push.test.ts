import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerRunCommand } from '../../cli/commands/run.js';
import { parseListenAddress, WEBHOOK_SECRET_ENV } from '../../cli/push-listener.js';
import { type AtlasSimulator, startSimulator } from '../../simulator/index.js';
import { WebhookSender } from '../../simulator/webhook-sender.js';
import { alertingEvent } from '../poll/support/poll-fixture.js';
import {
  CapturedOutput,
  fingerprintOf,
  ManualStopSignals,
  readOutbox,
  runPollCommand,
} from './poll-command-harness.js';

const CREDENTIALS = { publicKey: 'runtests', privateKey: 'fake-private-key-for-tests' } as const;
const WEBHOOK_SECRET = 'fake-local-webhook-secret-0123456789';
const ENV = {
  MONGODB_ATLAS_PUBLIC_API_KEY: CREDENTIALS.publicKey,
  MONGODB_ATLAS_PRIVATE_API_KEY: CREDENTIALS.privateKey,
  [WEBHOOK_SECRET_ENV]: WEBHOOK_SECRET,
};
/** In the default seed: the organization Acme Labs and its project research-sandbox. */
const ORG = '64b5c9e2f1a3d40012ab3c02';
const PROJECT = '64b5ca17f1a3d40012ab3d21';

let sim: AtlasSimulator;
let directory: string;

beforeAll(async () => {
  sim = await startSimulator({ ...CREDENTIALS });
  directory = await mkdtemp(join(tmpdir(), 'atlas-audit-alerts-run-push-'));
});

afterAll(async () => {
  await sim?.stop();
  if (directory !== undefined) await rm(directory, { recursive: true, force: true });
});

async function waitFor(
  condition: () => boolean | Promise<boolean>,
  what: string,
  timeoutMs = 15_000,
): Promise<void> {
  const started = Date.now();
  while (!(await condition())) {
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe('atlas-audit-alerts run --push-listen', () => {
  it('polls a pushed project at once, between hourly ticks, and delivers its alert once', async () => {
    const folder = await mkdtemp(join(directory, 'case-'));
    const outbox = join(folder, 'outbox.jsonl');
    const signals = new ManualStopSignals();
    const stderr = new CapturedOutput();
    const running = runPollCommand(
      [
        'run',
        '--base-url',
        sim.baseUrl,
        '--org',
        ORG,
        '--project',
        PROJECT,
        '--state',
        `file:${join(folder, 'state.json')}`,
        '--notify',
        `outbox:${outbox}`,
        // The default lag (30 s): the poll a push wakes reads up to now all the same (docs/push.md).
        '--every',
        '1h',
        '--push-listen',
        '127.0.0.1:0',
      ],
      { env: ENV, cwd: folder, signals, stderr, register: registerRunCommand },
    );
    await waitFor(() => /^tick /m.test(stderr.text), 'the first tick');
    const url = /pushes taken at (http:\/\/\S+)\n/.exec(stderr.text)?.[1] ?? '';
    const before = (await readOutbox(outbox)).length;

    const event = sim.addEvent({ groupId: PROJECT }, alertingEvent(Math.floor(Date.now() / 1_000) * 1_000));
    const sender = new WebhookSender({ url, secret: WEBHOOK_SECRET, delayMs: 1_200, seed: 3 });
    const forged = new WebhookSender({ url, secret: 'not-the-secret', seed: 4 });
    const pushedAt = Date.now();
    const statuses = await Promise.all([
      sender.push({
        eventTypeName: event.eventTypeName ?? '',
        groupId: PROJECT,
        orgId: ORG,
        created: event.created ?? '',
      }),
      forged.push({
        eventTypeName: 'NETWORK_PERMISSION_ENTRY_ADDED',
        groupId: PROJECT,
        orgId: ORG,
        created: event.created ?? '',
      }),
    ]);
    await waitFor(async () => (await readOutbox(outbox)).length > before, 'the pushed alert');
    const deliveredMs = Date.now() - pushedAt;
    signals.send('SIGINT');
    const result = await running;
    const alerts = (await readOutbox(outbox)).slice(before);

    expect(statuses).toEqual([202, 401]);
    expect(alerts).toHaveLength(1);
    expect(fingerprintOf(alerts[0] ?? {})).toContain(event.id);
    // The schedule is hourly: only the push can have polled it, within seconds of the event.
    expect(deliveredMs).toBeLessThan(10_000);
    expect(result.stderr).toContain(`push: polling project:${PROJECT}\n`);
    expect(result.stderr.match(/^tick /gm)).toHaveLength(2);
    expect(result.stderr).not.toContain(WEBHOOK_SECRET);
    expect(result.code).toBe(0);
  }, 60_000);

  it('refuses to run without the webhook secret, or with --once', async () => {
    const folder = await mkdtemp(join(directory, 'case-'));
    const args = [
      'run',
      '--base-url',
      sim.baseUrl,
      '--org',
      ORG,
      '--state',
      `file:${join(folder, 's.json')}`,
    ];

    const noSecret = await runPollCommand([...args, '--every', '1h', '--push-listen', '0'], {
      env: { ...ENV, [WEBHOOK_SECRET_ENV]: '' },
      cwd: folder,
      register: registerRunCommand,
    });
    const once = await runPollCommand([...args, '--once', '--push-listen', '0'], {
      env: ENV,
      cwd: folder,
      register: registerRunCommand,
    });

    expect(noSecret.code).toBe(2);
    expect(noSecret.stderr).toContain(`set ${WEBHOOK_SECRET_ENV}`);
    expect(once.code).toBe(2);
    expect(once.stderr).toContain('--push-listen needs a run that keeps going');
  });
});

describe('parseListenAddress', () => {
  it('reads HOST:PORT, a port alone, and a bracketed IPv6 host', () => {
    expect(parseListenAddress('0.0.0.0:8787')).toEqual({ host: '0.0.0.0', port: 8787 });
    expect(parseListenAddress('8787')).toEqual({ host: '127.0.0.1', port: 8787 });
    expect(parseListenAddress('[::1]:8787')).toEqual({ host: '::1', port: 8787 });
  });

  it.each(['', 'localhost', '127.0.0.1:', '127.0.0.1:99999', 'http://127.0.0.1:8787'])(
    'refuses %j',
    (value) => {
      expect(() => parseListenAddress(value)).toThrow(/--push-listen .* is not an address to listen on/);
    },
  );
});
