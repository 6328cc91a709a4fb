import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { registerRunCommand } from '../../cli/commands/run.js';
import { main } from '../../cli/main.js';
import { type AtlasSimulator, startSimulator } from '../../simulator/index.js';
import {
  expectedAlertFingerprints,
  fingerprintOf,
  readOutbox,
  runPollCommand,
} from './poll-command-harness.js';

/** The README's worked example: a user layer on top of the built-in pack. */
const EXAMPLE = fileURLToPath(new URL('../../examples/my-rules', import.meta.url));
const PACKAGE = fileURLToPath(new URL('../../package.json', import.meta.url));
const CREDENTIALS = { publicKey: 'layertests', privateKey: 'fake-private-key-for-tests' } as const;
const ENV = {
  MONGODB_ATLAS_PUBLIC_API_KEY: CREDENTIALS.publicKey,
  MONGODB_ATLAS_PRIVATE_API_KEY: CREDENTIALS.privateKey,
};
/** In the default seed: the organization Acme Labs and its project research-sandbox. */
const ORG = '64b5c9e2f1a3d40012ab3c02';
const PROJECT = '64b5ca17f1a3d40012ab3d21';

/** Runs the command in this process, capturing what it writes. */
async function run(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const out = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
    stdout += String(chunk);
    return true;
  });
  const err = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
    stderr += String(chunk);
    return true;
  });
  try {
    const code = await main(['node', 'atlas-audit-alerts', ...args]);
    return { code, stdout, stderr };
  } finally {
    out.mockRestore();
    err.mockRestore();
  }
}

let directory = '';

beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), 'rule-layers-cli-'));
});

afterAll(async () => {
  await rm(directory, { recursive: true, force: true });
});

describe('rule layers on the command line, with the README example', () => {
  it('validates builtin and the user layer, naming both', async () => {
    const { code, stdout, stderr } = await run('rules', 'validate', 'builtin', EXAMPLE);

    expect(code).toBe(0);
    expect(stderr).toBe('');
    expect(stdout).toMatch(
      new RegExp(
        `^\\d+ rules \\(\\d+ disabled\\), \\d+ lists and \\d+ inline tests in 14 files \\(layers: builtin, ${EXAMPLE}\\): valid\\n$`,
      ),
    );
  });

  it('takes the layers as --rules too', async () => {
    const { code, stdout } = await run('rules', 'validate', '--rules', 'builtin', EXAMPLE);

    expect(code).toBe(0);
    expect(stdout).toContain(`(layers: builtin, ${EXAMPLE}): valid`);
  });

  it('runs the shipped tests on the shipped rules and the layer tests on the tuned ones, saying which layer', async () => {
    const { code, stdout } = await run('rules', 'test', 'builtin', EXAMPLE);
    const lines = stdout.trim().split('\n');
    const shownExample = relative(process.cwd(), EXAMPLE);

    expect(code).toBe(0);
    expect(lines.at(-1)).toMatch(/^\d+ passed, 0 failed$/);
    expect(lines).toContain('ok    database-user-deleted › deleted (builtin: rules/database-users.yaml:95)');
    expect(lines).toContain(
      `ok    database-user-deleted › a deletion is high (${EXAMPLE}: ${shownExample}/tuning.yaml:23)`,
    );
    expect(lines).toContain(
      `ok    backup-schedule-changed › schedule changed (${EXAMPLE}: ${shownExample}/backups.yaml:19)`,
    );
  });

  it('evaluates events with the tuned rules', async () => {
    const events = join(directory, 'events.jsonl');
    const lines = [
      {
        id: 'office',
        eventTypeName: 'NETWORK_PERMISSION_ENTRY_ADDED',
        groupId: 'g1',
        whitelistEntry: '203.0.113.9/32',
      },
      {
        id: 'elsewhere',
        eventTypeName: 'NETWORK_PERMISSION_ENTRY_ADDED',
        groupId: 'g1',
        whitelistEntry: '198.51.100.9/32',
      },
      {
        id: 'ci',
        eventTypeName: 'MONGODB_USER_DELETED',
        dbUserUsername: 'a',
        username: 'ci-deployer@example.com',
      },
      {
        id: 'person',
        eventTypeName: 'MONGODB_USER_DELETED',
        dbUserUsername: 'a',
        username: 'ana@example.com',
      },
      { id: 'joined', eventTypeName: 'JOINED_ORG', orgId: 'o1', targetUsername: 'new@example.com' },
      {
        id: 'partner',
        eventTypeName: 'INVITED_TO_ORG',
        username: 'ana@example.com',
        targetUsername: 'bo@partner.example',
      },
      {
        id: 'backup',
        eventTypeName: 'CPS_SNAPSHOT_RETENTION_MODIFIED_AUDIT',
        groupId: 'g1',
        created: '2024-03-18T14:00:00Z',
      },
    ];
    await writeFile(events, `${lines.map((line) => JSON.stringify(line)).join('\n')}\n`);

    const tuned = await run('rules', 'eval', '--rules', 'builtin', EXAMPLE, '--events', events);
    const shipped = await run('rules', 'eval', '--events', events);
    const alertsOf = (stdout: string) =>
      stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { ruleId: string; severity: string; eventIds: string[] })
        .map((alert) => [alert.eventIds[0], alert.ruleId, alert.severity]);

    expect(tuned.code).toBe(0);
    expect(alertsOf(tuned.stdout)).toEqual([
      ['elsewhere', 'network-access-entry-added', 'low'],
      ['person', 'database-user-deleted', 'high'],
      ['backup', 'backup-policy-changed', 'medium'],
      ['backup', 'backup-schedule-changed', 'medium'],
    ]);
    expect(alertsOf(shipped.stdout)).toEqual([
      ['office', 'network-access-entry-added', 'low'],
      ['elsewhere', 'network-access-entry-added', 'low'],
      ['ci', 'database-user-deleted', 'low'],
      ['person', 'database-user-deleted', 'low'],
      ['joined', 'user-joined-organization', 'low'],
      ['partner', 'org-user-invited-other-domain', 'medium'],
      ['backup', 'backup-policy-changed', 'medium'],
    ]);
  });

  it('prints warnings with file, line and column, and still validates', async () => {
    const layer = join(directory, 'untested');
    await mkdir(layer);
    const text = [
      'rules:',
      '  - id: untested-rule',
      '    name: Untested',
      '    severity: low',
      '    match: { eventTypeName: GROUP_DELETED }',
      '    title: Project deleted',
      'exceptions:',
      '  - name: office',
      '    rules: [network-acess-entry-added]',
      '    match: { remoteAddress: 203.0.113.9 }',
      '',
    ].join('\n');
    await writeFile(join(layer, 'rules.yaml'), text);

    const { code, stdout, stderr } = await run('rules', 'validate', 'builtin', layer);

    expect(code).toBe(0);
    expect(stdout).toMatch(/: valid \(2 warnings\)\n$/);
    const file = relative(process.cwd(), join(layer, 'rules.yaml'));
    const shown = file.startsWith('..') ? join(layer, 'rules.yaml') : file;
    expect(stderr).toContain(
      `${shown}:2:9: warning: rule "untested-rule" has no tests: add tests: with an event it alerts on and one it does not, so that \`rules test\` shows when a change stops it firing [UNTESTED_RULE]\n 2 |   - id: untested-rule\n   |         ^^^^^^^^^^^^^\n`,
    );
    expect(stderr).toContain(
      `${shown}:9:13: warning: exception "office" names rule "network-acess-entry-added", which no layer so far defines (did you mean "network-access-entry-added"?): it applies to no rule of that id [EXCEPTION_NEVER_MATCHES]`,
    );
    expect(stderr).toMatch(/\[EXCEPTION_NEVER_MATCHES\]\n.*\n.*\n$/);
  });

  it('fails on an override of an unknown rule, with its place and a did you mean', async () => {
    const layer = join(directory, 'typo');
    await mkdir(layer);
    await writeFile(
      join(layer, 'tuning.yaml'),
      'overrides:\n  - rule: user-joined-organisation\n    enabled: false\n',
    );

    const { code, stderr } = await run('rules', 'validate', 'builtin', layer);

    expect(code).toBe(1);
    expect(stderr).toMatch(
      /tuning\.yaml:2:11: no earlier layer defines a rule "user-joined-organisation" \(did you mean "user-joined-organization"\?\)/,
    );
  });
});

