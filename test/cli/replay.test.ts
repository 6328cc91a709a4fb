import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerRulesCommand } from '../../cli/commands/rules.js';
import { AtlasClient, type AtlasEvent } from '../../shared/atlas/index.js';
import { createRuleEngine, loadRulePack, MemoryCounterStore } from '../../shared/rules/index.js';
import { type AtlasSimulator, startSimulator } from '../../simulator/index.js';
import { type DigestServer, listPage, startDigestServer } from '../support/digest-server.js';
import { runCli } from './cli-runner.js';
import { CapturedOutput, runPollCommand } from './poll-command-harness.js';

const BUILT_IN_RULES = fileURLToPath(new URL('../../rules/', import.meta.url));
const CREDENTIALS = { publicKey: 'replaytests', privateKey: 'fake-private-key-for-replay-tests' } as const;
const CREDENTIALS_AS_USER = { username: CREDENTIALS.publicKey, password: CREDENTIALS.privateKey };
const ENV = {
  MONGODB_ATLAS_PUBLIC_API_KEY: CREDENTIALS.publicKey,
  MONGODB_ATLAS_PRIVATE_API_KEY: CREDENTIALS.privateKey,
};
/** In the default seed: Acme Corp, with four projects; payments-prod holds an event a day old. */
const ORG = '64b5c9e2f1a3d40012ab3c01';
const PAYMENTS_PROD = '64b5ca17f1a3d40012ab3d11';
const PAYMENTS_STAGING = '64b5ca17f1a3d40012ab3d12';

let sim: AtlasSimulator;
let directory: string;
/** The built-in rules, copied. */
let shipped: string;
/** The built-in rules with api-key-created raised to high and api-key-deleted disabled. */
let tuned: string;
/** Every event of ORG and its projects, as `fetch events` would save them. */
let eventsFile: string;
let orgEvents: AtlasEvent[];

beforeAll(async () => {
  sim = await startSimulator({ ...CREDENTIALS });
  directory = await mkdtemp(join(tmpdir(), 'atlas-audit-alerts-replay-test-'));
  shipped = join(directory, 'shipped');
  tuned = join(directory, 'tuned');
  await cp(BUILT_IN_RULES, shipped, { recursive: true });
  await cp(BUILT_IN_RULES, tuned, { recursive: true });
  const apiKeys = join(tuned, 'api-keys.yaml');
  const original = await readFile(apiKeys, 'utf8');
  const edited = original
    .replace(/(- id: api-key-created\n(?: {4}.*\n)*? {4}severity: )medium/, '$1high')
    .replace(/(- id: api-key-deleted\n)/, '$1    enabled: false\n');
  expect(edited.match(/severity: high/g)?.length).toBe((original.match(/severity: high/g)?.length ?? 0) + 1);
  expect(edited).toContain('- id: api-key-deleted\n    enabled: false\n');
  await writeFile(apiKeys, edited);
  const client = new AtlasClient({ baseUrl: sim.baseUrl, credentials: { kind: 'digest', ...CREDENTIALS } });
  try {
    orgEvents = await client.listOrgEvents(ORG).toArray();
  } finally {
    await client.close();
  }
  eventsFile = join(directory, 'events.jsonl');
  await writeFile(eventsFile, orgEvents.map((event) => `${JSON.stringify(event)}\n`).join(''));
});

afterAll(async () => {
  await sim?.stop();
  if (directory !== undefined) await rm(directory, { recursive: true, force: true });
});

function replay(
  args: readonly string[],
  options: { env?: Record<string, string>; tty?: boolean } = {},
): ReturnType<typeof runPollCommand> {
  return runPollCommand(['rules', 'replay', ...args], {
    register: registerRulesCommand,
    env: options.env ?? ENV,
    cwd: directory,
    stderr: new CapturedOutput({ isTTY: options.tty ?? false }),
  });
}

