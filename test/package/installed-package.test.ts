import { type SpawnSyncReturns, spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { builtinModules } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addAuditAlertsStack } from '../../infra/audit-alerts-app.js';
import { DEPLOY_CONFIG_CONTEXT_KEY } from '../../infra/config.js';
import { type AtlasSimulator, startSimulator } from '../../simulator/index.js';
import { cdkJsonContext } from '../infra/support/workspace.js';
import { npmEnvironment, type PackedInstall, packAndInstall, REPO_ROOT } from '../support/packed-install.js';

/**
 * The budget of the tarball, about a quarter above what it measured when last raised (for the audit log
 * function's bundle): 5,853,558 bytes packed, 22,912,653 unpacked, 1,145 files. Most of it is the five
 * functions' prebuilt bundles with their source maps (the audit log function's alone 1.9 MB and 2.6 MB
 * unpacked; the construct deploys them, so a CDK app needs no bundling step); the rest is 371 modules,
 * each with its declarations and source map. Code that needs more raises it deliberately, with the
 * figures `npm pack --dry-run` prints.
 */
const BUDGET = { packedBytes: 7_300_000, unpackedBytes: 28_600_000, files: 1_400 };

/** In the simulator's default seed: Acme Corp, and a key that is Organization Owner there (throwaway values). */
const ORG = '64b5c9e2f1a3d40012ab3c01';
const OWNER_KEY = {
  MONGODB_ATLAS_PUBLIC_API_KEY: 'qkzvbgyt',
  MONGODB_ATLAS_PRIVATE_API_KEY: 'fake-private-key-ci-automation',
};

/** A layer of one user rule over the built-in pack, with its inline tests. */
const USER_RULE = `rules:
  - id: backup-schedule-changed
    name: Backup schedule changed
    severity: medium
    match:
      eventTypeName: CPS_SNAPSHOT_SCHEDULE_UPDATED_AUDIT
    title: 'Backup schedule changed in {{ groupId }}'
    summary: Snapshots may now be taken less often.
    tests:
      - name: schedule changed
        event: { id: b1, eventTypeName: CPS_SNAPSHOT_SCHEDULE_UPDATED_AUDIT, groupId: g1, created: '2024-03-18T14:00:00Z' }
        expect: { alert: true, title: Backup schedule changed in g1 }
      - name: a snapshot taken
        event: { id: b2, eventTypeName: CPS_SNAPSHOT_SUCCESSFUL, groupId: g1, created: '2024-03-18T14:00:00Z' }
        expect: { alert: false }
`;

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

let scratch: string;
let installed: PackedInstall;
let sim: AtlasSimulator;

/**
 * Runs the installed command on the Node running the tests, in `cwd`, with no Atlas credentials but
 * those given; asynchronously, so that this process's simulator keeps answering.
 */
function installedCli(args: readonly string[], cwd: string, env: Record<string, string> = {}): Promise<Run> {
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.startsWith('MONGODB_ATLAS_')),
  );
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [installed.bin, ...args], {
      cwd,
      env: { ...inherited, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

/** A new empty folder under the test's own, as a user's project or home folder. */
async function emptyFolder(name: string): Promise<string> {
  const folder = join(scratch, name);
  await mkdir(folder);
  return folder;
}

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'atlas-audit-alerts-package-'));
  installed = await packAndInstall({ directory: await emptyFolder('pack') });
  sim = await startSimulator();
}, 600_000);

afterAll(async () => {
  await sim?.stop();
  if (scratch !== undefined) await rm(scratch, { recursive: true, force: true });
});

