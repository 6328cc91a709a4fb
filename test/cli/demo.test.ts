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
 * first use of Data Explorer in the project: the first-seen rules learnt from tick 1), and those the
 * inventory raises for the service account made an owner and for internal-tools' open entry removed
 * (the removal, and tick 1's finding resolved), as the demo prints them on one line: what, where and
 * who.
 */
const SECOND_TICK_LINES = [
  '  CRITICAL  Service account terraform given ORG_OWNER (Acme Corp, found by the inventory)',
  '  INFO      Project IP access list entry removed: 0.0.0.0/0 (internal-tools, found by the inventory)',
  '  LOW       Resolved: project IP access list open to 0.0.0.0/0 (internal-tools, found by the inventory)',
  '  CRITICAL  Project IP access list open to 0.0.0.0/0 (analytics-prod, by dave.analyst@acme.example)',
  '  MEDIUM    Data Explorer deleteDocument on payments.customers (payments-prod, by carol.sre@acme.example)',
  '  MEDIUM    Database user temp-admin created (payments-prod, by carol.sre@acme.example)',
  '  MEDIUM    First use of Data Explorer in the project (payments-prod, by carol.sre@acme.example)',
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
      /^ {2}HIGH +MongoDB employee ts-4821 given host access \(payments-prod, no user recorded\)$/m,
    );
    expect(first).toMatch(
      /^ {2}MEDIUM +Backup policy changed: CPS snapshot retention modified \(payments-prod, by carol\.sre@acme\.example\)$/m,
    );
    expect(first).toMatch(
      /^ {2}HIGH +Encryption at rest key unusable \(analytics-prod, no user recorded\)$/m,
    );
    expect(first).toMatch(/^ {2}LOW +Organization has users without MFA \(Acme Corp, no user recorded\)$/m);
  });

  it('shows baseline findings of the first inventory, marked pre-existing, on the first tick', () => {
    const { first } = sections(result.stdout);

    expect(first).toContain('Owner zydgnobx has no access list (Acme Labs, pre-existing, first inventory)');
    expect(first).toContain(
      'Project IP access list open to 0.0.0.0/0 (internal-tools, pre-existing, first inventory)',
    );
  });

  it('names teams, the user a team gains, alert configurations and service accounts, not their ids', () => {
    const { first } = sections(result.stdout);

    expect(first).toMatch(
      /^ {2}LOW +Team created: data-analysts \(Acme Corp, by alice\.admin@acme\.example\)$/m,
    );
    expect(first).toMatch(
      /^ {2}LOW +dave\.analyst@acme\.example added to team data-analysts \(Acme Corp, by alice\.admin@acme\.example\)$/m,
    );
    expect(first).toMatch(
      /^ {2}HIGH +Alert configuration disabled: Host down \(payments-prod, by bob\.dev@acme\.example\)$/m,
    );
    expect(first).toMatch(
      /^ {2}MEDIUM +Service account terraform created \(Acme Corp, by alice\.admin@acme\.example\)$/m,
    );
  });

  it('shows only the alerts of the three new events and the inventory changes on the second tick', () => {
    const { first, added, second } = sections(result.stdout);

    expect(added).toMatch(/^Five minutes later, Atlas shows 3 new events\n/);
    expect(added).toMatch(
      /analytics-prod +NETWORK_PERMISSION_ENTRY_ADDED +created \S+, before the last watermark/,
    );
    expect(added).toMatch(/^ {2}and 2 changes without an event:$/m);
    expect(added).toMatch(/Acme Corp +service account terraform given ORG_OWNER: no event says so/);
    expect(added).toMatch(/internal-tools +the temporary 0\.0\.0\.0\/0 entry removed after the migration/);
    expect((second.match(ALERT_LINE) ?? []).sort()).toEqual([...SECOND_TICK_LINES].sort());
    expect(alertCount(second)).toBe(7);
    expect(second).toMatch(
      /^tick .* · \d+ events \(3 new\) · 7 alerts: 2 critical, 3 medium, 1 low, 1 info · /m,
    );
    for (const line of SECOND_TICK_LINES) expect(first).not.toContain(line);
  });

  it('ends with a table of both ticks', () => {
    const { first, summary } = sections(result.stdout);
    const total = alertCount(first) + 7;

    expect(summary).toMatch(/^Summary\n +tick 1 +tick 2 +total\n─+\n/);
    expect(summary).toMatch(/^sources polled +12 +12\n/m);
    expect(summary).toMatch(new RegExp(`^alerts in all +${alertCount(first)} +7 +${total}\\n`, 'm'));
    expect(summary).toMatch(/^new events +\d+ +3 +\d+\n/m);
    expect(summary).toMatch(/^Atlas requests +\d+ +\d+ +\d+\n/m);
    expect(summary).toMatch(/^state store requests +\d+ +\d+ +\d+\n/m);
    expect(summary).toContain(`none of tick 1's ${alertCount(first)} again.`);
  });

  it('ends with one database audit log object read through the same rules: the critical role grant', () => {
    const audit = result.stdout.split(/^▶ /m)[5] ?? '';

    expect(audit).toMatch(/^Database audit logs: one object of a cluster exported to S3/);
    expect(audit).toContain(
      'Subject: [CRITICAL] mallory gave mallory a privileged role on payments-main (payments-prod)',
    );
    expect(audit).toMatch(/^Event: +DB_AUDIT_GRANT_ROLES_TO_USER, id dbaudit-[0-9a-f]{32}$/m);
    expect(audit).toMatch(
      /^ {2}s3:\/\/my-atlas-audit-logs\/atlas-audit-logs\/64b5ca17f1a3d40012ab3d11\/payments-main\/[^/]+\/mongodb-audit-log\/\d+-\d+\.log\.gz: 5 lines, 5 events, 1 alert \(settled\)\./m,
    );
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

/** One alert of `demo --full`: its subject, its email (without the raw event), its Slack preview. */
interface PrintedAlert {
  subject: string;
  email: string;
  slack: string;
}

function printedAlerts(stdout: string): PrintedAlert[] {
  return stdout
    .split(/^═+$/m)
    .slice(1)
    .map((block) => {
      const subject = /^Subject: (.*)$/m.exec(block)?.[1] ?? '';
      const [mail = '', slack = ''] = block.split(/^┌─ Slack .*$/m);
      // The email as it reads: from the line under the subject to the raw event.
      const body = mail.slice(mail.search(/^─+$/m)).replace(/^─+\n/, '');
      return {
        subject,
        email: body.split(/^Raw events?\b/m)[0] ?? '',
        slack: slack.split(/^└/m)[0] ?? '',
      };
    });
}

/** The values of the `Label: value` lines of a text, in order. */
function factValues(text: string, line: RegExp): string[] {
  return [...text.matchAll(line)].map((match) => (match[1] ?? '').trim());
}

/** The values said more than once. */
function repeated(values: readonly string[]): string[] {
  return values.filter((value, index) => values.indexOf(value) !== index);
}

describe('atlas-audit-alerts demo --full', () => {
  let run: Awaited<ReturnType<typeof runPollCommand>>;
  let alerts: PrintedAlert[];

  beforeAll(async () => {
    run = await runPollCommand(['demo', '--full'], {
      env: {},
      cwd: tmpdir(),
      register: registerDemoCommand,
    });
    alerts = printedAlerts(run.stdout);
  }, 60_000);

  it('prints every alert as the email and the Slack message', () => {
    const { first, second } = sections(run.stdout);
    expect(run.code).toBe(0);
    expect(first.match(/^Subject: \[[A-Z]+\] /gm)).toHaveLength(alertCount(first));
    expect(second.match(/^Subject: \[[A-Z]+\] /gm)).toHaveLength(7);
    expect(first.match(ALERT_LINE)).toBeNull();
  });

  it('names where and who in every subject, and gives no two alerts the same subject', () => {
    for (const { subject, email } of alerts) {
      const project = /^Project: +(\S+) /m.exec(email)?.[1];
      const org = /^Organization: +(.+?) \(/m.exec(email)?.[1];
      const actor = /^Who: +(\S+)/m.exec(email)?.[1] ?? '';
      const where = project ?? org ?? '';
      expect(where, subject).not.toBe('');
      expect(subject.includes(where) || (project !== undefined && subject.includes(org ?? '')), subject).toBe(
        true,
      );
      const who = /^Who: +no user recorded/m.test(email)
        ? 'no user recorded'
        : /^Who: +not known: the inventory/m.test(email)
          ? 'inventory'
          : actor === 'API'
            ? (/^Who: +(API key \S+)/m.exec(email)?.[1] ?? '')
            : // A long subject keeps the person and leaves out their e-mail domain.
              actor.slice(0, actor.indexOf('@') + 1 || undefined);
      expect(subject, email.slice(0, 400)).toContain(who);
      expect(subject.length).toBeLessThanOrEqual(99);
    }
    const subjects = alerts.map((alert) => alert.subject);
    expect(new Set(subjects).size).toBe(subjects.length);
  });

  it('says each fact once, the severity in the subject and one line of the email, and in the Slack title', () => {
    for (const { subject, email, slack } of alerts) {
      const severity = /^\[([A-Z]+)\]/.exec(subject)?.[1] ?? '?';
      expect(email.match(new RegExp(`\\b${severity}\\b`, 'gi')), subject).toHaveLength(1);
      expect(slack.match(new RegExp(`\\b${severity}\\b`, 'gi')), subject).toHaveLength(1);
      const head = email.slice(email.indexOf('\n') + 1);
      const emailFacts = factValues(head, /^[A-Z][\w .]*: +(.+)$/gm);
      expect(repeated(emailFacts), subject).toEqual([]);
      const slackFacts = factValues(slack, /^│ [A-Z][\w .]*: (.+)$/gm);
      expect(repeated(slackFacts), subject).toEqual([]);
    }
  });

  it('gives every alert a summary, facts in words, and times that read the same later', () => {
    for (const { subject, email, slack } of alerts) {
      expect(email, subject).toMatch(/\nWhat happened\n-+\n\S/);
      expect(slack, subject).toMatch(/^│ 🚨|^│ 🔴|^│ 🟠|^│ 🟡|^│ ℹ️/m);
      expect(slack.split('\n')[3] ?? '', subject).not.toMatch(/^│ (Rule|When|Found):/);
      const changed = /\nWhat changed\n-+\n([\s\S]*?)(?:\n\n|$)/.exec(email)?.[1] ?? '';
      for (const label of factValues(changed, /^([^:\n]+):/gm)) expect(label, subject).toMatch(/^[A-Z]/);
      for (const text of [email, slack]) {
        expect(text).not.toMatch(/\bago\)|just now|project \(none\)|person named above/);
        expect(text).not.toMatch(/^(│ )?Who: +API key id /m);
      }
    }
  });
});

describe('atlas-audit-alerts demo --push, as npm start -- --push runs it', () => {
  let result: CliResult;
  let temporary: string;

  beforeAll(async () => {
    temporary = await mkdtemp(join(tmpdir(), 'demo-push-test-'));
    result = await runCli(['demo', '--push'], { TMPDIR: temporary });
  }, 60_000);

  afterAll(async () => {
    await rm(temporary, { recursive: true, force: true });
  });

  it('exits 0 with nothing on stderr, after the two ticks and the push', () => {
    const parts = result.stdout.split(/^▶ /m);

    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(parts.map((part) => part.split('\n')[0])).toEqual([
      expect.stringMatching(/^atlas-audit-alerts demo: /),
      expect.stringMatching(/^Tick 1: /),
      expect.stringMatching(/^Five minutes later, /),
      expect.stringMatching(/^Tick 2: /),
      'Push: Atlas posts a signed webhook for a new event, and the poll it wakes reads up to now',
      'Summary',
      'Database audit logs: one object of a cluster exported to S3, read through the same rules',
    ]);
  });

  it('refuses the forged post, takes the signed one, and alerts once on the pushed event from the poll it wakes', () => {
    const push = result.stdout.split(/^▶ /m)[4] ?? '';

    expect(push).toMatch(/^ {2}a post with a forged signature: +401 \(refused, nothing queued\)$/m);
    expect(push).toMatch(
      /^ {2}Atlas's signed post, 1\.5 s after the event: +202 \(the project queued for a poll\)$/m,
    );
    expect(push).toMatch(/^ {2}push: polling project:[0-9a-f]{24}, up to now$/m);
    expect(push.match(ALERT_LINE)).toEqual([
      '  MEDIUM    SSH session started on payments-prod-shard-00-01.mongodb.net (Acme Corp, by support@mongodb.example)',
    ]);
    expect(alertCount(push)).toBe(1);
    expect(push).toMatch(/^ {2}The alert was printed \d+\.\d s after Atlas recorded its event; /m);
  });

  it('adds the push to the summary table, beside the two ticks', () => {
    const summary = result.stdout.split(/^▶ /m)[5] ?? '';

    expect(summary).toMatch(/^Summary\n +tick 1 +tick 2 +push +total\n─+\n/);
    expect(summary).toMatch(/^sources polled +12 +12 +1\n/m);
    expect(summary).toMatch(/^alerts medium +\d+ +\d+ +1 +\d+\n/m);
  });
});
