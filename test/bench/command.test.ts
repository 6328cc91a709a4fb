import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { type BenchReport, main, parseBenchArgs } from '../../bench/run.js';
import { currentNodeRuntime, majorOf, runScriptOn } from '../../bench/support/node-runtime.js';

function sink(): { stream: Writable; text: () => string } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      chunks.push(String(chunk));
      done();
    },
  });
  return { stream, text: () => chunks.join('') };
}

describe('parseBenchArgs', () => {
  it('reads the scale, the scenarios, the output file and strictness', () => {
    const args = parseBenchArgs(['--quick', '--only', 'digest, rules', '--out', '/tmp/x.json', '--strict']);

    expect(args).toEqual({
      quick: true,
      only: ['digest', 'rules'],
      out: '/tmp/x.json',
      strict: true,
      node: undefined,
      compareNode: undefined,
      timeLimitMinutes: undefined,
      help: false,
    });
  });

  it('reads the most a scenario may take, in minutes', () => {
    const args = parseBenchArgs(['--time-limit', '45']);

    expect(args.timeLimitMinutes).toBe(45);
  });

  it.each([['0'], ['1e3'], ['soon'], ['']])('refuses --time-limit %j, asking for minutes', (value) => {
    const act = (): unknown => parseBenchArgs(['--time-limit', value]);

    expect(act).toThrow(`--time-limit "${value}" is not a number of minutes: give one such as 30`);
  });

  it('reads the Node to run on and the Node to compare the cold start with', () => {
    const args = parseBenchArgs(['--node', '24', '--compare-node', '/usr/local/bin/node']);

    expect(args).toMatchObject({ node: 24, compareNode: '/usr/local/bin/node' });
  });

  it.each([['24.1'], ['v24'], ['latest'], ['0']])(
    'refuses --node %s, asking for a major version',
    (value) => {
      const act = (): unknown => parseBenchArgs(['--node', value]);

      expect(act).toThrow(`--node "${value}" is not a Node major version: give one such as 24`);
    },
  );

  it('defaults to every scenario at full size, written to bench/results.json', () => {
    const args = parseBenchArgs([]);

    expect(args).toMatchObject({ quick: false, only: undefined, strict: false });
    expect(args.out).toMatch(/bench[/\\]results\.json$/);
  });

  it('names an unknown scenario and lists the valid ones', () => {
    const act = (): unknown => parseBenchArgs(['--only', 'digest,speed']);

    expect(act).toThrow(
      '--only "digest,speed" names unknown scenarios (speed): choose from digest, backlog, paged-backlog, backlog-memory, steady-state, rules, cold-start, fan-out, push-latency',
    );
  });

  it('refuses an unknown option with the usage', () => {
    const act = (): unknown => parseBenchArgs(['--fast']);

    expect(act).toThrow(/Unknown option '--fast'[\s\S]*Usage: npm run bench/);
  });
});

describe('the bench command', () => {
  it('exits 2 on a bad option and prints why', async () => {
    const stdout = sink();
    const stderr = sink();

    const code = await main(['--only', 'nothing'], { stdout: stdout.stream, stderr: stderr.stream });

    expect(code).toBe(2);
    expect(stderr.text()).toContain('unknown scenarios (nothing)');
    expect(stdout.text()).toBe('');
  });

  it('runs the chosen scenarios, prints the table and writes the JSON file', async () => {
    const directory = await mkdtemp(join(tmpdir(), 'bench-command-'));
    const out = join(directory, 'results.json');
    const stdout = sink();
    try {
      const code = await main(['--quick', '--only', 'rules', '--out', out], {
        stdout: stdout.stream,
        stderr: sink().stream,
      });

      const written = JSON.parse(await readFile(out, 'utf8')) as BenchReport;
      expect(code).toBe(0);
      expect(written).toMatchObject({ scale: 'quick', scenarios: ['rules'], errors: {} });
      expect(written.results.rules).toHaveLength(3);
      // Two throughputs, and the default pack's costs per unmatched event and per alert.
      expect(written.targets).toHaveLength(4);
      expect(written.durations.rules?.limitSeconds).toBe(300);
      expect(stdout.text()).toContain('4. Rules');
      expect(stdout.text()).toContain(`Figures written to ${out}`);
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  }, 120_000);

  it('runs on the Node that started it when --node names that Node', async () => {
    const directory = await mkdtemp(join(tmpdir(), 'bench-command-'));
    const out = join(directory, 'results.json');
    try {
      const code = await main(
        ['--quick', '--only', 'rules', '--node', String(majorOf(process.version)), '--out', out],
        { stdout: sink().stream, stderr: sink().stream },
      );

      const written = JSON.parse(await readFile(out, 'utf8')) as BenchReport;
      expect(code).toBe(0);
      expect(written.node).toBe(process.version);
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  }, 120_000);

  it('says which --compare-node it cannot run, and exits 1', async () => {
    const stderr = sink();

    const code = await main(['--only', 'cold-start', '--compare-node', '/nonexistent/bin/node'], {
      stdout: sink().stream,
      stderr: stderr.stream,
    });

    expect(code).toBe(1);
    expect(stderr.text()).toContain(
      '--compare-node "/nonexistent/bin/node" is not a node binary that runs here: give its path or a major version such as 20',
    );
  });
});

describe('runScriptOn', () => {
  it("runs a TypeScript script on the given Node, that Node first on the PATH, with the script's output and exit code", async () => {
    const directory = await mkdtemp(join(tmpdir(), 'bench-run-script-'));
    const script = join(directory, 'report-runtime.ts');
    await writeFile(
      script,
      [
        "const firstOnPath: string = process.env.PATH?.split(':')[0] ?? '';",
        "process.stdout.write([process.execPath, firstOnPath, process.argv.slice(2).join(',')].join(' '));",
        "process.stderr.write('to stderr');",
        'process.exitCode = 3;',
      ].join('\n'),
    );
    const stdout = sink();
    const stderr = sink();
    try {
      const code = await runScriptOn(currentNodeRuntime(), script, ['a', 'b'], {
        stdout: stdout.stream,
        stderr: stderr.stream,
      });

      expect(code).toBe(3);
      expect(stdout.text()).toBe(`${process.execPath} ${dirname(process.execPath)} a,b`);
      expect(stderr.text()).toBe('to stderr');
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  }, 60_000);
});
