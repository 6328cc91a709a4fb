import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const bin = fileURLToPath(new URL('../../cli/bin.mjs', import.meta.url));

function runCli(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8' });
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
});
