import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { formatTickReport } from '../../cli/summary-table.js';
import type { Logger } from '../../shared/logger.js';
import { emitTickMetrics, MetricName } from '../../shared/poll/index.js';
import { parseRulePack, type RulePack } from '../../shared/rules/index.js';
import {
  alertingEvent,
  fileStoreFactory,
  ids,
  MINUTE,
  type PollFixture,
  startPollFixture,
} from './support/poll-fixture.js';

/**
 * A rule that throws on one event must not stall its source: a real tick over the simulator, with the
 * default pack plus a rule whose title, on a hostile 600,000-character user name, would be longer than
 * the longest string JavaScript can hold (2^29 - 24 characters), so rendering it throws a RangeError.
 */
const THROWING_RULE = `
rules:
  - id: echo-user
    name: Access list opened, user name repeated
    severity: low
    match: { eventTypeName: NETWORK_PERMISSION_ENTRY_ADDED }
    title: '${'{{username}}'.repeat(900)}'
`;
const HOSTILE_USER_NAME = 'x'.repeat(600_000);
const PROJECT = `project:${ids.project}`;

let fixture: PollFixture | undefined;

afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});

async function defaultPackWith(text: string): Promise<RulePack> {
  const directory = fileURLToPath(new URL('../../rules/', import.meta.url));
  const names = (await readdir(directory)).filter((name) => name.endsWith('.yaml')).sort();
  const sources = await Promise.all(
    names.map(async (name) => ({ file: name, text: await readFile(join(directory, name), 'utf8') })),
  );
  return parseRulePack({ sources: [...sources, { file: 'echo.yaml', text }] });
}

function recordingLogger(): { logger: Logger; warnings: [string, Record<string, unknown> | undefined][] } {
  const warnings: [string, Record<string, unknown> | undefined][] = [];
  const ignore = (): void => {};
  return {
    warnings,
    logger: {
      debug: ignore,
      info: ignore,
      error: ignore,
      warn: (message, attributes) => warnings.push([message, attributes]),
    },
  };
}

describe('runTick with a rule that throws on an event', () => {
  it('logs and counts the failure, lets every other rule see the event, and commits the walk', async () => {
    // Prepare
    const { logger, warnings } = recordingLogger();
    fixture = await startPollFixture({
      store: fileStoreFactory(),
      pack: await defaultPackWith(THROWING_RULE),
      logger,
    });
    const { sim, clock } = fixture;
    const now = clock.now();
    const hostile = sim.addEvent(
      { groupId: ids.project },
      alertingEvent(now - 10 * MINUTE, { username: HOSTILE_USER_NAME }),
    );
    const later = sim.addEvent({ groupId: ids.project }, alertingEvent(now - 5 * MINUTE));

    // Act
    const summary = await fixture.tick();
    clock.advance(MINUTE);
    const next = await fixture.tick();

    // Assess
    const delivered = fixture.notifier.delivered.map((alert) => [alert.ruleId, alert.events[0]?.id]);
    expect(delivered.filter(([, id]) => id === hostile.id).map(([ruleId]) => ruleId)).not.toContain(
      'echo-user',
    );
    expect(delivered.filter(([, id]) => id === hostile.id).length).toBeGreaterThan(0);
    expect(delivered).toContainEqual(['echo-user', later.id]);
    expect(summary.sources.find((source) => source.source === PROJECT)).toMatchObject({
      status: 'ok',
      eventsNew: 2,
      ruleErrors: 1,
      windowsCommitted: 1,
    });
    expect(summary.totals.ruleErrors).toBe(1);
    expect(warnings).toEqual([
      [
        expect.stringMatching(
          new RegExp(
            `^Rule "echo-user" failed on event ${hostile.id} \\(NETWORK_PERMISSION_ENTRY_ADDED\\) and skipped it; the other rules still evaluated it \\(RangeError: Invalid string length\\)`,
          ),
        ),
        { source: PROJECT, errorCode: 'RULE_EVALUATION_FAILED', ruleId: 'echo-user', eventId: hostile.id },
      ],
    ]);
    expect(next.totals).toMatchObject({ eventsNew: 0, ruleErrors: 0 });
  });

  it('reports the failures in the tick summary line and in the metrics', async () => {
    // Prepare
    fixture = await startPollFixture({
      store: fileStoreFactory(),
      pack: await defaultPackWith(THROWING_RULE),
    });
    const now = fixture.clock.now();
    fixture.sim.addEvent(
      { groupId: ids.project },
      alertingEvent(now - 10 * MINUTE, { username: HOSTILE_USER_NAME }),
    );
    const metrics: [string, number][] = [];

    // Act
    const summary = await fixture.tick();
    emitTickMetrics({ summary, sink: { addMetric: (name, _unit, value) => metrics.push([name, value]) } });
    const report = formatTickReport(summary);

    // Assess
    expect(metrics).toContainEqual([MetricName.ruleErrors, 1]);
    expect(report.split('\n')[0]).toContain(' · 1 rule error · ');
    expect(report).toContain(
      `  ! ${PROJECT}: 1 rule failed on an event (logged with the rule and event ids); each event was skipped for that rule only and the walk went on`,
    );
  });
});
