import { afterEach, describe, expect, it } from 'vitest';
import type { AtlasEvent } from '../../shared/atlas/index.js';
import type { Logger } from '../../shared/logger.js';
import type { Alert } from '../../shared/notify/alert.js';
import { describeAlert } from '../../shared/notify/alert-facts.js';
import { formatChatbotNotification } from '../../shared/notify/chatbot-formatter.js';
import { formatEmailText } from '../../shared/notify/email-formatter.js';
import { formatHeadline } from '../../shared/notify/headline.js';
import { outcomeOf } from './support/assertions.js';
import {
  fileStoreFactory,
  ids,
  MINUTE,
  type PollFixture,
  pollSeed,
  startPollFixture,
} from './support/poll-fixture.js';
import { storeKinds } from './support/store-kinds.js';

const PROJECT = `project:${ids.project}`;
const ORG = `org:${ids.org}`;
const GET_PROJECT = 'GET /groups/{groupId}';
const GET_ORG = 'GET /orgs/{orgId}';

let fixture: PollFixture | undefined;

afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});

/** The headline of an alert: its title, where and who, as a Slack title shows it. */
function headline(alert: Alert): string {
  return formatHeadline(alert, describeAlert(alert));
}

/** A backup snapshot deleted in the test project: its alert's headline names the project. */
function snapshotDeleted(
  created: number,
  username = 'ana@example.com',
): AtlasEvent & { eventTypeName: string } {
  return {
    eventTypeName: 'CPS_SNAPSHOT_DELETED_AUDIT',
    created: new Date(created).toISOString().replace('.000Z', 'Z'),
    orgId: ids.org,
    username,
  };
}

/** Requests the simulator answered on one route. */
function requestsOn(current: PollFixture, route: string): number {
  return current.sim.counters.byPath[route] ?? 0;
}

/** A logger that keeps what it is told, to check what a failure logs. */
function recordingLogger(): Logger & { lines: string[] } {
  const lines: string[] = [];
  const keep =
    (level: string) =>
    (message: string, attributes?: Record<string, unknown>): void => {
      lines.push(`${level} ${message} ${JSON.stringify(attributes ?? {})}`);
    };
  return { lines, debug: keep('debug'), info: keep('info'), warn: keep('warn'), error: keep('error') };
}