describe('the tarball npm pack makes', () => {
  it('holds the built JavaScript with its declarations and maps, the rule pack, the JSON Schemas, the bin, README and LICENSE, and nothing else', async () => {
    const paths = installed.files.map((file) => file.path);
    const ruleFiles = (await readdir(join(REPO_ROOT, 'rules'))).map((name) => `rules/${name}`);
    const schemaFiles = existsSync(join(REPO_ROOT, 'schemas'))
      ? (await readdir(join(REPO_ROOT, 'schemas'))).map((name) => `schemas/${name}`)
      : [];
    const dataCopies = paths.filter((path) => /^dist\/.+\.(json|yaml)$/.test(path));
    const modules = paths.filter((path) => path.startsWith('dist/') && path.endsWith('.js'));

    const unexpected = paths.filter(
      (path) =>
        !['package.json', 'README.md', 'LICENSE', 'cli/bin.mjs'].includes(path) &&
        !ruleFiles.includes(path) &&
        !schemaFiles.includes(path) &&
        !/^dist\/.+\.(js|js\.map|d\.ts)$/.test(path) &&
        !/^dist\/lambda\/(poller|dispatcher|worker|receiver|audit-log)\/index\.mjs(\.map)?$/.test(path) &&
        !dataCopies.includes(path),
    );
    expect(unexpected).toEqual([]);
    expect(paths.filter((path) => /(^|\/)(test|tests|bench|fixtures?|examples)\//.test(path))).toEqual([]);
    expect(paths.filter((path) => path.endsWith('.ts') && !path.endsWith('.d.ts'))).toEqual([]);
    // Each data file is one a module reads beside itself in the sources, copied as it is.
    for (const copy of dataCopies) {
      expect(await readFile(join(REPO_ROOT, copy.slice('dist/'.length)), 'utf8')).toBe(
        await readFile(join(installed.app, 'node_modules', 'atlas-audit-alerts', copy), 'utf8'),
      );
    }
    expect(paths).toEqual(
      expect.arrayContaining([
        ...ruleFiles,
        'rules/rule-file.schema.json',
        // The JSON Schemas published for what destinations receive, where the repository has them.
        ...schemaFiles,
        'dist/cli/start.js',
        'dist/infra/index.js',
        'dist/infra/index.d.ts',
        // The functions' prebuilt bundles, which the construct deploys.
        ...['poller', 'dispatcher', 'worker', 'receiver', 'audit-log'].flatMap((role) => [
          `dist/lambda/${role}/index.mjs`,
          `dist/lambda/${role}/index.mjs.map`,
        ]),
        'LICENSE',
      ]),
    );
    expect(modules.length).toBeGreaterThan(100);
    expect(modules.filter((path) => !paths.includes(path.replace(/\.js$/, '.d.ts')))).toEqual([]);
    expect(modules.filter((path) => !paths.includes(`${path}.map`))).toEqual([]);
  });

  it(`stays within its budget: ${BUDGET.packedBytes.toLocaleString('en-US')} bytes packed, ${BUDGET.unpackedBytes.toLocaleString('en-US')} unpacked, ${BUDGET.files} files`, () => {
    const figures = {
      packedBytes: installed.size,
      unpackedBytes: installed.unpackedSize,
      files: installed.files.length,
    };

    expect(figures.packedBytes, JSON.stringify(figures)).toBeLessThanOrEqual(BUDGET.packedBytes);
    expect(figures.unpackedBytes, JSON.stringify(figures)).toBeLessThanOrEqual(BUDGET.unpackedBytes);
    expect(figures.files, JSON.stringify(figures)).toBeLessThanOrEqual(BUDGET.files);
  });

  it('depends on exactly the packages its JavaScript imports, so an install gets them and no more', async () => {
    const root = join(installed.app, 'node_modules', 'atlas-audit-alerts');
    const manifest = JSON.parse(await readFile(join(root, 'package.json'), 'utf8')) as {
      dependencies?: Record<string, string>;
      peerDependencies?: Record<string, string>;
      peerDependenciesMeta?: Record<string, { optional?: boolean }>;
    };
    const imported = new Set<string>();
    for (const path of installed.files.map((file) => file.path).filter((path) => /\.(m?js)$/.test(path))) {
      for (const specifier of importSpecifiers(await readFile(join(root, path), 'utf8'))) {
        if (
          specifier.startsWith('.') ||
          specifier.startsWith('node:') ||
          builtinModules.includes(specifier)
        ) {
          continue;
        }
        const parts = specifier.split('/');
        imported.add(specifier.startsWith('@') ? parts.slice(0, 2).join('/') : (parts[0] ?? specifier));
      }
    }

    // The construct's imports are the CDK app's own packages, and `check --audit-bucket` loads the S3
    // client: optional peers, which a CLI user never installs.
    const peers = Object.keys(manifest.peerDependencies ?? {});
    expect([...imported].sort()).toEqual([...Object.keys(manifest.dependencies ?? {}), ...peers].sort());
    expect(peers.sort()).toEqual(['@aws-sdk/client-s3', 'aws-cdk-lib', 'constructs']);
    expect(peers.filter((peer) => manifest.peerDependenciesMeta?.[peer]?.optional !== true)).toEqual([]);
    expect(existsSync(join(installed.app, 'node_modules', 'aws-cdk-lib'))).toBe(false);
    expect(existsSync(join(installed.app, 'node_modules', '@aws-sdk', 'client-s3'))).toBe(false);
    // Nothing at run time needs what only builds and tests the sources.
    expect(existsSync(join(installed.app, 'node_modules', 'tsx'))).toBe(false);
    expect(existsSync(join(installed.app, 'node_modules', 'typescript'))).toBe(false);
  });
});

describe('atlas-audit-alerts installed from the tarball into an empty folder', () => {
  it('prints the help of the checkout through npx, and the version of the package', async () => {
    const checkout = spawnSync(process.execPath, [join(REPO_ROOT, 'cli', 'bin.mjs'), '--help'], {
      encoding: 'utf8',
    });
    const help = npx(['atlas-audit-alerts', '--help'], installed.app);
    const version = await installedCli(['--version'], installed.app);

    expect(help.stderr).toBe('');
    expect(help.status).toBe(0);
    expect(help.stdout).toBe(checkout.stdout);
    expect(help.stdout).toMatch(/^Usage: atlas-audit-alerts /);
    const { version: packageVersion } = JSON.parse(
      await readFile(join(REPO_ROOT, 'package.json'), 'utf8'),
    ) as {
      version: string;
    };
    expect(version).toEqual({ status: 0, stdout: `atlas-audit-alerts ${packageVersion}\n`, stderr: '' });
  }, 120_000);

  it('runs the demo, leaving nothing behind in its temporary folder', async () => {
    const folder = await emptyFolder('demo');
    const temporary = await emptyFolder('demo-tmp');

    const result = await installedCli(['demo'], folder, { TMPDIR: temporary });

    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    const headings = result.stdout.split('\n').filter((line) => line.startsWith('▶ '));
    expect(headings.map((line) => line.split(':')[0])).toEqual([
      '▶ Tick 1',
      '▶ Five minutes later, Atlas shows 3 new events',
      '▶ Tick 2',
      '▶ Summary',
      '▶ Database audit logs',
    ]);
    expect(result.stdout).toMatch(/^ {2}CRITICAL {2,}\S/m);
    expect(result.stdout).toMatch(
      /: \d+ lines, \d+ events, 1 alert \(settled\)\. See docs\/audit-logs\.md\.$/m,
    );
    expect(await readdir(temporary)).toEqual([]);
    expect(await readdir(folder)).toEqual([]);
  }, 120_000);

  it('validates a user rule layer over the built-in pack, and names the line of a broken one', async () => {
    const folder = await emptyFolder('rules');
    await mkdir(join(folder, 'my-rules'));
    await writeFile(join(folder, 'my-rules', 'backups.yaml'), USER_RULE);
    await mkdir(join(folder, 'broken'));
    await writeFile(join(folder, 'broken', 'typo.yaml'), USER_RULE.replace('    severity:', '    severty:'));

    const valid = await installedCli(['rules', 'validate', 'builtin', 'my-rules'], folder);
    const tested = await installedCli(['rules', 'test', 'my-rules'], folder);
    const broken = await installedCli(['rules', 'validate', 'builtin', 'broken'], folder);

    expect(valid.stderr).toBe('');
    expect(valid.status).toBe(0);
    expect(valid.stdout).toMatch(/ in \d+ files \(layers: builtin, my-rules\): valid\n$/);
    expect(tested.stdout.split('\n').filter((line) => line.startsWith('ok '))).toHaveLength(2);
    expect(tested.status).toBe(0);
    expect(broken.status).toBe(1);
    expect(broken.stderr).toContain('broken/typo.yaml:4:5: unknown key "severty"');
  }, 120_000);

  it('checks the Atlas it is pointed at with the credentials of the environment', async () => {
    const folder = await emptyFolder('check');

    const result = await installedCli(['check', '--base-url', sim.baseUrl, '--org', ORG], folder, OWNER_KEY);

    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(result.stdout).toContain('ok   credentials: Atlas accepts the API key (HTTP Digest)');
  }, 120_000);

  it('runs one tick with a state file and an outbox in the folder it runs from', async () => {
    const folder = await emptyFolder('run');

    const result = await installedCli(
      [
        'run',
        '--once',
        '--base-url',
        sim.baseUrl,
        '--org',
        ORG,
        '--all-projects',
        '--state',
        'file:state.json',
        '--notify',
        'outbox:alerts.jsonl',
      ],
      folder,
      OWNER_KEY,
    );

    expect(result.status, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/^tick .* · \d+ alerts?[:, ·]/m);
    const state = JSON.parse(await readFile(join(folder, 'state.json'), 'utf8')) as unknown;
    expect(state).toEqual(expect.any(Object));
    const alerts = (await readFile(join(folder, 'alerts.jsonl'), 'utf8')).trim().split('\n');
    expect(alerts.length).toBeGreaterThan(0);
    expect(JSON.parse(alerts[0] ?? '')).toHaveProperty('Subject');
  }, 120_000);
});

describe('the construct, from the installed package, in a CDK app of its own', () => {
  /** The settings both apps deploy: one organization, email, Slack, a user rule layer over the built-in pack. */
  const SETTINGS = {
    sources: { orgIds: [ORG] },
    alerts: {
      emails: ['security@example.com'],
      slack: { workspaceId: 'T0123ABCD', channelId: 'C0123ABCD' },
    },
    operations: { emails: ['platform@example.com'] },
    rules: { directories: ['builtin', 'my-rules'] },
  };

  /** Five lines of a user's app, as docs/deploy.md shows them, in plain JavaScript. */
  const USER_APP = `import { App, Stack } from 'aws-cdk-lib';
import { AtlasAuditAlerts } from 'atlas-audit-alerts';
const app = new App();
const stack = new Stack(app, 'AtlasAuditAlerts');
new AtlasAuditAlerts(stack, 'Default', ${JSON.stringify(SETTINGS)});
app.synth();
`;

  it('synthesizes with a user rule layer, and its template is what the repository app synthesizes for the same settings', async () => {
    // The user's app has the CDK of its own, as every CDK app does: the package does not install it.
    for (const name of ['aws-cdk-lib', 'constructs']) {
      const link = join(installed.app, 'node_modules', name);
      if (!existsSync(link)) await symlink(join(REPO_ROOT, 'node_modules', name), link, 'dir');
    }
    await mkdir(join(installed.app, 'my-rules'), { recursive: true });
    await writeFile(join(installed.app, 'my-rules', 'backups.yaml'), USER_RULE);
    await writeFile(join(installed.app, 'app.mjs'), USER_APP);
    const { atlasAuditAlerts: _defaults, ...featureFlags } = cdkJsonContext();
    const outdir = await emptyFolder('user-cdk-out');

    // As \`cdk synth\` runs an app: the context (feature flags from cdk.json) and the output folder in the environment.
    const synth = spawnSync(process.execPath, ['app.mjs'], {
      cwd: installed.app,
      encoding: 'utf8',
      env: {
        PATH: process.env.PATH ?? '',
        CDK_CONTEXT_JSON: JSON.stringify(featureFlags),
        CDK_OUTDIR: outdir,
      },
      timeout: 120_000,
    });
    expect(synth.stderr).toBe('');
    expect(synth.status).toBe(0);
    const userTemplate = JSON.parse(
      await readFile(join(outdir, 'AtlasAuditAlerts.template.json'), 'utf8'),
    ) as Record<string, unknown>;

    const repositoryApp = new App({
      outdir: await emptyFolder('repository-cdk-out'),
      context: { ...featureFlags, [DEPLOY_CONFIG_CONTEXT_KEY]: SETTINGS },
    });
    const { stack } = addAuditAlertsStack({ app: repositoryApp, projectRoot: installed.app });
    const { Description: _description, ...repositoryTemplate } = Template.fromStack(stack).toJSON();

    expect(userTemplate).toEqual(repositoryTemplate);
    const functions = Object.values(userTemplate.Resources as Record<string, { Type: string }>).filter(
      (resource) => resource.Type === 'AWS::Lambda::Function',
    );
    expect(functions.length).toBeGreaterThan(0);
    // The deployed pack holds the user's rule, tuned into the built-in pack.
    const asset = readdirSync(outdir).find(
      (name) => name.startsWith('asset.') && existsSync(join(outdir, name, 'rule-pack.json')),
    );
    const pack = JSON.parse(await readFile(join(outdir, asset ?? '', 'rule-pack.json'), 'utf8')) as {
      rules: { id: string }[];
    };
    expect(pack.rules.map((rule) => rule.id)).toContain('backup-schedule-changed');
    expect(pack.rules.length).toBeGreaterThan(100);
  }, 300_000);

  it('type-checks the TypeScript app of docs/deploy.md against the declarations the package ships', async () => {
    const deployDoc = await readFile(join(REPO_ROOT, 'docs', 'deploy.md'), 'utf8');
    const section = deployDoc.slice(deployDoc.indexOf('## Add it to your CDK app'));
    const snippet = /```ts\n([\s\S]*?)```/.exec(section)?.[1] ?? '';
    await writeFile(join(installed.app, 'docs-app.mts'), snippet);
    // A wrong setting must fail too: the props are typed, not any.
    await writeFile(
      join(installed.app, 'wrong-app.mts'),
      snippet.replace("emails: ['security@example.com']", 'emails: 42'),
    );
    const tsc = (file: string) =>
      spawnSync(
        process.execPath,
        [
          join(REPO_ROOT, 'node_modules', 'typescript', 'bin', 'tsc'),
          '--noEmit',
          '--strict',
          '--target',
          'es2022',
          '--module',
          'nodenext',
          '--moduleResolution',
          'nodenext',
          '--types',
          'node',
          '--typeRoots',
          join(REPO_ROOT, 'node_modules', '@types'),
          '--skipLibCheck',
          file,
        ],
        { cwd: installed.app, encoding: 'utf8', timeout: 120_000 },
      );

    const valid = tsc('docs-app.mts');
    const wrong = tsc('wrong-app.mts');

    expect(snippet).toContain("new AtlasAuditAlerts(stack, 'AuditAlerts', {");
    expect(valid.stdout + valid.stderr).toBe('');
    expect(valid.status).toBe(0);
    expect(wrong.stdout).toMatch(
      /wrong-app\.mts\(\d+,\d+\): error TS2322: Type 'number' is not assignable to type 'string\[\]/,
    );
  }, 120_000);

  it("refuses wrong props with the configuration file's messages, and settings that belong to the stack", async () => {
    const app = join(installed.app, 'wrong.mjs');
    await writeFile(
      app,
      `import { App, Stack } from 'aws-cdk-lib';
import { AtlasAuditAlerts } from 'atlas-audit-alerts';
const stack = new Stack(new App(), 'AtlasAuditAlerts');
for (const props of [{ sources: { orgIds: ['not-an-id'] }, alerts: { emails: ['nobody'] } }, { stackName: 'Other', sources: { orgIds: ['${ORG}'] } }]) {
  try { new AtlasAuditAlerts(stack, 'A' + Math.random(), props); } catch (error) { process.stdout.write(error.name + ': ' + error.message + '\\n'); }
}
`,
    );

    const run = spawnSync(process.execPath, [app], {
      cwd: installed.app,
      encoding: 'utf8',
      timeout: 120_000,
    });

    expect(run.stderr).toBe('');
    expect(run.stdout).toContain(
      'DeployConfigError: The deploy configuration from the props of AtlasAuditAlerts at AtlasAuditAlerts/A',
    );
    expect(run.stdout).toContain('  - sources.orgIds[0]: must be a 24-character hexadecimal Atlas id');
    expect(run.stdout).toContain('  - alerts.emails[0]: must be an email address');
    expect(run.stdout).toContain(
      '  - stackName: stackName belongs to the stack: give it to the Stack you put the construct in',
    );
  }, 120_000);
});

/** `npx ARGS` in `cwd`, offline: the command installed there, as a user runs it. */
function npx(args: readonly string[], cwd: string): SpawnSyncReturns<string> {
  return spawnSync('npx', ['--offline', ...args], { cwd, encoding: 'utf8', env: npmEnvironment() });
}

/** The module specifiers of `import ... from`, `export ... from` and `import('...')` in built JavaScript. */
function importSpecifiers(source: string): string[] {
  const found = source.matchAll(
    /^\s*(?:import|export)\s[^'";]*?from\s*['"]([^'"]+)['"]|^\s*import\s*['"]([^'"]+)['"]|\bimport\(\s*['"]([^'"]+)['"]\s*\)/gm,
  );
  return [...found].map((match) => match[1] ?? match[2] ?? match[3] ?? '');
}
