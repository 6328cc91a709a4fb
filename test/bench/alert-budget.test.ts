import { readFile } from 'node:fs/promises';
import { beforeAll, describe, expect, it } from 'vitest';
import { type AlertBudgetReport, renderAlertBudget, runAlertBudget } from '../../bench/alert-budget.js';

const DOC = new URL('../../docs/alerts.md', import.meta.url);

describe('the alert budget over a simulated week', () => {
  let report: AlertBudgetReport;
  beforeAll(async () => {
    report = await runAlertBudget({ seed: 7 });
  }, 120_000);

  it('drops nothing: every occurrence is an alert, in an alert roll-up, or waiting for its group next alert', () => {
    for (const result of [report.builtin, report.repeats]) {
      expect(result.accounted).toBe(true);
      expect(result.toldInRollUps + result.untold).toBe(result.suppressed);
      expect(result.suppressed).toBeGreaterThan(100);
    }
  });

  it('delivers every planted incident as a message of its own in the tick that read it', () => {
    for (const result of [report.builtin, report.repeats]) {
      expect(result.incidents.map((incident) => [incident.kind, incident.ownMessageWithinOneTick])).toEqual([
        ['owner-key-open-to-internet', true],
        ['brute-force', true],
        ['data-explorer-deletion', true],
        ['mfa-made-optional', true],
      ]);
    }
  });

  it('counts every alert of the week as a message of its own or in a digest, and finds each in the digests as rendered', () => {
    for (const result of [report.builtin, report.repeats]) {
      expect(result.digest.accounted).toBe(true);
      expect(result.digest.oneByOne + result.digest.digested).toBe(result.alerts);
      expect(result.digest.digested).toBeGreaterThan(100);
    }
  });

  it('sends at least 5 times fewer messages a day with the default digest than one per alert, each incident still on its own', () => {
    for (const result of [report.builtin, report.repeats]) {
      expect(report.builtin.messagesPerDay / result.digest.messagesPerDay).toBeGreaterThanOrEqual(5);
      expect(result.digest.incidentsOwnMessage).toBe(true);
    }
  });

  it('sends fewer messages with the repeats layer than the pack as shipped', () => {
    expect(report.repeats.messagesPerDay).toBeLessThan(report.builtin.messagesPerDay);
    expect(report.builtin.messagesPerDay).toBeLessThan(report.builtin.oneMessagePerOccurrencePerDay);
  });

  it('prints the figures docs/alerts.md shows', async () => {
    const doc = await readFile(DOC, 'utf8');
    const shown = /<!-- alert-budget:start -->\n```text\n([\s\S]*?)```\n<!-- alert-budget:end -->/.exec(
      doc,
    )?.[1];

    expect(shown).toBe(renderAlertBudget(report));
  });
});

describe('the alert budget over another week', () => {
  it('drops nothing and delivers every incident on its own', async () => {
    const { builtin, repeats } = await runAlertBudget({ seed: 20_261_128 });

    for (const result of [builtin, repeats]) {
      expect(result.accounted).toBe(true);
      expect(result.digest.accounted).toBe(true);
      expect(result.incidents.every((incident) => incident.ownMessageWithinOneTick)).toBe(true);
      expect(result.digest.incidentsOwnMessage).toBe(true);
    }
  }, 120_000);
});
