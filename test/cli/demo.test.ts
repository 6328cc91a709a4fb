import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerDemoCommand } from '../../cli/commands/demo.js';
import { DEFAULT_SEED_PATH } from '../../simulator/index.js';
import { type CliResult, runCli } from './cli-runner.js';
import { runPollCommand } from './poll-command-harness.js';

/**
 * The alerts the events added between the ticks raise (carol's Data Explorer delete also as her
 * first use of Data Explorer in the project: the first-seen rules learnt from tick 1), and the one the
 * inventory raises for the service account made an owner, as the demo prints them on one line.
 */
const SECOND_TICK_LINES = [
  '  CRITICAL  Service account terraform given ORG_OWNER in organization Acme Corp (64b5…c01)  (Acme Corp)',
  '  CRITICAL  Project IP access list open to 0.0.0.0/0  (analytics-prod)',
  '  MEDIUM    Data Explorer deleteDocument on payments.customers by carol.sre@acme.example  (payments-prod)',
  '  MEDIUM    Database user temp-admin created by carol.sre@acme.example  (payments-prod)',
  '  MEDIUM    carol.sre@acme.example used Data Explorer for the first time in project payments-prod (64b5…d11)  (payments-prod)',
];
const ALERT_LINE = /^ {2}(CRITICAL|HIGH|MEDIUM|LOW|INFO) {2,}\S.*$/gm;

/** The demo's output split at its headings. */
function sections(stdout: string): {
  intro: string;
  first: string;
  added: string;
  second: string;
  summary: string;
} {
  const [intro = '', first = '', added = '', second = '', summary = ''] = stdout.split(/^▶ /m);
  return { intro, first, added, second, summary };
}

function alertCount(report: string): number {
  const match = /^tick .* · (\d+) alerts?[:, ·]/m.exec(report);
  if (match?.[1] === undefined) throw new Error(`no tick report in: ${report.slice(-400)}`);
  return Number(match[1]);
}

