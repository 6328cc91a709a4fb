import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_LOAD_RESULTS,
  monthlyCost,
  pollerMemoryForBacklog,
  readMeasuredLoad,
  renderCostReport,
  stackDefaults,
} from '../../bench/cost-model.js';

const DOC = new URL('../../docs/load.md', import.meta.url);

async function measuredLoad(): Promise<ReturnType<typeof readMeasuredLoad>> {
  return readMeasuredLoad(JSON.parse(await readFile(DEFAULT_LOAD_RESULTS, 'utf8')), DEFAULT_LOAD_RESULTS);
}

describe('the cost model', () => {
  it('prints the report docs/load.md shows', async () => {
    const doc = await readFile(DOC, 'utf8');
    const shown = /<!-- cost-report:start -->\n```text\n([\s\S]*?)```\n<!-- cost-report:end -->/.exec(
      doc,
    )?.[1];

    expect(shown).toBe(renderCostReport(await measuredLoad()));
  });

  it('finds the default memory enough for the measured backlog tick within the default timeout', async () => {
    const load = await measuredLoad();
    const defaults = stackDefaults();

    expect(defaults.memoryMiB).toBeGreaterThanOrEqual(
      pollerMemoryForBacklog({ cpuMs: load.backlog.cpuMs, timeoutSeconds: defaults.timeoutSeconds }),
    );
  });

  it('sizes memory from CPU: a minute of CPU in a 180 s timeout needs 1,280 MiB', () => {
    expect(pollerMemoryForBacklog({ cpuMs: 60_000, timeoutSeconds: 180 })).toBe(1_280);
    expect(pollerMemoryForBacklog({ cpuMs: 1, timeoutSeconds: 180 })).toBe(128);
  });

  it('costs five times less on a 5-minute schedule, and ten times more for ten times the projects', async () => {
    const load = await measuredLoad();
    const at = (projects: number, scheduleMinutes: number): number =>
      monthlyCost({ load, projects, scheduleMinutes, memoryMiB: 384, concurrency: 4 }).dynamoDb;

    expect(at(100, 1) / at(100, 5)).toBeCloseTo(5, 6);
    expect(at(1_000, 5) / at(100, 5)).toBeCloseTo(10, 6);
  });

  it('names the file and the command when a figure is missing', () => {
    expect(() => readMeasuredLoad({ results: {} }, 'bench/x.json')).toThrow(
      'bench/x.json has no steadyState.dynamoDb.byOperation: run npm run bench -- --only backlog,steady-state --out bench/x.json',
    );
  });
});
