import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerBackfillCommand } from '../../cli/commands/backfill.js';
import { registerRunCommand } from '../../cli/commands/run.js';
import type { StopSignals } from '../../cli/stop-signals.js';
import { type AtlasSimulator, startSimulator } from '../../simulator/index.js';
import {
  CapturedOutput,
  expectedAlertFingerprints,
  fingerprintOf,
  type PollCommandRun,
  type RunPollCommandOptions,
  readOutbox,
  runPollCommand,
} from './poll-command-harness.js';

const CREDENTIALS = { publicKey: 'backfill', privateKey: 'fake-private-key-for-tests' } as const;
const ENV = {
  MONGODB_ATLAS_PUBLIC_API_KEY: CREDENTIALS.publicKey,
  MONGODB_ATLAS_PRIVATE_API_KEY: CREDENTIALS.privateKey,
};
/** In the default seed: the organization Acme Labs and its project research-sandbox. */
const ORG = '64b5c9e2f1a3d40012ab3c02';
const PROJECT = '64b5ca17f1a3d40012ab3d21';

let sim: AtlasSimulator;
let directory: string;
let expectedFingerprints: string[];

beforeAll(async () => {
  sim = await startSimulator({ ...CREDENTIALS });
  directory = await mkdtemp(join(tmpdir(), 'atlas-audit-alerts-backfill-test-'));
  expectedFingerprints = await expectedAlertFingerprints({
    baseUrl: sim.baseUrl,
    credentials: CREDENTIALS,
    orgIds: [ORG],
    projectIds: [PROJECT],
  });
});

afterAll(async () => {
  await sim?.stop();
  if (directory !== undefined) await rm(directory, { recursive: true, force: true });
});

interface Case {
  folder: string;
  run(args: readonly string[], options?: Partial<RunPollCommandOptions>): Promise<PollCommandRun>;
  backfill(since: string, options?: Partial<RunPollCommandOptions>): Promise<PollCommandRun>;
  outbox(): Promise<string[]>;
  watermarks(): Promise<Record<string, number>>;
}

/** One test's state file and outbox, and the two commands pointed at them. */
async function newCase(): Promise<Case> {
  const folder = await mkdtemp(join(directory, 'case-'));
  const outbox = join(folder, 'outbox.jsonl');
  const state = join(folder, 'state.json');
  const common = ['--base-url', sim.baseUrl, '--org', ORG, '--project', PROJECT];
  const targets = ['--state', `file:${state}`, '--notify', `outbox:${outbox}`];
  return {
    folder,
    run: (args, options = {}) =>
      runPollCommand(['run', ...common, ...targets, ...args], {
        env: ENV,
        cwd: folder,
        register: registerRunCommand,
        ...options,
      }),
    backfill: (since, options = {}) =>
      runPollCommand(['backfill', '--since', since, ...common, ...targets], {
        env: ENV,
        cwd: folder,
        register: registerBackfillCommand,
        ...options,
      }),
    outbox: async () => (await readOutbox(outbox)).map(fingerprintOf).sort(),
    watermarks: async () => {
      const document = JSON.parse(await readFile(state, 'utf8')) as {
        sources: Array<{ source: string; cursor?: { watermark: number } }>;
      };
      return Object.fromEntries(
        document.sources.map((record) => [record.source, record.cursor?.watermark ?? -1]),
      );
    },
  };
}

function isoHoursBeforeStart(hours: number): string {
  return new Date(sim.startedAt - hours * 3_600_000).toISOString();
}

describe('atlas-audit-alerts backfill', () => {
  it('reads the range again, alerting only on what was never alerted, and moves no cursor back', async () => {
    const test = await newCase();
    const recent = await test.run(['--lookback', '20m']);
    const afterRun = await test.outbox();
    const watermarksBefore = await test.watermarks();

    const backfill = await test.backfill(isoHoursBeforeStart(2));
    const afterBackfill = await test.outbox();
    const watermarksAfter = await test.watermarks();
    const again = await test.backfill(isoHoursBeforeStart(2));

    expect(recent.code).toBe(0);
    expect(afterRun.length).toBeGreaterThan(0);
    expect(afterRun.length).toBeLessThan(expectedFingerprints.length);
    expect(backfill.code).toBe(0);
    expect(backfill.stderr).toMatch(
      /^Backfill from \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z: Polling 1 org and 1 project at /,
    );
    expect(afterBackfill).toEqual(expectedFingerprints);
    for (const [source, watermark] of Object.entries(watermarksBefore)) {
      expect(watermarksAfter[source], source).toBeGreaterThanOrEqual(watermark);
    }
    expect(again.code).toBe(0);
    expect(again.stderr).toMatch(/· 0 alerts, \d+ already sent · /);
    expect(await test.outbox()).toEqual(expectedFingerprints);
  });

  it('reads --since as a duration back from now too, as fetch and rules replay do', async () => {
    const test = await newCase();
    const hours = Math.ceil((Date.now() - sim.startedAt) / 3_600_000) + 2;

    const backfill = await test.backfill(`${hours}h`);

    expect(backfill.code, backfill.stderr).toBe(0);
    const from = /^Backfill from (\S+): /.exec(backfill.stderr)?.[1] ?? '';
    expect(Math.abs(Date.parse(from) - (Date.now() - hours * 3_600_000))).toBeLessThan(60_000);
    expect(await test.outbox()).toEqual(expectedFingerprints);
  });

  it('draws a progress bar on a terminal and nothing on a pipe', async () => {
    const onTerminal = new CapturedOutput({ isTTY: true });
    const onPipe = new CapturedOutput();

    const terminal = await (await newCase()).backfill(isoHoursBeforeStart(2), { stderr: onTerminal });
    const pipe = await (await newCase()).backfill(isoHoursBeforeStart(2), { stderr: onPipe });

    expect(terminal.code).toBe(0);
    expect(terminal.stderr).toContain('\r\u001b[2K');
    expect(terminal.stderr).toMatch(/[█░]{24} +\d+% {2}\d+ events {2}(org|project):[0-9a-f]{24} at /);
    expect(terminal.stderr).toContain('\r\u001b[2Ktick ');
    expect(pipe.code).toBe(0);
    expect(pipe.stderr).not.toContain('\r');
  });

  it('stops at once on a signal, keeping the cursors, and exits 1', async () => {
    const test = await newCase();
    const signalAtOnce: StopSignals = {
      subscribe: (listener) => {
        listener('SIGINT');
        return () => {};
      },
    };

    const stopped = await test.backfill(isoHoursBeforeStart(2), { signals: signalAtOnce });

    expect(stopped.code).toBe(1);
    expect(stopped.stderr).toContain('SIGINT: stopping; unfinished sources keep their cursors');
    expect(stopped.stderr).toMatch(/\(\d+ ok, 2 cut short\)/);
    expect(stopped.stderr).toMatch(
      /atlas-audit-alerts: the backfill was stopped before the end: run it again to finish\n$/,
    );
    expect(await test.outbox()).toEqual([]);
  });

  it.each([
    ['yesterday', /--since/],
    [
      new Date(Date.now() + 3_600_000).toISOString(),
      /--since .* is not in the past: give an earlier instant/,
    ],
  ])('exits 2 for --since %s', async (since, message) => {
    const result = await (await newCase()).backfill(since);

    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
  });

  it('exits 2 without --since', async () => {
    const test = await newCase();

    const result = await runPollCommand(['backfill', '--org', ORG], {
      env: ENV,
      cwd: test.folder,
      register: registerBackfillCommand,
    });

    expect(result.code).toBe(2);
    expect(result.stderr).toContain("required option '--since <when>' not specified");
  });
});