describe('atlas-audit-alerts demo, as npm start runs it', () => {
  let result: CliResult;
  // The demo's own temporary folder, made under a folder of this test's alone: other demos running
  // at the same time (other test files, another suite) come and go in the machine's shared one.
  let temporary: string;

  beforeAll(async () => {
    temporary = await mkdtemp(join(tmpdir(), 'demo-test-'));
    result = await runCli(['demo'], { TMPDIR: temporary });
  }, 60_000);

  afterAll(async () => {
    await rm(temporary, { recursive: true, force: true });
  });

  it('exits 0 with nothing on stderr, and leaves no temporary folder behind', async () => {
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    const left = await readdir(temporary);
    expect(left.filter((name) => name.startsWith('atlas-audit-alerts-demo-'))).toEqual([]);
  });

  it('shows the first tick as one alert in full, email and Slack, and the others on one line', () => {
    const { intro, first } = sections(result.stdout);

    expect(intro).toMatch(/^atlas-audit-alerts demo: two real poll ticks against a simulated Atlas/);
    expect(first).toMatch(/^Tick 1: the first poll reads the last hour of 2 organizations and 5 projects\n/);
    expect(first.match(/^Subject: \[CRITICAL\] /gm)).toHaveLength(1);
    expect(first.match(/^┌─ Slack \(AWS Chatbot\) /gm)).toHaveLength(1);
    expect(first).toContain('\nWhat happened\n-------------\n');
    const lines = first.match(ALERT_LINE) ?? [];
    expect(lines.length + 1).toBe(alertCount(first));
    expect(alertCount(first)).toBeGreaterThan(20);
  });

  it('alerts on the seed events of the official v2 shapes: MongoDB staff host access, backup policy, an unusable key', () => {
    const { first } = sections(result.stdout);

    expect(first).toMatch(
      /^ {2}HIGH +MongoDB employee ts-4821 given host access in project payments-prod \(64b5…d11\) \(SSH_KEY_NDS_HOST_ACCESS_GRANTED\) {2}\(payments-prod\)$/m,
    );
    expect(first).toMatch(
      /^ {2}MEDIUM +Backup policy of project payments-prod \(64b5…d11\) changed by carol\.sre@acme\.example /m,
    );
    expect(first).toMatch(
      /^ {2}HIGH +Encryption at rest key unusable in project analytics-prod \(64b5…d13\) \(AWS_ENCRYPTION_KEY_INVALID\) /m,
    );
    expect(first).toMatch(
      /^ {2}LOW +Organization Acme Corp \(64b5…c01\) has users without MFA {2}\(Acme Corp\)$/m,
    );
  });

  it('shows baseline findings of the first inventory, marked pre-existing, on the first tick', () => {
    const { first } = sections(result.stdout);

    expect(first).toContain('Owner zydgnobx has no access list (pre-existing, found by the first inventory)');
    expect(first).toMatch(
      /Project internal-tools \(64b5…d14\) open to 0\.0\.0\.0\/0 \(pre-existing, found by the first inventory\) {2}\(internal-tools\)/,
    );
  });

  it('shows only the alerts of the three new events and the inventory change on the second tick', () => {
    const { first, added, second } = sections(result.stdout);

    expect(added).toMatch(/^Five minutes later, Atlas shows 3 new events\n/);
    expect(added).toMatch(
      /analytics-prod +NETWORK_PERMISSION_ENTRY_ADDED +created \S+, before the last watermark/,
    );
    expect(added).toMatch(/Acme Corp +service account terraform given ORG_OWNER: no event says so/);
    expect((second.match(ALERT_LINE) ?? []).sort()).toEqual([...SECOND_TICK_LINES].sort());
    expect(alertCount(second)).toBe(5);
    expect(second).toMatch(/^tick .* · \d+ events \(3 new\) · 5 alerts: 2 critical, 3 medium · /m);
    for (const line of SECOND_TICK_LINES) expect(first).not.toContain(line);
  });

  it('ends with a table of both ticks', () => {
    const { first, summary } = sections(result.stdout);
    const total = alertCount(first) + 5;

    expect(summary).toMatch(/^Summary\n +tick 1 +tick 2 +total\n─+\n/);
    expect(summary).toMatch(/^sources polled +7 +7\n/m);
    expect(summary).toMatch(new RegExp(`^alerts in all +${alertCount(first)} +5 +${total}\\n`, 'm'));
    expect(summary).toMatch(/^new events +\d+ +3 +\d+\n/m);
    expect(summary).toMatch(/^Atlas requests +\d+ +\d+ +\d+\n/m);
    expect(summary).toMatch(/^state store requests +\d+ +\d+ +\d+\n/m);
    expect(summary).toContain(`none of tick 1's ${alertCount(first)} again.`);
  });

  it('prints no credential of the simulator', async () => {
    const seed = JSON.parse(await readFile(DEFAULT_SEED_PATH, 'utf8')) as {
      apiKeys: Array<{ privateKey: string }>;
      serviceAccounts: Array<{ clientSecret: string }>;
    };
    const secrets = [
      ...seed.apiKeys.map((key) => key.privateKey),
      ...seed.serviceAccounts.map((account) => account.clientSecret),
    ];

    expect(secrets.length).toBeGreaterThan(0);
    for (const secret of secrets) expect(result.stdout).not.toContain(secret);
  });
});

describe('atlas-audit-alerts demo --full', () => {
  it('prints every alert as the email and the Slack message', async () => {
    const run = await runPollCommand(['demo', '--full'], {
      env: {},
      cwd: tmpdir(),
      register: registerDemoCommand,
    });

    const { first, second } = sections(run.stdout);
    expect(run.code).toBe(0);
    expect(first.match(/^Subject: \[[A-Z]+\] /gm)).toHaveLength(alertCount(first));
    expect(second.match(/^Subject: \[[A-Z]+\] /gm)).toHaveLength(5);
    expect(first.match(ALERT_LINE)).toBeNull();
  });
});
