import { ALERT_DETAIL_SCHEMA_VERSION, type SourceHealthDetail } from '../notify/alert-detail.js';
import { DEFAULT_CONNECTION } from './connections.js';
import type { TickSummary } from './tick-types.js';

/**
 * The health entries of a tick: one per source whose health changed (see `SourceHealth`), with the
 * error of its failed turn, stamped with the tick's end.
 *
 * @example
 * ```ts
 * const summary = await runTick(deps, options);
 * await bus.publishHealth(sourceHealthDetails(summary));
 * ```
 */
export function sourceHealthDetails(summary: TickSummary): SourceHealthDetail[] {
  const at = new Date(summary.finishedAt).toISOString();
  return summary.sources.flatMap((source) => {
    if (source.health === undefined) return [];
    const failed = source.health !== 'recovered';
    return [
      {
        schemaVersion: ALERT_DETAIL_SCHEMA_VERSION,
        state: source.health,
        source: source.source.slice(0, 512),
        connection: source.connection ?? DEFAULT_CONNECTION,
        error: failed
          ? {
              code: (source.errorCode ?? 'UNEXPECTED_ERROR').slice(0, 2_048),
              message: (source.message ?? 'the source failed').slice(0, 2_048),
              httpStatus: source.httpStatus ?? null,
            }
          : null,
        at,
      },
    ];
  });
}
