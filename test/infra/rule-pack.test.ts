import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { RULE_PACK_FILE } from '../../functions/poller/bundled-rule-pack.js';
import { buildRulePackFile } from '../../infra/rule-pack-file.js';
import {
  createRuleEngine,
  deserializeRulePack,
  MemoryCounterStore,
  RuleLoadError,
  type RulePack,
  RulePackTooLargeError,
  rulePackHeapBudget,
} from '../../shared/rules/index.js';
import { CDK_APP_TIMEOUT_MS, runCdkApp } from './support/cdk-app.js';
import { synthesizeDeployment } from './support/deployment.js';
import { cdkJsonContext, createTestWorkspace, PROJECT_ROOT, VALID_RULE_FILE } from './support/workspace.js';

const BROKEN_RULE_FILE = `rules:
  - id: api-key-created
    name: API key created
    severity: urgent
    match:
      eventTypeName: API_KEY_CREATED
    title: "API key created in {{ orgId }}"
`;

describe('buildRulePackFile', () => {
  const workspace = createTestWorkspace();
  afterAll(() => workspace.remove());

  it('writes the validated pack as the JSON file the functions read beside their bundle', () => {
    const rules = workspace.write('rules.yaml', VALID_RULE_FILE);

    const module = buildRulePackFile({
      paths: [rules],
      baseDirectory: PROJECT_ROOT,
      outputDirectory: join(workspace.directory, 'out'),
    });

    expect(module.ruleCount).toBe(1);
    expect(module.path).toBe(join(workspace.directory, 'out', RULE_PACK_FILE));
    const pack = readModulePack(module.path);
    expect(pack.rules.map((rule) => rule.spec.id)).toEqual(['api-key-created']);
  });

  it('compiles the default rule pack of the repository', async () => {
    const module = buildRulePackFile({
      paths: ['rules'],
      baseDirectory: PROJECT_ROOT,
      outputDirectory: join(workspace.directory, 'default'),
    });

    expect(module.ruleCount).toBeGreaterThan(0);
  });

  it('compiles the built-in pack tuned by a user layer, with the pack version and the tuning layers', async () => {
    const module = buildRulePackFile({
      paths: ['builtin', 'examples/my-rules'],
      baseDirectory: PROJECT_ROOT,
      outputDirectory: join(workspace.directory, 'layered'),
    });
    const pack = readModulePack(module.path);

    const version = (
      JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as { version: string }
    ).version;
    expect(pack.version).toBe(version);
    expect(pack.rules.find((rule) => rule.spec.id === 'database-user-deleted')).toMatchObject({
      spec: { severity: 'high' },
      layers: ['builtin', 'examples/my-rules'],
    });
    expect(pack.rules.find((rule) => rule.spec.id === 'backup-schedule-changed')?.layers).toEqual([
      'examples/my-rules',
    ]);
    const engine = createRuleEngine({ pack, counters: new MemoryCounterStore() });
    const alerts = await engine.evaluate([
      {
        id: 'a',
        eventTypeName: 'NETWORK_PERMISSION_ENTRY_ADDED',
        groupId: 'g1',
        whitelistEntry: '203.0.113.9/32',
      },
      {
        id: 'b',
        eventTypeName: 'NETWORK_PERMISSION_ENTRY_ADDED',
        groupId: 'g1',
        whitelistEntry: '198.51.100.9/32',
      },
    ]);
    expect(alerts.map((alert) => [alert.events[0]?.id, alert.rulePack])).toEqual([
      ['b', { version, layers: ['builtin', 'examples/my-rules'] }],
    ]);
  });

  it('fails by default on an unknown event type of a user layer, and only warns with strict: false', async () => {
    const warned = workspace.write(
      'warned.yaml',
      VALID_RULE_FILE.replace('API_KEY_CREATED', 'API_KEY_CRATED').replace(
        'id: api-key-created',
        'id: my-key-created',
      ),
    );
    const options = {
      paths: ['builtin', warned],
      baseDirectory: PROJECT_ROOT,
      outputDirectory: join(workspace.directory, 'warned'),
    };

    const byDefault = caught(() => buildRulePackFile(options));
    const lenient = buildRulePackFile({ ...options, strict: false });
    const strict = caught(() => buildRulePackFile({ ...options, strict: true }));

    expect(byDefault).toBeInstanceOf(RuleLoadError);
    expect((byDefault as Error).message).toMatch(
      /^Rule files are invalid \(1 problem\)[^\n]*\n[^\n]*warned\.yaml:6:22: "API_KEY_CRATED" is not a known Atlas event type, so no event will match it \[UNKNOWN_EVENT_TYPE\]/,
    );
    expect(
      lenient.warnings.map((warning) => [warning.code, warning.line, warning.column, warning.hint]),
    ).toEqual([
      ['UNTESTED_RULE', 2, 9, undefined],
      ['UNKNOWN_EVENT_TYPE', 6, 22, 'did you mean "API_KEY_CREATED"?'],
    ]);
    expect(strict).toBeInstanceOf(RuleLoadError);
    expect((strict as Error).message).toMatch(
      /Rule files are invalid \(2 problems\)[\s\S]*\[UNTESTED_RULE\]/,
    );
  });

  it('warns when the first layer is not builtin and holds fewer rules than the built-in pack', async () => {
    const rules = workspace.write('alone.yaml', VALID_RULE_FILE);

    const module = buildRulePackFile({
      paths: [rules],
      baseDirectory: PROJECT_ROOT,
      outputDirectory: join(workspace.directory, 'alone'),
    });

    expect(module.layers).toEqual([rules]);
    expect(module.warnings.find((warning) => warning.code === 'LAYER_ORDER')?.message).toMatch(
      /^builtin is not among the rule layers \(.*alone\.yaml\), so the \d+ rules of the built-in pack are off and only the 1 rule of .*alone\.yaml runs; to tune the built-in pack, give builtin first: --rules builtin .*alone\.yaml, or rules\.directories: \[builtin, .*alone\.yaml\]$/,
    );
  });

  it('fails when the pack, loaded, would not fit the smallest function that loads it', async () => {
    // Four rules whose runbooks are nearly 8 MiB each (the most a rule file may hold): the bundle's
    // text alone, 32 MiB, passes a 128 MiB function's 29 MiB. The loaded pack may hold no more than that
    // (V8 can keep a parsed string as a slice of the text), so the text is all that is sure to count.
    const heavy = (id: string) =>
      workspace.write(
        `${id}.yaml`,
        `rules:\n  - id: ${id}\n    name: ${id}\n    severity: low\n    match: { eventTypeName: GROUP_DELETED }\n    title: ${id}\n    runbook: ${'r'.repeat(8 * 2 ** 20 - 1024)}\n`,
      );
    const options = {
      paths: [heavy('heavy-a'), heavy('heavy-b'), heavy('heavy-c'), heavy('heavy-d')],
      baseDirectory: PROJECT_ROOT,
      outputDirectory: join(workspace.directory, 'heavy'),
    };

    const fits = buildRulePackFile({
      ...options,
      memory: { memoryMiB: 512, setting: 'poller.memoryMiB' },
    });
    const refused = caught(() =>
      buildRulePackFile({ ...options, memory: { memoryMiB: 128, setting: 'fanOut.workerMemoryMiB' } }),
    );

    expect(refused).toBeInstanceOf(RulePackTooLargeError);
    expect((refused as Error).message).toMatch(
      /a 128 MiB function gives its rules at most 29\.0 MiB.*\(fanOut\.workerMemoryMiB\)\.$/,
    );
    expect(fits.heapBytes).toBeGreaterThan(rulePackHeapBudget(128));
  });

  it('fails with the loader message: file, line, column, the line and a caret', async () => {
    const broken = workspace.write('broken.yaml', BROKEN_RULE_FILE);

    const refused = caught(() =>
      buildRulePackFile({
        paths: [broken],
        baseDirectory: PROJECT_ROOT,
        outputDirectory: join(workspace.directory, 'broken'),
      }),
    );

    expect(refused).toBeInstanceOf(RuleLoadError);
    expect((refused as Error).message).toMatch(
      /broken\.yaml:4:15: "urgent" is not allowed here[^\n]*\n 4 \| {5}severity: urgent\n {3}\| {15}\^{6}/,
    );
  });
});

