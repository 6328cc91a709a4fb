import { describe, expect, it } from 'vitest';
import { SimulatorOptionsError } from '../../simulator/errors.js';
import { generateEvents } from '../../simulator/event-generator.js';
import { createObjectIdGenerator } from '../../simulator/object-id.js';
import { DEFAULT_SEED_PATH, loadSeedFile } from '../../simulator/seed-loader.js';
import { SimulatorData } from '../../simulator/simulator-data.js';

const NOW = Date.parse('2026-03-01T12:00:00Z');

async function freshData(): Promise<SimulatorData> {
  return new SimulatorData({
    seed: await loadSeedFile(DEFAULT_SEED_PATH),
    startedAt: NOW,
    ids: createObjectIdGenerator({ seed: 1 }),
  });
}

function projectEvents(data: SimulatorData, projectIds: readonly string[]): unknown[] {
  return projectIds.flatMap((id) => {
    const log = data.projects.get(id)?.log;
    return Array.from({ length: log?.size ?? 0 }, (_, i) => log?.at(i)?.body);
  });
}

describe('generateEvents', () => {
  it('gives the same events and ids for the same seed', async () => {
    const first = await freshData();
    const second = await freshData();

    const a = generateEvents(first, { count: 2_000, projects: 8, seed: 42 }, NOW);
    const b = generateEvents(second, { count: 2_000, projects: 8, seed: 42 }, NOW);

    expect(b.projectIds).toEqual(a.projectIds);
    expect(projectEvents(second, b.projectIds)).toEqual(projectEvents(first, a.projectIds));
  });

  it('gives different events for another seed', async () => {
    const first = await freshData();
    const second = await freshData();

    const a = generateEvents(first, { count: 500, projects: 8, seed: 1 }, NOW);
    const b = generateEvents(second, { count: 500, projects: 8, seed: 2 }, NOW);

    expect(projectEvents(second, b.projectIds)).not.toEqual(projectEvents(first, a.projectIds));
  });

  it('creates projects beyond the seeded ones and spreads the events over all of them', async () => {
    const data = await freshData();
    const seeded = data.projects.size;
    const before = projectEvents(data, [...data.projects.keys()]).length;

    const result = generateEvents(data, { count: 10_000, projects: 20, seed: 3, spanMs: 600_000 }, NOW);

    expect(result.projectIds).toHaveLength(20);
    expect(data.projects.size).toBe(20);
    expect(result.projectIds.slice(0, seeded)).toEqual([...data.projects.keys()].slice(0, seeded));
    expect(projectEvents(data, result.projectIds).length - before).toBe(10_000);
    expect(result.projectIds.every((id) => (data.projects.get(id)?.log.size ?? 0) > 0)).toBe(true);
    expect(result.projectCounts.reduce((sum, count) => sum + count, 0)).toBe(10_000);
    expect(result.projectCounts.slice(seeded)).toEqual(
      result.projectIds.slice(seeded).map((id) => data.projects.get(id)?.log.size),
    );
    expect(Date.parse(result.oldest ?? '')).toBeGreaterThanOrEqual(NOW - 600_000);
    expect(Date.parse(result.newest ?? '')).toBeLessThanOrEqual(NOW);
  });

  it('makes only security event types when the security share is 1', async () => {
    const data = await freshData();
    const seededIds = new Set(
      [...data.projects.values()].flatMap((project) =>
        Array.from({ length: project.log.size }, (_, i) => project.log.at(i)?.id),
      ),
    );

    const result = generateEvents(data, { count: 1_000, projects: 4, seed: 5, securityShare: 1 }, NOW);

    const generated = result.projectIds.flatMap((id) => {
      const log = data.projects.get(id)?.log;
      return Array.from({ length: log?.size ?? 0 }, (_, i) => log?.at(i)).filter(
        (e) => !seededIds.has(e?.id),
      );
    });
    const types = new Set(generated.map((event) => event?.eventTypeName));
    expect(generated).toHaveLength(1_000);
    expect(types.has('HOST_UP')).toBe(false);
    expect(types.has('DATA_EXPLORER_CRUD')).toBe(true);
  });

  it('refuses a negative count', async () => {
    const data = await freshData();

    const act = (): unknown => generateEvents(data, { count: -1 }, NOW);

    expect(act).toThrow(SimulatorOptionsError);
  });
});
