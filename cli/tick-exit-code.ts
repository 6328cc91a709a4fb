import { SEVERITIES } from '../shared/notify/index.js';
import type { TickSummary } from '../shared/poll/index.js';
import { ExitCode, type ExitCodeValue } from './errors.js';

/** A failure, as far as its exit code goes. */
export interface Failure {
  httpStatus?: number | undefined;
  errorCode?: string | undefined;
}

/** Error codes of failures that more retries, or a later run, may get past. */
const TRANSIENT_CODES = new Set(['ATLAS_NETWORK', 'ATLAS_RATE_LIMITED', 'ATLAS_SERVER', 'ATLAS_RESPONSE']);

/**
 * The exit code of a local tick, as `cli/errors.ts` defines them: 0 when every source, discovery and
 * inventory went well (a source another worker holds counts as well); else 3 when Atlas refused the
 * credentials or permissions, 4 for an unknown org or project, 5 when the network or rate limits
 * outlasted the retries; 1 for anything else, for failures of mixed kinds, and for alerts that were
 * not delivered.
 *
 * @example
 * ```ts
 * process.exitCode = exitCodeForTick(summary);
 * ```
 */
export function exitCodeForTick(summary: TickSummary): ExitCodeValue {
  const failures: Failure[] = [
    ...summary.sources.filter((outcome) => outcome.status === 'failed'),
    ...summary.discovery.filter((discovery) => discovery.status === 'failed'),
    ...summary.sources.flatMap((outcome) =>
      outcome.inventory?.status === 'failed' ? [outcome.inventory] : [],
    ),
  ];
  const undelivered = SEVERITIES.some((severity) => summary.totals.alerts.failed[severity] > 0);
  if (failures.length === 0) return undelivered ? ExitCode.failed : ExitCode.ok;
  return exitCodeForFailures(failures);
}

/**
 * The exit code of failures, as a tick's: the code their kind has when all have the same kind (3 for
 * refused credentials or permissions, 4 for an unknown org or project, 5 for the network or rate
 * limits), else 1. What `check` exits with, so a refused key exits 3 from `check`, `fetch` and `run`.
 *
 * @example
 * ```ts
 * exitCodeForFailures([{ httpStatus: 401 }]); // 3
 * ```
 */
export function exitCodeForFailures(failures: readonly Failure[]): ExitCodeValue {
  const codes = new Set(failures.map(exitCodeOfFailure));
  const [only] = codes;
  return codes.size === 1 && only !== undefined ? only : ExitCode.failed;
}

function exitCodeOfFailure(failure: Failure): ExitCodeValue {
  const status = failure.httpStatus;
  if (status === 401 || status === 403) return ExitCode.auth;
  if (status === 404) return ExitCode.notFound;
  if (status === 429 || (status !== undefined && status >= 500)) return ExitCode.network;
  if (failure.errorCode !== undefined && TRANSIENT_CODES.has(failure.errorCode)) return ExitCode.network;
  return ExitCode.failed;
}
