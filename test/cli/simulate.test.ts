import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { DigestSession } from '../simulator/support/digest-client.js';

const bin = fileURLToPath(new URL('../../cli/bin.mjs', import.meta.url));

interface Running {
  child: ChildProcessWithoutNullStreams;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<number | null>;
}

function runSimulate(...args: string[]): Running {
  const child = spawn(process.execPath, [bin, 'simulate', ...args], {
    env: { ...process.env, NO_COLOR: '1' },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString('utf8');
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const exited = new Promise<number | null>((resolve) => {
    child.on('exit', (code) => {
      resolve(code);
    });
  });
  return { child, stdout: () => stdout, stderr: () => stderr, exited };
}

async function waitForOutput(running: Running, pattern: RegExp): Promise<RegExpMatchArray> {
  for (let waited = 0; waited < 20_000; waited += 50) {
    const match = pattern.exec(running.stdout());
    if (match) return match;
    if (running.child.exitCode !== null) break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`simulate printed no ${pattern}: stdout ${running.stdout()} stderr ${running.stderr()}`);
}

describe('simulate command', () => {
  const started: Running[] = [];

  afterEach(() => {
    for (const running of started.splice(0)) {
      if (running.child.exitCode === null) running.child.kill('SIGKILL');
    }
  });

  it('prints its base URL, credentials and ids, serves requests, and stops cleanly on SIGTERM', async () => {
    const running = runSimulate('--port', '0');
    started.push(running);
    await waitForOutput(running, /Press Ctrl\+C to stop\./);
    const baseUrl = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(running.stdout())?.[1] ?? '';
    const publicKey = /public key (\S+)/.exec(running.stdout())?.[1] ?? '';
    const privateKey = /private key (\S+)/.exec(running.stdout())?.[1] ?? '';
    const orgId = /Organizations:\n {2}([0-9a-f]{24})/.exec(running.stdout())?.[1] ?? '';
    const served = await new DigestSession({ username: publicKey, password: privateKey }).get(
      `${baseUrl}/api/atlas/v2/orgs/${orgId}/events`,
    );

    running.child.kill('SIGTERM');
    const code = await running.exited;

    expect(served.status).toBe(200);
    expect(running.stdout()).toContain('throwaway test values');
    expect(running.stdout()).toContain(`export MONGODB_ATLAS_PUBLIC_API_KEY=${publicKey}`);
    expect(running.stdout()).toContain(`fetch events --base-url ${baseUrl} --flavor atlas-v2 --project `);
    expect(code).toBe(0);
    expect(running.stderr()).toContain('Atlas simulator stopped (SIGTERM).');
  });

  it('prints the connection details as one JSON line with --json, using the given credential', async () => {
    const running = runSimulate(
      '--json',
      '--public-key',
      'clikeyab',
      '--private-key',
      'fake-private-key-for-tests',
    );
    started.push(running);

    const [line] = await waitForOutput(running, /^\{.*\}\n/);
    running.child.kill('SIGINT');
    const code = await running.exited;

    expect(JSON.parse(line)).toMatchObject({
      baseUrl: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/),
      credentials: { publicKey: 'clikeyab', privateKey: 'fake-private-key-for-tests' },
      orgIds: expect.arrayContaining([expect.stringMatching(/^[0-9a-f]{24}$/)]),
    });
    expect(code).toBe(0);
  });

  it('exits 2 naming the field when the data file is invalid', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'simulate-cli-'));
    try {
      const file = join(dir, 'seed.json');
      await writeFile(file, JSON.stringify({ orgs: [{ id: 'nope', name: 'x' }] }));
      const running = runSimulate('--data', file);

      const code = await running.exited;

      expect(code).toBe(2);
      expect(running.stderr()).toContain('orgs[0].id');
      expect(running.stdout()).toBe('');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('exits 2 for a public key without a private key', async () => {
    const running = runSimulate('--public-key', 'lonelykey');

    const code = await running.exited;

    expect(code).toBe(2);
    expect(running.stderr()).toContain('--public-key and --private-key together');
  });
});
