import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { generateAlertMix } from '../../bench/support/alert-mix.js';
import {
  alertDetailType,
  buildAlertDetail,
  DetailType,
  MAX_DETAIL_BYTES,
} from '../../shared/notify/alert-detail.js';
import { FINDING_RESOLVED_EVENT_TYPE } from '../../shared/notify/alert-finding.js';
import {
  ATLAS_CONTEXT,
  accessListEvent,
  HOSTILE_VALUES,
  makeAlert,
  NOW,
  ORG_ID,
  PROJECT_ID,
} from './support/alerts.js';
import { publishedSchemas, schemaErrors } from './support/detail-schemas.js';
import { hasControlCharacter } from './support/text.js';
import { variedAlerts } from './support/varied-alerts.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

describe('buildAlertDetail', () => {
  it('fills every field of the published schema, null where the alert has no value', () => {
    const alert = makeAlert({
      context: { orgId: ORG_ID, orgName: 'Acme Corp', projectId: PROJECT_ID, projectName: 'payments-prod' },
      rulePack: { version: '0.1.0', layers: ['builtin'] },
    });

    const detail = buildAlertDetail(alert, ATLAS_CONTEXT);

    expect(schemaErrors(publishedSchemas.alert, detail)).toEqual([]);
    expect(detail).toMatchObject({
      schemaVersion: '1',
      alert: {
        ruleId: alert.ruleId,
        severity: 'critical',
        severityRank: 5,
        raisedAt: '2026-11-22T06:14:03.000Z',
      },
      finding: null,
      connection: 'default',
      organization: { id: ORG_ID, name: 'Acme Corp' },
      project: { id: PROJECT_ID, name: 'payments-prod' },
      actor: { username: 'j.doe@example.com', address: expect.any(String) },
      eventCount: 1,
      links: { console: `https://cloud.mongodb.com/v2/${PROJECT_ID}#/activity` },
      rawEventTruncated: false,
    });
    expect(detail.alert.id).toMatch(/^[0-9a-f]{32}$/);
    expect(detail.rawEvent).toEqual(JSON.parse(JSON.stringify(alert.events[0])));
  });

  it('names a resolved posture finding, and gives it its own detail-type', () => {
    const resolved = makeAlert({
      events: [
        accessListEvent({
          eventTypeName: FINDING_RESOLVED_EVENT_TYPE,
          postureFinding: `project/${PROJECT_ID}/access-list/0.0.0.0%2F0`,
        }),
      ],
    });

    expect(buildAlertDetail(resolved, ATLAS_CONTEXT).finding).toEqual({
      id: `project/${PROJECT_ID}/access-list/0.0.0.0%2F0`,
      state: 'resolved',
    });
    expect(alertDetailType(resolved)).toBe(DetailType.findingResolved);
    expect(alertDetailType(makeAlert())).toBe(DetailType.alert);
  });

  it('keeps hostile values within the schema and the entry size, cutting only the raw event', async () => {
    const cases = variedAlerts(await generateAlertMix({ count: 150, seed: 11 }), {
      seed: 5,
      variants: 2,
      hugeEvery: 40,
      now: NOW,
    });
    const hostile = makeAlert({
      events: HOSTILE_VALUES.map((value, index) =>
        accessListEvent({ id: `e${index}`, username: value, remoteAddress: value, groupId: value }),
      ),
      title: HOSTILE_VALUES.join(' '),
    });

    const details = [
      ...cases.map(({ alert, context }) => ({ alert, context })),
      { alert: hostile, context: ATLAS_CONTEXT },
    ].map(({ alert, context }) => buildAlertDetail(alert, context));

    expect(details.flatMap((detail) => schemaErrors(publishedSchemas.alert, detail))).toEqual([]);
    const sizes = details.map((detail) => Buffer.byteLength(JSON.stringify(detail)));
    expect(Math.max(...sizes)).toBeLessThanOrEqual(MAX_DETAIL_BYTES);
    expect(details.some((detail) => detail.rawEventTruncated)).toBe(true);
    const last = details.at(-1);
    expect(hasControlCharacter(last?.actor.username ?? '', false)).toBe(false);
  });

  it('leaves the raw event out, saying so, when nothing else leaves room for it', () => {
    const detail = buildAlertDetail(makeAlert(), ATLAS_CONTEXT, 1_000);

    expect(detail.rawEvent).toBeNull();
    expect(detail.rawEventTruncated).toBe(true);
    expect(schemaErrors(publishedSchemas.alert, detail)).toEqual([]);
  });
});

describe('the published detail schemas', () => {
  it('are what the schemas the entries are built with generate', () => {
    const run = () =>
      execFileSync(process.execPath, ['--import', 'tsx', 'scripts/generate-detail-schemas.ts', '--check'], {
        cwd: ROOT,
        encoding: 'utf8',
        stdio: 'pipe',
      });

    expect(run).not.toThrow();
  });
});

describe('the entry docs/eventbridge.md shows', () => {
  it('holds a detail valid against the published schema', () => {
    const page = readFileSync(join(ROOT, 'docs/eventbridge.md'), 'utf8');
    const blocks = [...page.matchAll(/```json\n([\s\S]*?)```/g)].map((match) =>
      JSON.parse(match[1] as string),
    );
    const entry = blocks.find((block) => block['detail-type'] === 'Atlas Audit Alert' && 'detail' in block);
    const health = blocks.find((block) => block.state !== undefined);

    expect(schemaErrors(publishedSchemas.alert, entry?.detail)).toEqual([]);
    expect(schemaErrors(publishedSchemas.sourceHealth, health)).toEqual([]);
  });
});