describe.each(storeKinds())('names in alerts, through a real tick, with the $name', ({ factory }) => {
  it('reads a name Atlas was never asked for, then serves it from memory and from the store', async () => {
    // Prepare
    fixture = await startPollFixture({ store: factory, config: { sources: { projectIds: [ids.project] } } });
    const current = fixture;
    current.sim.addEvent({ groupId: ids.project }, snapshotDeleted(current.clock.now() - 2 * MINUTE));

    // Act: a miss (Atlas), a hit in memory (warm container), a hit in the store (cold start).
    const first = await current.tick();
    const afterMiss = { project: requestsOn(current, GET_PROJECT), org: requestsOn(current, GET_ORG) };
    current.clock.advance(MINUTE);
    current.sim.addEvent(
      { groupId: ids.project },
      snapshotDeleted(current.clock.now() - 30_000, 'bo@example.com'),
    );
    await current.tick();
    const afterWarm = { project: requestsOn(current, GET_PROJECT), org: requestsOn(current, GET_ORG) };
    current.names.clear();
    current.clock.advance(MINUTE);
    current.sim.addEvent(
      { groupId: ids.project },
      snapshotDeleted(current.clock.now() - 30_000, 'cy@example.com'),
    );
    await current.tick();
    const afterCold = { project: requestsOn(current, GET_PROJECT), org: requestsOn(current, GET_ORG) };

    // Assess
    expect(outcomeOf(first, PROJECT)).toMatchObject({ status: 'ok' });
    expect(first.totals.sourceErrors).toBe(0);
    expect(current.notifier.delivered.map(headline)).toEqual([
      'Backup snapshot deleted (payments, by ana@example.com)',
      'Backup snapshot deleted (payments, by bo@example.com)',
      'Backup snapshot deleted (payments, by cy@example.com)',
    ]);
    expect(current.notifier.delivered.map((alert) => alert.context)).toEqual(
      Array(3).fill({
        orgId: ids.org,
        orgName: 'Acme',
        projectId: ids.project,
        projectName: 'payments',
      }),
    );
    expect(afterMiss).toEqual({ project: 1, org: 1 });
    expect(afterWarm).toEqual(afterMiss);
    expect(afterCold).toEqual(afterMiss);
    const stored = await current.store.readNames({ keys: [PROJECT, ORG] });
    expect([...stored.values()].map(({ key, name }) => [key, name]).sort()).toEqual([
      [ORG, 'Acme'],
      [PROJECT, 'payments'],
    ]);
  });

  it('falls back to the id when Atlas fails, without failing the source, and asks again only later', async () => {
    // Prepare
    const logger = recordingLogger();
    fixture = await startPollFixture({
      store: factory,
      logger,
      config: { sources: { projectIds: [ids.project] } },
    });
    const current = fixture;
    current.sim.setFaults({ routes: [GET_PROJECT, GET_ORG], probabilities: { internalServerError: 1 } });
    current.sim.addEvent({ groupId: ids.project }, snapshotDeleted(current.clock.now() - 2 * MINUTE));

    // Act
    const first = await current.tick();
    const asked = requestsOn(current, GET_PROJECT);
    current.clock.advance(MINUTE);
    current.sim.addEvent(
      { groupId: ids.project },
      snapshotDeleted(current.clock.now() - 30_000, 'bo@example.com'),
    );
    await current.tick();
    const askedWithinRetry = requestsOn(current, GET_PROJECT);
    current.sim.setFaults();
    current.clock.advance(20 * MINUTE);
    current.sim.addEvent(
      { groupId: ids.project },
      snapshotDeleted(current.clock.now() - 30_000, 'cy@example.com'),
    );
    const third = await current.tick();

    // Assess
    expect(outcomeOf(first, PROJECT)).toMatchObject({ status: 'ok' });
    expect(first.totals.sourceErrors).toBe(0);
    expect(third.totals.sourceErrors).toBe(0);
    expect(current.notifier.delivered.map(headline)).toEqual([
      `Backup snapshot deleted (project ${ids.project}, by ana@example.com)`,
      `Backup snapshot deleted (project ${ids.project}, by bo@example.com)`,
      'Backup snapshot deleted (payments, by cy@example.com)',
    ]);
    expect(asked).toBeGreaterThan(0);
    expect(askedWithinRetry).toBe(asked);
    const warnings = logger.lines.filter((line) => line.includes('could not read a name from Atlas'));
    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toContain('"httpStatus":500');
    expect(logger.lines.join('\n')).not.toContain('fake-private-key-for-tests');
  });

  it('names the projects discovery listed without asking Atlas for each', async () => {
    // Prepare
    fixture = await startPollFixture({
      store: factory,
      config: { sources: { orgIds: [ids.org], allProjectsOfOrgs: true } },
    });
    const current = fixture;
    current.sim.addEvent({ groupId: ids.secondProject }, snapshotDeleted(current.clock.now() - 2 * MINUTE));

    // Act
    await current.tick();

    // Assess
    expect(current.notifier.delivered.map(headline)).toContain(
      'Backup snapshot deleted (analytics, by ana@example.com)',
    );
    expect(requestsOn(current, GET_PROJECT)).toBe(0);
  });

  it('shows the key an API-key alert is about, its description and roles, in the email and Slack', async () => {
    // Prepare
    fixture = await startPollFixture({ store: factory, config: { sources: { orgIds: [ids.org] } } });
    const current = fixture;
    current.sim.addEvent(
      { orgId: ids.org },
      {
        eventTypeName: 'API_KEY_CREATED',
        created: new Date(current.clock.now() - 2 * MINUTE).toISOString(),
        targetPublicKey: 'dashbrds',
        username: 'ana@example.com',
      },
    );

    // Act
    await current.tick();

    // Assess
    const alert = current.notifier.delivered.find((delivered) => delivered.ruleId === 'api-key-created');
    expect(alert?.context?.credential).toMatchObject({
      kind: 'api-key',
      id: 'dashbrds',
      description: 'dashboards',
      roles: ['ORG_READ_ONLY in Acme (6650…001)'],
    });
    const email = alert && formatEmailText(alert, { context: { now: current.clock.now() } });
    const slack =
      alert && JSON.stringify(formatChatbotNotification(alert, { context: { now: current.clock.now() } }));
    expect(email).toMatch(/^Organization: +Acme \(6650…001\)$/m);
    expect(email).toMatch(/^API key: +dashbrds: dashboards$/m);
    expect(email).toMatch(/^Current roles: +ORG_READ_ONLY in Acme \(6650…001\)$/m);
    expect(slack).toContain('*Where:* Organization Acme (6650…001)');
    expect(slack).toContain('*API key:* dashbrds: dashboards');
    expect(slack).toContain('*Current roles:* ORG_READ_ONLY in Acme (6650…001)');
    for (const text of [email, slack, JSON.stringify(current.notifier.delivered)]) {
      expect(text).not.toContain('fake-private-key');
    }
  });
});

