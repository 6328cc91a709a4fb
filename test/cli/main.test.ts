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

  it('exits 2 on an unknown command', () => {
    const { status, stderr } = runCli('no-such-command');

    expect(status).toBe(2);
    expect(stderr).toMatch(/error/i);
  });
});
