import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const bin = fileURLToPath(new URL('../../cli/bin.mjs', import.meta.url));
const FAKE_KEY = {
  MONGODB_ATLAS_PUBLIC_API_KEY: 'fakepub1',
  MONGODB_ATLAS_PRIVATE_API_KEY: 'fake-private-key-for-tests',
};

function runCli(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const env = { ...process.env, ...FAKE_KEY };
  const result = spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8', env });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('atlas-audit-alerts command', () => {
  it('prints its help and exits 0', () => {
    const { status, stdout } = runCli('--help');

    expect(status).toBe(0);
    expect(stdout).toContain('Usage: atlas-audit-alerts');
  });

  it('exits 2 on an unknown command, saying so in one line', () => {
    const { status, stderr } = runCli('no-such-command');

    expect(status).toBe(2);
    expect(stderr).toBe(
      "atlas-audit-alerts: unknown command 'no-such-command' (--help lists what the command takes)\n",
    );
  });

  it.each([
    [
      ['fetch', 'events', '--colour'],
      "atlas-audit-alerts: unknown option '--colour' (--help lists what the command takes)\n",
    ],
    [
      ['fetch', 'events', '--flavor', 'atlas-v3'],
      "atlas-audit-alerts: option '--flavor <flavor>' argument 'atlas-v3' is invalid. Allowed choices are ops-manager, atlas-v1, atlas-v2.\n",
    ],
  ])('prints a usage error in %j as one line, without the help, and exits 2', (args, line) => {
    const { status, stdout, stderr } = runCli(...args);

    expect(status).toBe(2);
    expect(stderr).toBe(line);
    expect(stdout).toBe('');
  });

  it('names the flag that allows plain http when it refuses a remote http:// base URL', () => {
    const { status, stdout, stderr } = runCli(
      'fetch',
      'events',
      '--org',
      '5f4e3d2c1b0a998877665544',
      '--base-url',
      'http://opsmanager.example.com',
    );

    expect(status).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toMatch(
      /^atlas-audit-alerts: baseUrl http:\/\/opsmanager\.example\.com is plain http .* \(--allow-insecure-http\)\n$/,
    );
    expect(stderr).not.toContain(FAKE_KEY.MONGODB_ATLAS_PRIVATE_API_KEY);
  });
});
