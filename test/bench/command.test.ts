import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { type BenchReport, main, parseBenchArgs } from '../../bench/run.js';

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
      help: false,
    });
  });

  it('defaults to every scenario at full size, written to bench/results.json', () => {
    const args = parseBenchArgs([]);

    expect(args).toMatchObject({ quick: false, only: undefined, strict: false });
    expect(args.out).toMatch(/bench[/\\]results\.json$/);
  });

  it('names an unknown scenario and lists the valid ones', () => {
    const act = (): unknown => parseBenchArgs(['--only', 'digest,speed']);

    expect(act).toThrow(
      '--only "digest,speed" names unknown scenarios (speed): choose from digest, backlog, steady-state, rules, cold-start',
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
      expect(written.targets).toHaveLength(3);
      expect(stdout.text()).toContain('4. Rules');
      expect(stdout.text()).toContain(`Figures written to ${out}`);
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  }, 120_000);
});
