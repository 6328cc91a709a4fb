import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { registerRoutesCommand } from '../../cli/commands/routes.js';
import type { Alert } from '../../shared/notify/alert.js';
import { OutboxNotifier } from '../../shared/notify/outbox-notifier.js';
import { PROJECT_ROOT } from '../infra/support/workspace.js';
import { ManualClock } from '../notify/support/manual-clock.js';
import { runPollCommand } from './poll-command-harness.js';

const EXAMPLE = 'infra/examples/routes.yaml';
const NOW = Date.parse('2026-11-27T09:00:00Z');

let folder: string;

beforeEach(async () => {
  folder = await mkdtemp(join(tmpdir(), 'routes-test-'));
});
afterEach(async () => {
  await rm(folder, { recursive: true, force: true });
});

function routesTest(args: readonly string[]) {
  return runPollCommand(['routes', 'test', ...args], {
    register: registerRoutesCommand,
    env: {},
    cwd: PROJECT_ROOT,
  });
}

/** An alert as the engine raises it, on an event of one project. */
function alertOf(options: {
  ruleId: string;
  severity: Alert['severity'];
  tags: string[];
  project: string;
}): Alert {
  return {
    ruleId: options.ruleId,
    ruleName: options.ruleId,
    severity: options.severity,
    title: 'A title',
    summary: 'A summary.',
    tags: options.tags,
    events: [
      {
        id: '65a1c0de0000000000000001',
        created: '2026-11-27T08:59:00Z',
        eventTypeName: 'DATA_EXPLORER',
        groupId: '6a5b4c3d2e1f0099887766aa',
        orgId: '5f4e3d2c1b0a998877665544',
      },
    ],
    context: { orgId: '5f4e3d2c1b0a998877665544', orgName: 'Example Corp', projectName: options.project },
    groupKey: '',
    fingerprint: `${options.ruleId}:65a1c0de0000000000000001`,
    allowMentions: false,
    raisedAt: NOW,
  };
}

describe('atlas-audit-alerts routes test', () => {
  it('shows the routes and destinations each alert of an outbox reaches, as its subscriptions would filter it', async () => {
    const outbox = join(folder, 'outbox.jsonl');
    await new OutboxNotifier({ path: outbox, clock: new ManualClock(NOW) }).publish([
      alertOf({
        ruleId: 'data-explorer-destructive-write',
        severity: 'high',
        tags: ['data-explorer'],
        project: 'analytics',
      }),
      alertOf({
        ruleId: 'database-user-created',
        severity: 'medium',
        tags: ['identity'],
        project: 'payments-prod',
      }),
      alertOf({ ruleId: 'database-user-created', severity: 'low', tags: ['identity'], project: 'marketing' }),
    ]);

    const run = await routesTest(['--config', EXAMPLE, '--alert', outbox]);

    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(
      [
        `${outbox}:1: data-explorer-destructive-write (high, analytics, Example Corp)`,
        '  default    secops@example.com',
        '  data-team  data-team@example.com',
        `${outbox}:2: database-user-created (medium, payments-prod, Example Corp)`,
        '  payments  Slack T012AB3CD/C0PAYMENTS1',
        `${outbox}:3: database-user-created (low, marketing, Example Corp)`,
        '  default  daily digest',
        '',
      ].join('\n'),
    );
  });

  it('reads a hand-written alert and prints JSON for scripts', async () => {
    const file = join(folder, 'alert.json');
    await writeFile(
      file,
      JSON.stringify({
        ruleId: 'data-explorer-drop',
        severity: 'critical',
        tags: ['data-explorer'],
        context: { projectName: 'analytics' },
      }),
    );

    const run = await routesTest(['--config', EXAMPLE, '--alert', file, '--json']);

    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({
      routes: ['default', 'payments', 'data-team'],
      alerts: [
        {
          at: file,
          ruleId: 'data-explorer-drop',
          severity: 'critical',
          routes: [
            { route: 'default', destinations: ['secops@example.com'] },
            { route: 'data-team', destinations: ['data-team@example.com'] },
          ],
        },
      ],
    });
  });

  it('lists the EventBridge bus and Security Hub among the destinations, by their routes and floors', async () => {
    const config = join(folder, 'deploy.yaml');
    await writeFile(
      config,
      [
        'sources:',
        '  orgIds: [5f4e3d2c1b0a998877665544]',
        'alerts:',
        '  emails: [secops@example.com]',
        '  eventBridge: {}',
        'routes:',
        '  - name: findings',
        '    match: { minSeverity: high }',
        '    securityHub: {}',
        '',
      ].join('\n'),
    );
    const critical = join(folder, 'critical.json');
    const low = join(folder, 'low.json');
    await writeFile(critical, JSON.stringify({ ruleId: 'a-rule', severity: 'critical', tags: [] }));
    await writeFile(low, JSON.stringify({ ruleId: 'a-rule', severity: 'low', tags: [] }));

    const criticalRun = await routesTest(['--config', config, '--alert', critical, '--json']);
    const lowRun = await routesTest(['--config', config, '--alert', low, '--json']);

    expect(JSON.parse(criticalRun.stdout).alerts[0].routes).toEqual([
      { route: 'default', destinations: ['secops@example.com', 'EventBridge'] },
      { route: 'findings', destinations: ['Security Hub'] },
    ]);
    expect(JSON.parse(lowRun.stdout).alerts[0].routes).toEqual([
      { route: 'default', destinations: ['EventBridge', 'daily digest'] },
    ]);
  });

  it.each([
    [['--config', EXAMPLE], /routes test needs --alert FILE/],
    [['--config', EXAMPLE, '--alert', 'no/such.json'], /cannot read --alert file no\/such\.json \(ENOENT\)/],
    [['--config', 'no/such.yaml', '--alert', 'package.json'], /no\/such\.yaml/],
  ])('refuses %j with a message that says what to do', async (args, message) => {
    const run = await routesTest(args);

    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(message);
  });

  it('refuses an SNS entry whose message attributes are not as SNS takes them, naming the attribute', async () => {
    const file = join(folder, 'entry.json');
    await writeFile(file, JSON.stringify({ MessageAttributes: { severityRank: 5 } }));

    const run = await routesTest(['--config', EXAMPLE, '--alert', file]);

    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`${file}: MessageAttributes.severityRank is not an SNS message attribute`);
  });

  it('says which line of a JSON lines file is not an alert', async () => {
    const file = join(folder, 'alerts.jsonl');
    await writeFile(file, '{"ruleId":"a","severity":"high"}\n{"ruleId":"b","severity":"urgent"}\nnot json\n');

    const run = await routesTest(['--config', EXAMPLE, '--alert', file]);

    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`--alert file ${file}, line 3: not JSON`);
  });
});