function jsonLines(text: string): Array<Record<string, unknown>> {
  return text
    .trimEnd()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

function summaryOf(text: string): Record<string, unknown> {
  const lines = jsonLines(text);
  const last = lines.at(-1);
  expect(last?.type).toBe('summary');
  return last ?? {};
}

/**
 * What the built-in rules raise on every event of the given sources created since `since`, worked
 * out without the command: listed with a client of its own, sorted, evaluated in one batch.
 */
async function expectedAlerts(sources: { orgIds: string[]; projectIds: string[] }, since: Date) {
  const client = new AtlasClient({ baseUrl: sim.baseUrl, credentials: { kind: 'digest', ...CREDENTIALS } });
  const events: AtlasEvent[] = [];
  try {
    for (const orgId of sources.orgIds)
      events.push(...(await client.listOrgEvents(orgId, { minDate: since }).toArray()));
    for (const groupId of sources.projectIds)
      events.push(...(await client.listProjectEvents(groupId, { minDate: since }).toArray()));
  } finally {
    await client.close();
  }
  events.sort(
    (a, b) => String(a.created).localeCompare(String(b.created)) || String(a.id).localeCompare(String(b.id)),
  );
  const engine = createRuleEngine({
    pack: await loadRulePack({ paths: [BUILT_IN_RULES] }),
    counters: new MemoryCounterStore(),
  });
  const alerts = await engine.evaluate(events);
  const bySeverity = { info: 0, low: 0, medium: 0, high: 0, critical: 0 };
  for (const alert of alerts) bySeverity[alert.severity] += 1;
  return { events: events.length, alerts: alerts.length, bySeverity };
}

const HOURS = 3_600_000;

describe('rules replay from Atlas', () => {
  it('reads an organization and all its projects and counts what the built-in rules raise', async () => {
    const orgProjects = sim.projects.filter((project) => project.orgId === ORG).map((project) => project.id);
    const expected = await expectedAlerts(
      { orgIds: [ORG], projectIds: orgProjects },
      new Date(Date.now() - 2 * HOURS),
    );

    const result = await replay([
      '--base-url',
      sim.baseUrl,
      '--org',
      ORG,
      '--all-projects',
      '--since',
      '2h',
      '--json',
    ]);

    expect(result.code).toBe(0);
    expect(orgProjects).toHaveLength(4);
    const summary = summaryOf(result.stdout);
    expect(summary.events).toBe(expected.events);
    expect(summary.rules).toEqual({
      label: 'built-in rules',
      alerts: expected.alerts,
      bySeverity: expected.bySeverity,
      failures: 0,
    });
    expect(expected.alerts).toBeGreaterThan(20);
    expect((summary.input as { sources: string[] }).sources).toEqual([
      `org:${ORG}`,
      ...orgProjects.map((id) => `project:${id}`),
    ]);
    for (const source of (summary.input as { sources: string[] }).sources) {
      expect(result.stderr).toMatch(new RegExp(`^read ${source}: \\d+ events? in 1 page$`, 'm'));
    }
  });

  it('reads only events created since --since, a duration back or an instant', async () => {
    const args = ['--base-url', sim.baseUrl, '--project', PAYMENTS_PROD, '--json'];
    const dayOld = new Date(sim.startedAt - 24 * HOURS - 2 * HOURS).toISOString();

    const recent = summaryOf((await replay([...args, '--since', '2h'])).stdout);
    const twoDays = summaryOf((await replay([...args, '--since', '2d'])).stdout);
    const fromInstant = summaryOf((await replay([...args, '--since', dayOld])).stdout);

    // payments-prod holds one HOST_UP a day old and the rest within the hour.
    expect(twoDays.events).toBe((recent.events as number) + 1);
    expect(fromInstant.events).toBe(twoDays.events);
    const input = recent.input as { from: string; to: string };
    expect(Date.parse(input.to) - Date.parse(input.from)).toBe(2 * HOURS);
  });

  it('reads each repeated --project once, and no organization', async () => {
    const result = await replay([
      '--base-url',
      sim.baseUrl,
      '--project',
      PAYMENTS_PROD,
      '--project',
      PAYMENTS_STAGING,
      '--project',
      PAYMENTS_PROD,
      '--json',
    ]);

    expect(result.code).toBe(0);
    expect((summaryOf(result.stdout).input as { sources: string[] }).sources).toEqual([
      `project:${PAYMENTS_PROD}`,
      `project:${PAYMENTS_STAGING}`,
    ]);
  });

  it('prints a table on stdout and redraws a progress line on a terminal stderr', async () => {
    const result = await replay(['--base-url', sim.baseUrl, '--org', ORG, '--since', '2h'], { tty: true });

    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(
      /^Replayed 26 events from 1 organization created \d{4}-\d\d-\d\dT\d\d:\d\dZ to \d{4}-\d\d-\d\dT\d\d:\d\dZ\n--rules: {3}built-in rules\n\nrule +severity +matched +alerts\n─+\n/,
    );
    expect(result.stdout).toMatch(/^api-key-created +medium +1 +1$/m);
    expect(result.stdout).toMatch(/^privileged-change-outside-working-hours +disabled +- +-$/m);
    expect(result.stdout).toMatch(
      /^severity +alerts\n─+\ncritical +\d+\nhigh +\d+\nmedium +\d+\nlow +\d+\ninfo +\d+\nall +\d+\n$/m,
    );
    expect(result.stderr).toContain(`\r\u001b[2Kreading org:${ORG}: 26 events in 1 page`);
    expect(result.stderr).toContain(`\r\u001b[2Kread org:${ORG}: 26 events in 1 page\n`);
  });

  it('fails with exit 3 on refused credentials, and never prints a key', async () => {
    const wrong = 'fake-wrong-private-key-for-replay';

    const result = await replay(['--base-url', sim.baseUrl, '--org', ORG], {
      env: { ...ENV, MONGODB_ATLAS_PRIVATE_API_KEY: wrong },
    });

    expect(result.code).toBe(3);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain(
      `atlas-audit-alerts: Atlas answered 401 for GET /api/atlas/v2/orgs/${ORG}/events`,
    );
    expect(result.stderr).not.toContain(wrong);
    expect(result.stderr).not.toContain(CREDENTIALS.privateKey);
  });

  it('reads with a service account as well as with an API key', async () => {
    const account = sim.serviceAccount;
    if (account === undefined) expect.fail('the default seed has a service account');

    const result = await replay(['--base-url', sim.baseUrl, '--org', ORG, '--since', '2h', '--json'], {
      env: { MONGODB_ATLAS_CLIENT_ID: account.clientId, MONGODB_ATLAS_CLIENT_SECRET: account.clientSecret },
    });

    expect(result.code).toBe(0);
    expect(summaryOf(result.stdout).events).toBe(26);
    expect(result.stderr).not.toContain(account.clientSecret);
  });

  it('fails with exit 4 for a project Atlas does not know, even among projects it knows', async () => {
    const result = await replay([
      '--base-url',
      sim.baseUrl,
      '--project',
      PAYMENTS_PROD,
      '--project',
      '64b5ca17f1a3d40012ab3d99',
      '--project',
      PAYMENTS_STAGING,
    ]);

    expect(result.code).toBe(4);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/Atlas answered 404 \w+ for GET .*64b5ca17f1a3d40012ab3d99\/events/);
  });

  it('names the variables, never their values, when the credentials are incomplete', async () => {
    const result = await replay(['--base-url', sim.baseUrl, '--org', ORG], {
      env: { MONGODB_ATLAS_PUBLIC_API_KEY: CREDENTIALS.publicKey },
    });

    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      'atlas-audit-alerts: MONGODB_ATLAS_PRIVATE_API_KEY is not set: an API key needs both MONGODB_ATLAS_PUBLIC_API_KEY and MONGODB_ATLAS_PRIVATE_API_KEY\n',
    );
  });
});

