import type { TickSummary } from '../../shared/poll/index.js';

/**
 * Throws when a benchmark tick left a source in any state but `ok`, or read another number of new
 * events than the scenario put there: figures of a tick that failed part of its work mean nothing.
 *
 * @throws Error naming the tick, the number of sources that did not end ok, and the first of them.
 * @example
 * ```ts
 * checkTick(summary, { tick: 'backlog', eventsNew: 100_000 });
 * ```
 */
export function checkTick(summary: TickSummary, expect: { tick: string; eventsNew?: number }): void {
  const notOk = summary.sources.filter((source) => source.status !== 'ok');
  const readAll = expect.eventsNew === undefined || summary.totals.eventsNew === expect.eventsNew;
  if (notOk.length === 0 && readAll) return;
  const first = notOk[0];
  const events =
    expect.eventsNew === undefined ? '' : ` read ${summary.totals.eventsNew} of ${expect.eventsNew} events;`;
  const detail =
    first === undefined
      ? ''
      : ` (${first.source}: ${first.status} ${first.errorCode ?? first.reason ?? ''} ${first.message ?? ''})`;
  throw new Error(`the ${expect.tick} tick${events} left ${notOk.length} sources not ok${detail}`);
}
