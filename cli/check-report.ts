import type { CheckResult, CheckStatus } from './preflight-checks.js';

const LABELS: Readonly<Record<CheckStatus, string>> = { ok: 'ok', warn: 'warn', fail: 'FAIL', skip: 'skip' };

/**
 * The preflight as text: one line per check (`ok   credentials: Atlas accepts the API key...`), then
 * a count line. Plain ASCII, no colour, so it reads the same in a terminal, a CI log and a pipe.
 *
 * @example
 * ```ts
 * process.stdout.write(formatCheckReport(results));
 * ```
 */
export function formatCheckReport(results: readonly CheckResult[]): string {
  const lines = results.map(
    (result) =>
      `${LABELS[result.status].padEnd(4)} ${result.connection === undefined ? '' : `connection ${result.connection}: `}${result.subject}: ${result.message}`,
  );
  const count = (status: CheckStatus): number => results.filter((result) => result.status === status).length;
  const failed = count('fail');
  lines.push(
    `${failed === 0 ? 'ready' : 'not ready'}: ${count('ok')} ok, ${count('warn')} ${count('warn') === 1 ? 'warning' : 'warnings'}, ${failed} failed, ${count('skip')} skipped`,
  );
  return `${lines.join('\n')}\n`;
}

/**
 * The preflight as one JSON document: `{ ready, checks: [...] }`, each check as {@link CheckResult}.
 *
 * @example
 * ```ts
 * JSON.parse(formatCheckJson(results)).ready; // false when a check failed
 * ```
 */
export function formatCheckJson(results: readonly CheckResult[]): string {
  const ready = results.every((result) => result.status !== 'fail');
  return `${JSON.stringify({ ready, checks: results }, null, 2)}\n`;
}
