import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { main } from '../../cli/main.js';
import { loadRuleLayers } from '../../cli/rule-layers.js';

const bin = fileURLToPath(new URL('../../cli/bin.mjs', import.meta.url));

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

const RULE = `rules:
  - id: project-deleted
    name: Project deleted
    severity: high
    match: { eventTypeName: GROUP_DELETED }
    title: 'Project {{groupId}} deleted'
    tests:
      - name: deleted
        event: { eventTypeName: GROUP_DELETED, groupId: g1 }
        expect: { alert: true, title: Project g1 deleted }
      - name: created
        event: { eventTypeName: GROUP_CREATED, groupId: g1 }
        expect: { alert: false }
  - id: many-reads
    name: Many reads
    severity: medium
    match: { eventTypeName: DATA_EXPLORER }
    group_by: [username]
    threshold: { count: 2, window: 10m }
    title: '{{username}} read a lot'
    tests:
      - name: wrong on purpose
        events: [{ eventTypeName: DATA_EXPLORER, username: a, created: '2024-01-01T00:00:00Z' }]
        expect: { alert: true }
`;

describe('atlas-audit-alerts rules', () => {
  let directory = '';

  beforeAll(async () => {
    directory = await mkdtemp(join(tmpdir(), 'rules-cli-'));
    await writeFile(join(directory, 'rules.yaml'), RULE);
    await writeFile(join(directory, 'broken.yaml'), RULE.replace('severity: high', 'severty: high'));
  });

  afterAll(async () => {
    await rm(directory, { recursive: true, force: true });
  });

  it('validates the built-in rules and prints a count', async () => {
    const { code, stdout } = await run('rules', 'validate');

    expect(code).toBe(0);
    expect(stdout).toMatch(
      /^\d+ rules \(\d+ disabled\), \d+ lists and \d+ inline tests in 12 files: valid\n$/,
    );
  });

  it('prints every problem with its file, line and column, and exits 1', async () => {
    const file = join(directory, 'broken.yaml');

    const { code, stdout, stderr } = await run('rules', 'validate', file);

    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(stderr).toContain(
      `${file}:4:5: unknown key "severty" (did you mean "severity"?) [SCHEMA]\n 4 |     severty: high\n   |     ^^^^^^^\n`,
    );
    expect(stderr).toContain('2 problems in 1 file');
  });

  it('refuses rule layers that would not fit the function, with the figures, and exits 1', async () => {
    // Three rules whose runbooks are nearly 8 MiB each (the most a rule file may hold): the bundle's
    // text and the pack hold them all.
    const runbook = (id: string) =>
      `rules:\n  - id: ${id}\n    name: ${id}\n    severity: low\n    match: { eventTypeName: GROUP_DELETED }\n    title: ${id}\n    runbook: ${'r'.repeat(8 * 2 ** 20 - 1024)}\n`;
    const layer = join(directory, 'heavy');
    await mkdir(layer, { recursive: true });
    await writeFile(join(layer, 'a.yaml'), runbook('heavy-a'));
    await writeFile(join(layer, 'b.yaml'), runbook('heavy-b'));
    await writeFile(join(layer, 'c.yaml'), runbook('heavy-c'));

    const small = await run('rules', 'validate', layer, '--memory', '128');
    const large = await run('rules', 'validate', layer, '--memory', '1024');

    expect(small.code).toBe(1);
    expect(small.stdout).toBe('');
    expect(small.stderr.split('\n').at(-2)).toMatch(
      /^atlas-audit-alerts: The rule pack would not fit the function: loaded, its 3 rules and 0 exceptions \(24\.0 MiB serialized\) hold \d+\.\d MiB of heap \(compiled in \d+\.\d s here\), and a 128 MiB function gives its rules at most 29\.0 MiB, a quarter of its 116 MiB heap: the rest holds the events of a tick\. .*\(poller\.memoryMiB when deploying; check with rules validate --memory\)\.$/,
    );
    expect(large.code).toBe(0);
  });

  it('exits 2 on a memory Lambda cannot give', async () => {
    const { code, stderr } = await run('rules', 'validate', '--memory', '64');

    expect(code).toBe(2);
    expect(stderr).toContain('use a whole number of MiB from 128 to 10240');
  });

  it('runs inline tests, one line each, and exits 1 when one fails', async () => {
    const { code, stdout } = await run('rules', 'test', join(directory, 'rules.yaml'));

    expect(code).toBe(1);
    expect(stdout.split('\n')).toEqual([
      expect.stringMatching(/^ok {4}project-deleted › deleted \(.*rules\.yaml:8\)$/),
      expect.stringMatching(/^ok {4}project-deleted › created \(.*rules\.yaml:11\)$/),
      expect.stringMatching(/^FAIL {2}many-reads › wrong on purpose \(.*rules\.yaml:22\)$/),
      '        expected an alert, got none',
      '2 passed, 1 failed',
      '',
    ]);
  });

  it('evaluates a JSON Lines file in order, stateful rules on event time', async () => {
    const events = join(directory, 'events.jsonl');
    const lines = [
      { id: 'r1', eventTypeName: 'DATA_EXPLORER', username: 'ana', created: '2024-01-01T00:01:00Z' },
      { id: 'd1', eventTypeName: 'GROUP_DELETED', groupId: 'g9' },
      { id: 'r2', eventTypeName: 'DATA_EXPLORER', username: 'ana', created: '2024-01-01T00:02:00Z' },
    ];
    await writeFile(events, `${lines.map((line) => JSON.stringify(line)).join('\n')}\n`);

    const { code, stdout, stderr } = await run(
      'rules',
      'eval',
      '--rules',
      join(directory, 'rules.yaml'),
      '--events',
      events,
    );

    expect(code).toBe(0);
    expect(
      stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line)),
    ).toEqual([
      {
        ruleId: 'project-deleted',
        severity: 'high',
        title: 'Project g9 deleted',
        summary: '',
        eventIds: ['d1'],
        fingerprint: expect.stringMatching(/^project-deleted:/),
      },
      {
        ruleId: 'many-reads',
        severity: 'medium',
        title: 'ana read a lot',
        summary: '',
        eventIds: ['r1', 'r2'],
        fingerprint: expect.stringMatching(/^many-reads:/),
      },
    ]);
    expect(stderr).toBe('2 alerts from 3 events\n');
  });

  it('reads an Atlas events page and warns about entries no rule can read', async () => {
    const page = join(directory, 'page.json');
    const results = [
      { id: 'd1', eventTypeName: 'GROUP_DELETED', groupId: 'g1' },
      { eventtypename: 'GROUP_DELETED' },
      'text',
    ];
    await writeFile(page, JSON.stringify({ links: [], results, totalCount: 3 }));

    const { code, stdout, stderr } = await run('rules', 'eval', '--events', page);

    expect(code).toBe(0);
    expect(
      stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line).ruleId),
    ).toEqual(['project-deleted']);
    expect(stderr).toContain('entry 2 (id none) has no eventTypeName and its keys are all lower case');
    expect(stderr).toContain('entry 3 is not an object: skipped');
  });

  it('exits 2 when the events file is missing or not JSON', async () => {
    const notJson = join(directory, 'bad.jsonl');
    await writeFile(notJson, '{"id": 1}\n{oops\n');

    const missing = await run('rules', 'eval', '--events', join(directory, 'none.json'));
    const broken = await run('rules', 'eval', '--events', notJson);

    expect([missing.code, broken.code]).toEqual([2, 2]);
    expect(missing.stderr).toContain('cannot read the events file');
    expect(broken.stderr).toContain('bad.jsonl line 2 is not JSON');
  });

  it('prints the JSON Schema that is committed next to the rules', async () => {
    const committed = JSON.parse(
      await readFile(new URL('../../rules/rule-file.schema.json', import.meta.url), 'utf8'),
    );

    const { code, stdout } = await run('rules', 'schema');

    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toEqual(committed);
  });

  it('exits 1 through the installed bin when rules are invalid', () => {
    const result = spawnSync(process.execPath, [bin, 'rules', 'validate', join(directory, 'broken.yaml')], {
      encoding: 'utf8',
    });

    expect(result.status).toBe(1);
    expect(result.stderr).toContain('unknown key "severty"');
  });
  describe('warnings', () => {
    let builtinRuleCount = 0;
    beforeAll(async () => {
      builtinRuleCount = (await loadRuleLayers([])).rules.length;
    });
    const WARNED = `lists:
  unused_ranges: [192.0.2.0/24]
rules:
  - id: rule-change
    name: Rule change
    severity: low
    match: { eventTypeName: GROUP_DELETD }
    title: 'Project {{groupId}} deleted'
`;

    it('fails on an unknown event type of the user layer by default, printing the other warnings among it', async () => {
      const file = join(directory, 'warned.yaml');
      await writeFile(file, WARNED);

      const { code, stdout, stderr } = await run('rules', 'validate', 'builtin', file);

      expect(code).toBe(1);
      expect(stdout).toBe('');
      expect(stderr).toContain(
        `${file}:2:3: warning: list "unused_ranges" is defined but no rule uses it [UNUSED_LIST]\n 2 |   unused_ranges: [192.0.2.0/24]\n   |   ^^^^^^^^^^^^^\n   = hint: use it in a rule as {list: unused_ranges}, or remove it\n`,
      );
      expect(stderr).toContain(
        `${file}:7:29: "GROUP_DELETD" is not a known Atlas event type, so no event will match it [UNKNOWN_EVENT_TYPE]`,
      );
      expect(stderr).toMatch(/\n1 problem in 1 file\n$/);
    });

    it('validates an event type newer than the catalog that the rule names with lint-allow, by default', async () => {
      const file = join(directory, 'newer.yaml');
      await writeFile(
        file,
        `rules:
  - id: brand-new
    # lint-allow UNKNOWN_EVENT_TYPE BRAND_NEW_TYPE: newer than the catalog
    name: Brand new
    severity: low
    match: { eventTypeName: BRAND_NEW_TYPE }
    title: 'Brand new event in {{groupId}}'
`,
      );

      const { code, stdout, stderr } = await run('rules', 'validate', 'builtin', file);

      expect(code, stderr).toBe(0);
      expect(stdout).toMatch(/: valid/);
      expect(stderr).not.toContain('BRAND_NEW_TYPE');
    });

    it('prints warnings with file, line and column, and still validates, with --no-strict', async () => {
      const file = join(directory, 'warned.yaml');
      await writeFile(file, WARNED);

      const { code, stdout, stderr } = await run('rules', 'validate', '--no-strict', 'builtin', file);

      expect(code).toBe(0);
      expect(stdout).toMatch(
        /^\d+ rules \(\d+ disabled\), \d+ lists and \d+ inline tests in \d+ files \(layers: builtin, .*warned\.yaml\): valid \(3 warnings\)\n$/,
      );
      expect(stderr).toContain(
        `${file}:7:29: warning: "GROUP_DELETD" is not a known Atlas event type, so no event will match it [UNKNOWN_EVENT_TYPE]`,
      );
    });

    it('fails on every warning with --strict, printing them as errors', async () => {
      const file = join(directory, 'warned.yaml');
      await writeFile(file, WARNED);

      const { code, stdout, stderr } = await run('rules', 'validate', '--strict', 'builtin', file);

      expect(code).toBe(1);
      expect(stdout).toBe('');
      expect(stderr).toContain(`${file}:7:29: "GROUP_DELETD" is not a known Atlas event type`);
      expect(stderr).not.toContain('warning:');
      expect(stderr).toContain('3 problems in 1 file');
    });

    it('warns when the layers leave the built-in pack out, naming how to put it first', async () => {
      const file = join(directory, 'alone.yaml');
      await writeFile(file, WARNED.replace('GROUP_DELETD', 'GROUP_DELETED').replace(/lists:\n.*\n/, ''));

      const { code, stdout, stderr } = await run('rules', 'validate', file);

      expect(code).toBe(0);
      expect(stdout).toBe('1 rule (0 disabled), 0 lists and 0 inline tests in 1 file: valid (2 warnings)\n');
      expect(stderr).toContain(
        `${file}: warning: builtin is not among the rule layers (${file}), so the ${builtinRuleCount} rules of the built-in pack are off and only the 1 rule of ${file} runs; to tune the built-in pack, give builtin first: --rules builtin ${file}, or rules.directories: [builtin, ${file}] [LAYER_ORDER]`,
      );
    });

    it('passes --strict on the built-in rules', async () => {
      const { code, stderr } = await run('rules', 'validate', '--strict');

      expect(code).toBe(0);
      expect(stderr).toBe('');
    });
  });

  describe('coverage', () => {
    const COVERAGE_RULES = `rules:
  - id: project-deleted
    name: Project deleted
    severity: high
    match: { eventTypeName: [GROUP_DELETED, NOT_A_TYPE] }
    title: 'Project deleted'
  - id: org-renamed
    name: Org renamed
    severity: low
    match: { eventTypeName: ORG_RENAMED }
    title: 'Org renamed'
  - id: by-employee
    name: By employee
    severity: info
    match: { isGlobalAdmin: true }
    title: 'Employee action'
  - id: off
    name: Off
    severity: info
    enabled: false
    match: { eventTypeName: GROUP_CREATED }
    title: 'Off'
`;

    it('prints per rule the types it can match, and the uncovered types by scope', async () => {
      const file = join(directory, 'coverage.yaml');
      await writeFile(file, COVERAGE_RULES);

      const { code, stdout } = await run('rules', 'coverage', file);

      expect(code).toBe(0);
      const lines = stdout.split('\n');
      expect(lines[0]).toMatch(/^RULE +SEVERITY +TYPES +EVENT TYPES$/);
      expect(lines[1]).toMatch(/^project-deleted +high +1 +GROUP_DELETED \(unknown: NOT_A_TYPE\)$/);
      expect(lines[2]).toMatch(/^org-renamed +low +1 +ORG_RENAMED$/);
      expect(lines[3]).toMatch(
        /^by-employee +info +\d{3} +any type with isGlobalAdmin \(not counted as coverage\)$/,
      );
      expect(stdout).toContain('3 enabled rules (1 disabled rule left out)\n');
      expect(stdout).toMatch(/^project event types: 1 of 749 covered$/m);
      expect(stdout).toMatch(/^organization event types: \d+ of \d+ covered$/m);
      expect(stdout).toMatch(/^security-relevant event types: 1 of \d{3} covered$/m);
      expect(stdout).toContain('Uncovered security-relevant event types (');
      expect(stdout).toContain('\n  API_KEY_CREATED (Programmatic access)\n');
      expect(stdout).not.toContain('\n  GROUP_DELETED (');
      expect(stdout).toContain('Uncovered project event types (748):\n');
      expect(stdout).toContain('\n  GROUP_CREATED\n');
      expect(stdout.split('Uncovered project event types')[1]).not.toContain('\n  GROUP_DELETED\n');
      expect(stdout).toContain('covered event types Atlas can push: 0 of 2 (2 poll-only)\n');
      expect(stdout.split('Poll-only covered event types (2)')[1]).toContain('\n  GROUP_DELETED\n');
    });

    it('prints one JSON document with --json', async () => {
      const file = join(directory, 'coverage.yaml');
      await writeFile(file, COVERAGE_RULES);

      const { code, stdout } = await run('rules', 'coverage', '--json', file);

      expect(code).toBe(0);
      const report = JSON.parse(stdout) as {
        rules: { id: string; eventTypes: string[]; namesEventTypes: boolean }[];
        disabledRules: number;
        scopes: Record<string, { known: number; covered: number; uncovered: string[] }>;
        security?: { covered: number; uncovered: { type: string; area: string }[] };
      };
      expect(report.rules.map((rule) => rule.id)).toEqual(['project-deleted', 'org-renamed', 'by-employee']);
      expect(report.rules[0]).toMatchObject({
        eventTypes: ['GROUP_DELETED'],
        unknownEventTypes: ['NOT_A_TYPE'],
      });
      expect(report.disabledRules).toBe(1);
      expect(report.scopes.project).toMatchObject({ known: 749, covered: 1 });
      expect(report.scopes.project?.uncovered).toContain('GROUP_CREATED');
      expect(report.scopes.organization?.uncovered).not.toContain('ORG_RENAMED');
      expect(report.security?.covered).toBe(1);
      expect(report.security?.uncovered).toContainEqual({
        type: 'API_KEY_CREATED',
        area: 'Programmatic access',
      });
    });

    it('reports every security-relevant type covered by the built-in pack', async () => {
      const { code, stdout } = await run('rules', 'coverage');

      expect(code).toBe(0);
      expect(stdout).toMatch(/^security-relevant event types: (\d+) of \1 covered$/m);
      expect(stdout).not.toContain('Uncovered security-relevant event types');
    });

    it('reports which covered types Atlas can push and which are poll-only', async () => {
      // Act
      const text = await run('rules', 'coverage');
      const json = await run('rules', 'coverage', '--json');

      // Assess
      expect(text.code).toBe(0);
      const match = /^covered event types Atlas can push: (\d+) of (\d+) \((\d+) poll-only\)$/m.exec(
        text.stdout,
      );
      expect(Number(match?.[1]) + Number(match?.[3])).toBe(Number(match?.[2]));
      const pushable = text.stdout.split('Covered event types Atlas can push (')[1]?.split('\n\n')[0] ?? '';
      const pollOnly = text.stdout.split('Poll-only covered event types (')[1]?.split('\n\n')[0] ?? '';
      expect(pushable).toContain('\n  NETWORK_PERMISSION_ENTRY_ADDED\n');
      expect(pushable).not.toContain('\n  API_KEY_CREATED\n');
      expect(pollOnly).toContain('\n  API_KEY_CREATED\n');
      expect(pollOnly).not.toContain('\n  NETWORK_PERMISSION_ENTRY_ADDED\n');
      const report = JSON.parse(json.stdout) as { push: { pushable: string[]; pollOnly: string[] } };
      expect(report.push.pushable).toHaveLength(Number(match?.[1]));
      expect(report.push.pollOnly).toContain('API_KEY_CREATED');
    });
  });
});
