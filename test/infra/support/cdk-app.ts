import { spawnSync } from 'node:child_process';
import { PROJECT_ROOT } from './workspace.js';

/** How long an offline synth in a child process may take before it is killed (and a test using it). */
export const CDK_APP_TIMEOUT_MS = 240_000;

/**
 * Runs the CDK app the way `cdk synth` does, with the given context, no AWS credentials, no account or
 * region and no home directory: what synth can do offline. A synth takes seconds on a quiet machine;
 * the time limit allows for a busy one, where a killed synth would say nothing about the app.
 *
 * @example
 * ```ts
 * const run = runCdkApp({ ...cdkJsonContext(), config: 'infra/examples/config.example.yaml' }, outdir);
 * ```
 */
export function runCdkApp(
  context: Record<string, unknown>,
  outdir: string,
  timeoutMs = CDK_APP_TIMEOUT_MS,
): { status: number | null; stderr: string } {
  const result = spawnSync(process.execPath, ['--import', 'tsx', 'infra/app.ts'], {
    cwd: PROJECT_ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      CDK_OUTDIR: outdir,
      CDK_CONTEXT_JSON: JSON.stringify({ ...context, 'aws:cdk:bundling-stacks': [] }),
    },
    encoding: 'utf8',
    timeout: timeoutMs,
  });
  return { status: result.status, stderr: result.stderr };
}