describe('rules replay from an Atlas that never stops', () => {
  const servers: DigestServer[] = [];
  afterAll(async () => {
    await Promise.all(servers.map((server) => server.close()));
  });

  /** An organization whose events list has no end: 500 events a page, each with a next link. */
  async function endless(options: { delayMs?: number } = {}): Promise<DigestServer> {
    let origin = '';
    const server = await startDigestServer({
      ...CREDENTIALS_AS_USER,
      route: async (request) => {
        if (options.delayMs !== undefined) await new Promise((done) => setTimeout(done, options.delayMs));
        const page = Number(request.url.searchParams.get('pageNum') ?? '1');
        const next = new URLSearchParams(request.url.searchParams);
        next.set('pageNum', String(page + 1));
        const results = Array.from({ length: 500 }, (_, index) => ({
          id: `${page}-${index}`,
          created: '2024-05-01T12:00:00Z',
          eventTypeName: 'GROUP_DELETED',
        }));
        return {
          body: listPage(results, {
            self: request.target,
            next: `${origin}${request.url.pathname}?${next}`,
          }),
        };
      },
    });
    origin = server.baseUrl;
    servers.push(server);
    return server;
  }

  const readingFrom = (server: DigestServer, ...flags: string[]) =>
    replay([
      '--org',
      ORG,
      '--since',
      '7d',
      '--base-url',
      server.baseUrl,
      '--flavor',
      'ops-manager',
      ...flags,
    ]);

  it('stops past --max-events and says what to do, with exit 1', async () => {
    const server = await endless();

    const result = await readingFrom(server, '--max-events', '1200');

    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain(
      'atlas-audit-alerts: read 1,500 events from Atlas, more than --max-events (1,200): a replay holds every event in memory, so it stopped. Replay a shorter --since or fewer sources, or raise --max-events\n',
    );
    expect(server.requests.filter((request) => request.status === 200)).toHaveLength(3);
  });

  it('gives up after --timeout, with exit 5', async () => {
    const server = await endless({ delayMs: 400 });

    const result = await readingFrom(server, '--timeout', '1s');

    expect(result.code).toBe(5);
    expect(result.stderr).toContain(
      'atlas-audit-alerts: gave up after 1s (--timeout): Atlas answered too slowly, or the sources hold more pages than that allows.',
    );
  });

  it('refuses --timeout and --max-events with --events, which reads no Atlas', async () => {
    const result = await replay(['--events', 'events.jsonl', '--timeout', '1m', '--max-events', '10']);

    expect(result.code).toBe(2);
    expect(result.stderr).toContain('and --timeout, --max-events are for reading Atlas');
  });
});

