import { describe, expect, it } from 'vitest';
import { SimulatorOptionsError } from '../../simulator/errors.js';
import { isKnownEventType } from '../../simulator/known-event-types.js';
import { generateWeek } from '../../simulator/week-generator.js';

const DAY = 24 * 60 * 60 * 1000;

describe('generateWeek', () => {
  it('gives the same week, ids included, for the same seed, and another week for another seed', () => {
    const first = generateWeek({ seed: 11 });
    const again = generateWeek({ seed: 11 });
    const other = generateWeek({ seed: 12 });

    expect(JSON.stringify(again)).toBe(JSON.stringify(first));
    expect(other.events.map(({ event }) => event.id)).not.toEqual(first.events.map(({ event }) => event.id));
  });

  it('keeps the organization and its projects for another week of their own', () => {
    const week = generateWeek({ seed: 11 });
    const before = generateWeek({ seed: 12, organizationSeed: 11, start: week.start - 7 * DAY });

    expect(before.orgId).toBe(week.orgId);
    expect(before.projectIds).toEqual(week.projectIds);
  });

  it('spreads a week of 20 projects over time, in poll order, weekdays busier than the weekend', () => {
    const week = generateWeek({ seed: 3 });
    const times = week.events.map(({ event }) => Date.parse(String(event.created)));
    const perDay = Array.from({ length: 7 }, (_, day) =>
      times.filter((time) => time >= week.start + day * DAY && time < week.start + (day + 1) * DAY),
    ).map((day) => day.length);

    expect(week.projectIds).toHaveLength(20);
    expect(new Set(week.events.map(({ event }) => event.groupId).filter(Boolean)).size).toBe(20);
    expect(times).toEqual([...times].sort((a, b) => a - b));
    expect(times.every((time) => time >= week.start && time < week.end)).toBe(true);
    expect(Math.min(...perDay.slice(0, 5))).toBeGreaterThan(Math.max(...perDay.slice(5)));
  });

  it("uses Atlas's own event type names, and the access-history source's for database logins", () => {
    const week = generateWeek({ seed: 5 });

    const unknown = week.events.filter(({ source, event }) => {
      const type = String(event.eventTypeName);
      if (source.startsWith('cluster:')) return type !== 'DB_AUTH_SUCCEEDED' && type !== 'DB_AUTH_FAILED';
      return !isKnownEventType(type, source.startsWith('org:') ? 'organization' : 'project');
    });

    expect(unknown).toEqual([]);
  });

  it('plants the four incidents among the routine, each with events of the week', () => {
    const week = generateWeek({ seed: 5 });
    const ids = new Set(week.events.map(({ event }) => event.id));

    expect(week.incidents.map((incident) => incident.kind)).toEqual([
      'owner-key-open-to-internet',
      'brute-force',
      'data-explorer-deletion',
      'mfa-made-optional',
    ]);
    for (const incident of week.incidents) {
      expect(incident.eventIds.length).toBeGreaterThan(0);
      expect(incident.eventIds.every((id) => ids.has(id))).toBe(true);
    }
    expect(generateWeek({ seed: 5, incidents: false }).incidents).toEqual([]);
  });

  it('refuses a week without days or projects', () => {
    expect(() => generateWeek({ days: 0 })).toThrow(SimulatorOptionsError);
    expect(() => generateWeek({ projects: 0 })).toThrow(SimulatorOptionsError);
  });
});