describe('a deployment with rule layers', () => {
  const workspace = createTestWorkspace();
  afterAll(() => workspace.remove());

  it('synthesizes with rules.directories [builtin, a user layer] and bundles the tuned pack', async () => {
    const { rulePack, app } = await synthesizeDeployment({
      workspace,
      name: 'layers',
      settings: {
        sources: { orgIds: ['5f4e3d2c1b0a998877665544'] },
        rules: { directories: ['builtin', 'examples/my-rules'] },
      },
    });

    app.synth();
    const pack = readModulePack(rulePack.path);
    expect(rulePack.path.startsWith(join(workspace.directory, 'layers', 'atlas-audit-alerts'))).toBe(true);
    expect(pack.rules.find((rule) => rule.spec.id === 'backup-schedule-changed')?.layers).toEqual([
      'examples/my-rules',
    ]);
    expect(pack.rules.find((rule) => rule.spec.id === 'user-joined-organization')?.spec.enabled).toBe(false);
    expect(pack.rules.find((rule) => rule.spec.id === 'database-user-deleted')?.spec.severity).toBe('high');
  }, 180_000);

  it('refuses a user layer that copies a built-in rule, naming the overrides form', async () => {
    const copy = workspace.write(
      'copied-api-keys.yaml',
      readFileSync(join(PROJECT_ROOT, 'rules', 'api-keys.yaml'), 'utf8'),
    );

    const synth = synthesizeDeployment({
      workspace,
      name: 'copy',
      settings: {
        sources: { orgIds: ['5f4e3d2c1b0a998877665544'] },
        rules: { directories: ['builtin', copy] },
      },
    });

    await expect(synth).rejects.toThrow(
      /copied-api-keys\.yaml:7:9: rule "api-key-created" is already defined in [^\n]*rules\/api-keys\.yaml:7 \(layer builtin\): to change it from this layer, write "overrides: \[\{ rule: api-key-created, severity: high \}\]"/,
    );
  });
});