describe('rules replay --events', () => {
  it('names the first ten entries no rule can read and counts the others in one line', async () => {
    const noisy = join(directory, 'noisy.jsonl');
    const lines = [
      ...Array.from({ length: 3_000 }, () => '42'),
      ...Array.from({ length: 2_000 }, (_, index) =>
        JSON.stringify({ id: `u${index}`, created: '2024-05-01T12:00:00Z' }),
      ),
      JSON.stringify({ id: 'ok', created: '2024-05-01T12:00:00Z', eventTypeName: 'GROUP_DELETED' }),
    ];
    await writeFile(noisy, `${lines.join('\n')}\n`);

    const result = await replay(['--events', noisy]);
    const warnings = result.stderr.split('\n').filter((line) => line.startsWith('atlas-audit-alerts: '));

    expect(result.code).toBe(0);
    expect(warnings).toHaveLength(11);
    expect(warnings[0]).toBe(`atlas-audit-alerts: ${noisy} entry 1 is not an object: skipped`);
    expect(warnings[10]).toBe(
      `atlas-audit-alerts: ${noisy} has 2,990 more entries not an object (skipped) and 2,000 more entries without an eventTypeName besides the 10 named above`,
    );
  });

  it('replays a file in (created, id) order, each id once, whatever order the file has', async () => {
    const shuffled = join(directory, 'shuffled.json');
    const reversed = [...orgEvents].reverse();
    await writeFile(shuffled, JSON.stringify([...reversed, orgEvents[3]]));

    const fromFile = await replay(['--events', eventsFile, '--json']);
    const fromShuffled = await replay(['--events', shuffled, '--json']);

    expect(fromFile.code).toBe(0);
    expect(fromShuffled.code).toBe(0);
    const strip = (text: string) =>
      jsonLines(text).map((line) => (line.type === 'summary' ? { ...line, input: null } : line));
    expect(strip(fromShuffled.stdout)).toEqual(strip(fromFile.stdout));
    expect(summaryOf(fromFile.stdout).events).toBe(orgEvents.length);
    expect(fromShuffled.stderr).toContain(
      '1 event repeats the id of an earlier one: each id is evaluated once, as the poller does',
    );
  });

  it('compares the built-in pack with the built-in pack tuned by a user layer, as rule layers', async () => {
    // Prepare: the README's worked example as the user layer.
    const example = fileURLToPath(new URL('../../examples/my-rules/', import.meta.url));

    // Act
    const result = await replay([
      '--events',
      eventsFile,
      '--rules',
      'builtin',
      '--compare',
      'builtin',
      example,
      '--json',
    ]);

    // Assess
    expect(result.code).toBe(0);
    const lines = jsonLines(result.stdout);
    expect(lines.find((line) => line.ruleId === 'database-user-deleted')).toMatchObject({
      rules: { severity: 'low' },
      compare: { severity: 'high' },
    });
    expect(lines.find((line) => line.ruleId === 'backup-schedule-changed')).toMatchObject({
      rules: null,
      compare: { enabled: true },
    });
  });

  it('says where the events came from, and shows event text without its control characters', async () => {
    const hostile = join(directory, 'hostile.jsonl');
    const event = {
      id: 'evil\u001b[31mid',
      created: '2024-05-01T12:00:00Z',
      eventTypeName: 'API_KEY_CREATED',
      orgId: ORG,
      targetPublicKey: 'abcd\u001b[2J\u001b]0;pwned\u0007efgh',
      username: 'mallory@evil.example',
    };
    await writeFile(hostile, `${JSON.stringify(event)}\n`);

    const result = await replay(['--events', hostile, '--rules', shipped, '--compare', tuned]);

    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(
      new RegExp(`^Replayed 1 event from ${hostile}\\n--rules: {3}${shipped}\\n--compare: ${tuned}\\n`),
    );
    expect(result.stdout).toContain(
      '\n\n2024-05-01T12:00:00Z  API_KEY_CREATED  evil\uFFFD[31mid\n' +
        '  ~ api-key-created  medium → high  API key abcd\uFFFD[2J\uFFFD]0;pwned\uFFFDefgh created\n',
    );
    expect(result.stdout).not.toContain('\u001b');
    expect(result.stdout).not.toContain('\u0007');
  });

  it('fails with exit 2 for a file that cannot be read or is not JSON', async () => {
    const notJson = join(directory, 'broken.jsonl');
    await writeFile(notJson, '{"id": "a", "eventTypeName": "GROUP_DELETED"}\n{"id": \n');

    const missing = await replay(['--events', join(directory, 'missing.jsonl')]);
    const folder = await replay(['--events', directory]);
    const broken = await replay(['--events', notJson]);

    expect(missing.code).toBe(2);
    expect(missing.stderr).toBe(
      `atlas-audit-alerts: cannot read the events file ${join(directory, 'missing.jsonl')}: no such file\n`,
    );
    expect(folder.code).toBe(2);
    expect(folder.stderr).toContain('it is a directory; give a file of events');
    expect(broken.code).toBe(2);
    expect(broken.stderr).toMatch(
      /^atlas-audit-alerts: .*broken\.jsonl line 2 is not JSON \(.+\): give JSON Lines/,
    );
    for (const result of [missing, folder, broken]) expect(result.stdout).toBe('');
  });
});

