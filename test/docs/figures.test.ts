import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerBackfillCommand } from '../../cli/commands/backfill.js';
import { registerRulesCommand } from '../../cli/commands/rules.js';
import { registerRunCommand } from '../../cli/commands/run.js';
import type { PollCommandIo } from '../../cli/poll-command-io.js';
import { type AtlasSimulator, startSimulator } from '../../simulator/index.js';
import {
  CapturedOutput,
  ManualStopSignals,
  type PollCommandRun,
  runPollCommand,
} from '../cli/poll-command-harness.js';
import { type CodeBlock, codeBlocks, docPage, REPO_ROOT } from './support/markdown.js';
import { shellWords } from './support/shell-commands.js';

/** The simulator's throwaway key of the default seed, as the docs export it. */
const ENV = {
  MONGODB_ATLAS_PUBLIC_API_KEY: 'qkzvbgyt',
  MONGODB_ATLAS_PRIVATE_API_KEY: 'fake-private-key-ci-automation',
};
/** Where the docs' sessions ran: their folders are `first`, `config` and `backfill` under it. */
const DOCS_ROOT = '/tmp/atlas-audit-alerts-try';

/** One `$ command` of a console block, continuation lines joined, with the lines shown after it. */
interface Shown {
  block: CodeBlock;
  command: string;
  output: string[];
}

function commandsOf(block: CodeBlock): Shown[] {
  const lines = block.code.split('\n');
  const found: Shown[] = [];
  for (let index = 0; index < lines.length; index += 1) {
    let line = lines[index] ?? '';
    if (!line.startsWith('$ ')) continue;
    line = line.slice(2);
    while (line.trimEnd().endsWith('\\') && index + 1 < lines.length) {
      index += 1;
      line = `${line.trimEnd().slice(0, -1)} ${(lines[index] ?? '').trim()}`;
    }
    const output: string[] = [];
    while (index + 1 < lines.length && !(lines[index + 1] ?? '').startsWith('$ ')) {
      index += 1;
      if ((lines[index] ?? '') !== '') output.push(lines[index] ?? '');
    }
    found.push({ block, command: line, output });
  }
  return found;
}

/** Whether the actual lines are those shown, `…` or `...` standing for any run of lines. */
function matchesShown(shown: readonly string[], actual: readonly string[]): boolean {
  const [first, ...rest] = shown;
  if (first === undefined) return actual.length === 0;
  if (first === '...' || first === '…') {
    return actual.some((_, skip) => matchesShown(rest, actual.slice(skip))) || matchesShown(rest, []);
  }
  return actual[0] === first && matchesShown(rest, actual.slice(1));
}

let sim: AtlasSimulator;
let scratch: string;

beforeAll(async () => {
  sim = await startSimulator();
  scratch = await mkdtemp(join(tmpdir(), 'atlas-audit-alerts-figures-'));
});

afterAll(async () => {
  await sim?.stop();
  if (scratch !== undefined) await rm(scratch, { recursive: true, force: true });
});

/**
 * What varies from one session to the next: the simulator's port, the folders, times and durations,
 * and request counts (the read-ahead and the batching of claims depend on timing). Sources, events
 * and alerts do not.
 */
function normalize(line: string, baseUrl: string): string {
  return line
    .replace(/· Atlas \d+ requests? · state \d+ requests? ·/, '· Atlas N requests · state N requests ·')
    .replaceAll(baseUrl, 'http://127.0.0.1:PORT')
    .replace(/http:\/\/127\.0\.0\.1:\d+/g, 'http://127.0.0.1:PORT')
    .replaceAll(scratch, DOCS_ROOT)
    .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d+)?)?Z/g, 'TIME')
    .replace(/\b\d\d:\d\d:\d\dZ\b/g, 'TIME')
    .replace(/\b[0-9a-f]{8}([0-9a-f]{16})\b/g, '________$1')
    .replace(/ \d+\.\d s$/, ' N.N s');
}

function register(program: Command, io: PollCommandIo): void {
  registerRunCommand(program, io);
  registerBackfillCommand(program, io);
  registerRulesCommand(program, io);
}