describe('the CDK app', () => {
  const workspace = createTestWorkspace();
  afterAll(() => workspace.remove());

  it(
    'fails synth on a broken rule with the loader message and no stack trace',
    () => {
      const broken = workspace.write('broken.yaml', BROKEN_RULE_FILE);

      const run = runCdkApp(
        {
          atlasAuditAlerts: {
            sources: { orgIds: ['5f4e3d2c1b0a998877665544'] },
            rules: { directories: [broken] },
          },
        },
        join(workspace.directory, 'a'),
      );

      expect(run.status).toBe(1);
      expect(run.stderr).toMatch(
        /Rule files are invalid \(1 problem\)[\s\S]*broken\.yaml:4:15: "urgent" is not allowed here/,
      );
      expect(run.stderr).not.toMatch(/^\s+at /m);
    },
    CDK_APP_TIMEOUT_MS,
  );

  it(
    'fails synth on a configuration with nothing to poll, saying what to set, with no stack trace',
    () => {
      const run = runCdkApp({ ...cdkJsonContext() }, join(workspace.directory, 'none'));

      expect(run.status).toBe(1);
      expect(run.stderr).toContain(
        'The deploy configuration names no Atlas organization and no project: the deployed poller would have nothing to poll and fail every tick.',
      );
      expect(run.stderr).toContain('\n  - sources.orgIds: your organization ids');
      expect(run.stderr).toContain('To deploy before you know them, set sources.allowNone: true');
      expect(run.stderr).not.toMatch(/^\s+at /m);
    },
    CDK_APP_TIMEOUT_MS,
  );

  it(
    'fails synth on invalid settings, listing each with its path',
    () => {
      const settings = { sources: { orgIds: ['not-an-id'] }, alerts: { emails: ['nobody'] } };

      const run = runCdkApp({ atlasAuditAlerts: settings }, join(workspace.directory, 'b'));

      expect(run.status).toBe(1);
      expect(run.stderr).toContain('is invalid (2 settings)');
      expect(run.stderr).toContain('  - sources.orgIds[0]: must be a 24-character hexadecimal Atlas id');
      expect(run.stderr).toContain('  - alerts.emails[0]: must be an email address');
      expect(run.stderr).not.toMatch(/^\s+at /m);
    },
    CDK_APP_TIMEOUT_MS,
  );
});

/** What a call threw (undefined when it returned): one build, examined by several expectations. */
function caught(call: () => unknown): unknown {
  try {
    call();
    return undefined;
  } catch (error) {
    return error;
  }
}

/** The pack a rule pack file carries, read back as the Lambda reads it. */
function readModulePack(path: string): RulePack {
  return deserializeRulePack(JSON.parse(readFileSync(path, 'utf8')));
}