describe('rules replay --compare', () => {
  it('shows two rule sets side by side and the events whose alerts changed', async () => {
    const result = await replay(['--events', eventsFile, '--rules', shipped, '--compare', tuned]);

    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^ +--rules +--compare$/m);
    expect(result.stdout).toMatch(/^rule +severity +matched +alerts +severity +matched +alerts +change$/m);
    expect(result.stdout).toMatch(/^api-key-created +medium +1 +1 +high +1 +1 +medium → high$/m);
    expect(result.stdout).toMatch(/^api-key-deleted +low +1 +1 +disabled +- +- +disabled$/m);
    expect(result.stdout).toMatch(/^api-key-roles-changed +high +1 +1 +high +1 +1$/m);
    expect(result.stdout).toMatch(/^high +(\d+) +(\d+) +\+1$/m);
    expect(result.stdout).toMatch(/^medium +\d+ +\d+ +-1$/m);
    expect(result.stdout).toMatch(/^low +\d+ +\d+ +-1$/m);
    expect(result.stdout).toContain(
      `2 of ${orgEvents.length} events raise different alerts with --compare (- only with --rules, + only with --compare, ~ changed):`,
    );
    expect(result.stdout).toMatch(
      /\n\n\S+Z {2}API_KEY_CREATED {2}[0-9a-f]{24}\n {2}~ api-key-created {2}medium → high {2}API key \w+ created\n/,
    );
    expect(result.stdout).toMatch(
      /\n\n\S+Z {2}API_KEY_DELETED {2}[0-9a-f]{24}\n {2}- api-key-deleted {2}low {7}API key \w+ deleted\n$/,
    );
    expect(result.stderr).toMatch(
      new RegExp(
        `^Replayed ${orgEvents.length} events: (\\d+) alerts with --rules, \\d+ alerts with --compare; 2 events changed$`,
        'm',
      ),
    );
  });

  it('prints JSON Lines: rule lines, change lines, then one summary line', async () => {
    const result = await replay(['--events', eventsFile, '--rules', shipped, '--compare', tuned, '--json']);

    expect(result.code).toBe(0);
    const lines = jsonLines(result.stdout);
    const types = lines.map((line) => line.type);
    expect(types).toEqual([...types.filter((type) => type === 'rule'), 'change', 'change', 'summary']);
    expect(lines.find((line) => line.ruleId === 'api-key-created' && line.type === 'rule')).toEqual({
      type: 'rule',
      ruleId: 'api-key-created',
      rules: { enabled: true, severity: 'medium', matched: 1, alerts: 1 },
      compare: { enabled: true, severity: 'high', matched: 1, alerts: 1 },
    });
    expect(lines.find((line) => line.ruleId === 'api-key-deleted' && line.type === 'rule')?.compare).toEqual({
      enabled: false,
      severity: 'low',
      matched: 0,
      alerts: 0,
    });
    const created = orgEvents.find((event) => event.eventTypeName === 'API_KEY_CREATED');
    const deleted = orgEvents.find((event) => event.eventTypeName === 'API_KEY_DELETED');
    expect(lines.filter((line) => line.type === 'change')).toEqual([
      {
        type: 'change',
        change: 'changed',
        ruleId: 'api-key-created',
        event: {
          id: created?.id,
          eventTypeName: 'API_KEY_CREATED',
          created: created?.created,
          orgId: ORG,
          groupId: null,
        },
        rules: { severity: 'medium', title: expect.stringMatching(/^API key \w+ created$/) },
        compare: { severity: 'high', title: expect.stringMatching(/^API key \w+ created$/) },
      },
      {
        type: 'change',
        change: 'removed',
        ruleId: 'api-key-deleted',
        event: {
          id: deleted?.id,
          eventTypeName: 'API_KEY_DELETED',
          created: deleted?.created,
          orgId: ORG,
          groupId: null,
        },
        rules: { severity: 'low', title: expect.stringMatching(/^API key \w+ deleted$/) },
        compare: null,
      },
    ]);
    const summary = lines.at(-1) ?? {};
    const rules = summary.rules as { alerts: number; bySeverity: Record<string, number> };
    const compare = summary.compare as { alerts: number; bySeverity: Record<string, number> };
    expect(summary).toMatchObject({
      type: 'summary',
      events: orgEvents.length,
      input: { kind: 'file', path: eventsFile },
      rules: { label: shipped, failures: 0 },
      compare: { label: tuned, failures: 0 },
      eventsChanged: 2,
      changes: 2,
    });
    expect(compare.alerts).toBe(rules.alerts - 1);
    expect(compare.bySeverity.high).toBe((rules.bySeverity.high ?? 0) + 1);
  });

  it('refuses a layer of overrides compared without builtin before it, and says to give builtin first with --compare', async () => {
    const myRules = join(directory, 'my-rules');
    await mkdir(myRules, { recursive: true });
    await writeFile(
      join(myRules, 'tuning.yaml'),
      'overrides:\n  - rule: api-key-created\n    severity: high\n  - rule: api-key-deleted\n    enabled: false\n',
    );

    const alone = await runCli(['rules', 'replay', '--events', eventsFile, '--compare', myRules]);
    const over = await runCli(['rules', 'replay', '--events', eventsFile, '--compare', 'builtin', myRules]);

    expect(alone.status).toBe(1);
    expect(alone.stderr).toContain('no earlier layer defines a rule "api-key-created"');
    expect(alone.stderr).toContain(
      `give builtin first (--compare builtin ${myRules}, or rules.directories: [builtin, ${myRules}])`,
    );
    expect(alone.stderr).not.toContain('--rules builtin');
    expect(over.status, over.stderr).toBe(0);
    expect(over.stdout).toMatch(/^api-key-created +medium +1 +1 +high +1 +1 +medium → high$/m);
  });

  it('prints each rule problem and exits 1 when a rule set does not load', async () => {
    const broken = join(directory, 'broken-rules');
    await cp(join(BUILT_IN_RULES, 'lists.yaml'), join(broken, 'lists.yaml'), { recursive: true });
    await writeFile(
      join(broken, 'bad.yaml'),
      'rules:\n  - id: no-severity\n    name: x\n    match: { eventTypeName: A }\n    title: x\n',
    );

    const result = await runCli(['rules', 'replay', '--events', eventsFile, '--compare', broken]);

    expect(result.status).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/bad\.yaml:2:\d+/);
    expect(result.stderr).toMatch(/1 problem in 1 file\n$/);
  });
});

describe('rules replay flags', () => {
  it.each([
    [['--events', 'events.jsonl', '--org', ORG], '--events replays a file, and --org is for reading Atlas'],
    [
      ['--events', 'events.jsonl', '--since', '7d', '--base-url', 'http://127.0.0.1:1'],
      'and --since, --base-url are for reading Atlas',
    ],
    [[], 'nothing to replay: give --events FILE, or --org ID and/or --project ID'],
    [['--project', PAYMENTS_PROD, '--all-projects'], '--all-projects reads the projects of each --org'],
    [['--org', ORG, '--since', 'last week'], "option '--since <when>' argument 'last week' is invalid"],
    [['--org', ORG, '--since', '0'], 'use a duration from 1s to 366d'],
    [['--org', 'acme'], '"acme" is not an Atlas id'],
    [['--events', 'events.jsonl', '--colour'], "unknown option '--colour'"],
  ])('refuses %j with exit 2', async (args, message) => {
    const result = await replay(args);

    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain(message);
  });
});