/** Runs a documented command line in `cwd`, as the docs did; `--every` stops after its first tick. */
async function runShown(command: string, cwd: string, baseUrl = sim.baseUrl): Promise<PollCommandRun> {
  // Windows end on whole seconds: a tick in the same second as the last finds its sources up to date
  // and reads nothing, where the docs' sessions, seconds apart, read the overlap again. Start in the
  // next second, as they did.
  await new Promise((resolve) => setTimeout(resolve, 1_001 - (Date.now() % 1_000)));
  const args = shellWords(command).slice(1);
  const url = args.indexOf('--base-url');
  if (url !== -1) args[url + 1] = baseUrl;
  if (!args.includes('--every')) return runPollCommand(args, { register, env: ENV, cwd });
  const signals = new ManualStopSignals();
  const stderr = new CapturedOutput();
  const running = runPollCommand(args, { register, env: ENV, cwd, signals, stderr });
  const started = Date.now();
  while (!/^tick /m.test(stderr.text)) {
    if (Date.now() - started > 30_000) throw new Error(`no tick from ${command}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  signals.send('SIGINT');
  return running;
}

describe('the sessions of docs/local.md', () => {
  const blocks = codeBlocks(docPage('docs/local.md')).filter((block) => block.lang === 'console');
  const shown = blocks.flatMap(commandsOf);

  it('find the commands they show', () => {
    expect(shown.filter((item) => item.command.startsWith('atlas-audit-alerts ')).length).toBe(5);
  });

  it('print the headers, tick reports and alert counts that the commands print today', async () => {
    const problems: string[] = [];
    let folder = scratch;
    // Each folder is a session of its own, on a simulator started for it as the page's were: the seed's
    // events are dated from the simulator's start, and the overlap a later tick reads again with them.
    let session: { folder: string; sim: AtlasSimulator } | undefined;
    try {
      for (const item of shown) {
        // The first line a run prints names the state file, in the folder that session ran in.
        const state = item.output
          .map((line) => /state file:(\S+)\/\.atlas-audit-alerts\//.exec(line)?.[1])
          .find(Boolean);
        if (state !== undefined) folder = join(scratch, state.slice(DOCS_ROOT.length + 1));
        await mkdir(folder, { recursive: true });
        if (item.command === 'wc -l < alerts.jsonl') {
          const lines = (await readFile(join(folder, 'alerts.jsonl'), 'utf8')).split('\n').filter(Boolean);
          if (item.output[0] !== String(lines.length)) {
            problems.push(`${item.command}: shows ${item.output[0]}, counts ${lines.length}`);
          }
          continue;
        }
        if (item.command.includes('--config run.example.yaml')) {
          await copyFile(join(REPO_ROOT, 'cli/examples/run.example.yaml'), join(folder, 'run.example.yaml'));
        }
        if (session?.folder !== folder) {
          await session?.sim.stop();
          session = { folder, sim: await startSimulator() };
        }
        const run = await runShown(item.command, folder, session.sim.baseUrl);
        const actual = [...run.stderr.split('\n'), ...run.stdout.split('\n')].map((line) =>
          normalize(line, sim.baseUrl),
        );
        const alerts = (run.stdout.match(/^Subject: /gm) ?? []).length;
        for (const line of item.output) {
          const placeholder = /^\[\.\.\. the (\d+) alerts?,/.exec(line);
          if (placeholder !== null) {
            if (Number(placeholder[1]) !== alerts)
              problems.push(`${item.command}: shows ${line}, prints ${alerts}`);
            continue;
          }
          if (!/^(Polling|Backfill from|tick |SIGINT)/.test(line)) continue;
          const expected = normalize(line, sim.baseUrl);
          if (!actual.includes(expected)) {
            problems.push(
              `${item.command}:\n  shows  ${expected}\n  prints ${actual.find((found) => found.startsWith(expected.slice(0, 12))) ?? '(nothing like it)'}`,
            );
          }
        }
      }
    } finally {
      await session?.sim.stop();
    }

    expect(problems).toEqual([]);
  });
});

describe('the replay of docs/rules.md', () => {
  const page = docPage('docs/rules.md');
  const section = page.text.split('## Replay rules over past events')[1] ?? '';
  const sectionPage = { path: page.path, text: section };
  const layer = codeBlocks(sectionPage).find((block) => block.lang === 'yaml');
  const [replay] = codeBlocks(sectionPage)
    .filter((block) => block.lang === 'console')
    .flatMap(commandsOf)
    .filter((item) => item.command.startsWith('atlas-audit-alerts rules replay'));

  it('compares the built-in pack with a layer over it, as the page teaches, and prints what it shows', async () => {
    const folder = join(scratch, 'replay');
    await mkdir(join(folder, 'my-rules'), { recursive: true });
    await writeFile(join(folder, 'my-rules', 'tuning.yaml'), layer?.code ?? '');

    const run = await runShown(replay?.command ?? '', folder);

    expect(replay?.command).toMatch(/--compare builtin my-rules$/);
    expect(run.code, run.stderr).toBe(0);
    const progress = (line: string) => /^read |^Replayed \d+ events?: /.test(line);
    const shownStdout = (replay?.output ?? []).filter((line) => !progress(line));
    const shownStderr = (replay?.output ?? []).filter(progress);
    // The page's blocks leave out blank lines, as commandsOf reads them.
    const stdout = run.stdout.split('\n').filter((line) => line !== '');
    const stderr = run.stderr.split('\n').filter((line) => line !== '');
    const normal = (lines: readonly string[]) => lines.map((line) => normalize(line, sim.baseUrl));
    expect(matchesShown(normal(shownStdout), normal(stdout)), stdout.join('\n')).toBe(true);
    // Sources are read side by side: their lines come in the order they finish.
    expect(normal(shownStderr).sort()).toEqual(normal(stderr).sort());
  });
});