describe('run with rule layers, against the simulator', () => {
  let sim: AtlasSimulator;

  beforeAll(async () => {
    sim = await startSimulator({ ...CREDENTIALS });
  });

  afterAll(async () => {
    await sim?.stop();
  });

  it('alerts with the tuned rules, each alert naming the pack version and the layers', async () => {
    const runWith = async (name: string, ...rules: string[]) => {
      const folder = join(directory, name);
      await mkdir(folder);
      const outbox = join(folder, 'outbox.jsonl');
      const args = [
        'run',
        '--base-url',
        sim.baseUrl,
        '--org',
        ORG,
        '--project',
        PROJECT,
        '--state',
        `file:${join(folder, 'state.json')}`,
        '--once',
        '--notify',
        `outbox:${outbox}`,
        ...(rules.length === 0 ? [] : ['--rules', ...rules]),
      ];
      const result = await runPollCommand(args, { env: ENV, cwd: folder, register: registerRunCommand });
      return { code: result.code, entries: await readOutbox(outbox) };
    };
    const version = (JSON.parse(await readFile(PACKAGE, 'utf8')) as { version: string }).version;

    const shipped = await runWith('shipped');
    const tuned = await runWith('tuned', 'builtin', EXAMPLE);

    expect(shipped.code).toBe(0);
    expect(tuned.code).toBe(0);
    expect(tuned.entries.length).toBeGreaterThan(0);
    // What the shipped rules raise on every event the simulator holds by now: the two runs start a
    // moment apart, so the newest events may fall inside one run's window and not the other's.
    const shippedFingerprints = new Set(
      await expectedAlertFingerprints({
        baseUrl: sim.baseUrl,
        credentials: CREDENTIALS,
        orgIds: [ORG],
        projectIds: [PROJECT],
      }),
    );
    expect(shipped.entries.length).toBeGreaterThan(0);
    for (const entry of tuned.entries) expect(shippedFingerprints.has(fingerprintOf(entry))).toBe(true);
    const contexts = tuned.entries.map(
      (entry) =>
        (
          JSON.parse((JSON.parse(String(entry.Message)) as { default: string }).default) as {
            metadata: { additionalContext: Record<string, string> };
          }
        ).metadata.additionalContext,
    );
    for (const context of contexts) {
      expect(context).toMatchObject({ rulePackVersion: version, ruleLayers: `builtin, ${EXAMPLE}` });
    }
    const emails = tuned.entries.map(
      (entry) => (JSON.parse(String(entry.Message)) as { email: string }).email,
    );
    for (const email of emails) {
      expect(email).toContain(`\nRule pack ${version}; rule `);
    }
  }, 120_000);
});