describe('hostile names', () => {
  it('cleans, bounds and Slack-escapes a project name Atlas returns', async () => {
    // Prepare
    const seed = pollSeed();
    const hostile = `<!channel> pay\u202Ements\n${'x'.repeat(300)}`;
    seed.projects = (seed.projects ?? []).map((project) =>
      project.id === ids.project ? { ...project, name: hostile } : project,
    );
    fixture = await startPollFixture({
      store: fileStoreFactory(),
      seed,
      config: { sources: { projectIds: [ids.project] } },
    });
    const current = fixture;
    current.sim.addEvent({ groupId: ids.project }, snapshotDeleted(current.clock.now() - 2 * MINUTE));

    // Act
    const summary = await current.tick();

    // Assess
    const alert = current.notifier.delivered[0];
    const name = alert?.context?.projectName ?? '';
    const slack = alert && formatChatbotNotification(alert, { context: { now: current.clock.now() } });
    expect(summary.totals.sourceErrors).toBe(0);
    expect(name.length).toBeLessThanOrEqual(128);
    expect(name).not.toMatch(/[\n\u202E]/);
    expect(slack?.content.title).toContain('&lt;!channel&gt;');
    expect(JSON.stringify(slack)).not.toContain('<!channel>');
  });

  it('removes zero-width and invisible characters from a name, in the Slack title, keywords and email', async () => {
    // Prepare: a name that reads as payments-prod but is not it.
    const seed = pollSeed();
    const invisible = '\uFEFFpay\u200Bments\u200D-\u2060prod\u00AD\u{E0041}';
    seed.projects = (seed.projects ?? []).map((project) =>
      project.id === ids.project ? { ...project, name: invisible } : project,
    );
    fixture = await startPollFixture({
      store: fileStoreFactory(),
      seed,
      config: { sources: { projectIds: [ids.project] } },
    });
    const current = fixture;
    current.sim.addEvent({ groupId: ids.project }, snapshotDeleted(current.clock.now() - 2 * MINUTE));

    // Act
    await current.tick();

    // Assess
    const alert = current.notifier.delivered[0];
    const slack = alert && formatChatbotNotification(alert, { context: { now: current.clock.now() } });
    const email = alert && formatEmailText(alert, { context: { now: current.clock.now() } });
    expect(alert?.context?.projectName).toBe('payments-prod');
    expect(slack?.content.title).toContain('payments-prod');
    expect(email).toMatch(/^Project: +payments-prod \(/m);
    // U+2060 is left out: Slack escaping puts one after every @ on purpose.
    for (const text of [JSON.stringify(slack), email ?? '']) {
      expect(text).not.toMatch(/\u00AD|\u200B|\u200D|\uFEFF|\u{E0041}/u);
    }
  });
});
