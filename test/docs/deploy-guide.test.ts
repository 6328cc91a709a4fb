import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { readRunConfigFile } from '../../cli/run-config-file.js';
import { parseDeployConfig } from '../../infra/config.js';
import { mergeSettings } from '../../infra/config-source.js';
import { codeBlocks, docPage, docPages, REPO_ROOT } from './support/markdown.js';
import { commandLines, type ShellCommand, simpleCommands } from './support/shell-commands.js';

/** Every command of every shell block of the README and docs/, in page order. */
function shellCommands(pages = docPages()): ShellCommand[] {
  return pages
    .flatMap(codeBlocks)
    .filter((block) => ['sh', 'bash', 'console'].includes(block.lang))
    .flatMap(commandLines)
    .flatMap(({ line, where }) => simpleCommands(line, where));
}

const flagValue = (command: ShellCommand, flag: string) => command.words[command.words.indexOf(flag) + 1];

describe('the deploy guide', () => {
  it('takes the stack name from a variable in every AWS CLI command', () => {
    const named = shellCommands().filter(
      (command) => command.words[0] === 'aws' && command.words.includes('--stack-name'),
    );
    const hardCoded = named.filter(
      (command) => !/^\$\w+$|^\$\{\w+\}$/.test(flagValue(command, '--stack-name') ?? ''),
    );

    expect(named.length).toBeGreaterThan(2);
    expect(hardCoded.map((command) => command.where)).toEqual([]);
  });

  it('invokes the poller with a read timeout the CLI will not retry within a tick, and a connect timeout', () => {
    const functionTimeout = parseDeployConfig({ input: {}, origin: 'defaults' }).poller.timeoutSeconds;
    const invokes = shellCommands().filter(
      (command) => command.words.slice(0, 3).join(' ') === 'aws lambda invoke',
    );
    const retried = invokes.filter((command) => {
      const read = Number(flagValue(command, '--cli-read-timeout'));
      return !command.words.includes('--cli-connect-timeout') || !(read === 0 || read > functionTimeout);
    });

    expect(invokes.length).toBeGreaterThan(0);
    expect(retried.map((command) => command.where)).toEqual([]);
  });

  it('runs atlas-audit-alerts check before the first cdk deploy', () => {
    for (const page of [docPage('docs/deploy.md'), docPage('README.md')]) {
      const commands = shellCommands([page]).map((command) => command.words.join(' '));
      const check = commands.findIndex((command) => /^(npx )?atlas-audit-alerts check\b/.test(command));
      const deploy = commands.findIndex((command) => command.startsWith('npx cdk deploy'));

      expect(check, page.path).toBeGreaterThan(-1);
      expect(check, page.path).toBeLessThan(deploy);
    }
  });

  it('checks every source the example configuration polls, before the first deploy', async () => {
    const example = readFileSync(join(REPO_ROOT, 'infra/examples/config.example.yaml'), 'utf8');
    // What is polled; allowNone only lets a deployment with nothing to poll through synth.
    const { allowNone: _allowNone, ...expected } = parseDeployConfig({
      input: mergeSettings({}, parseYaml(example)),
      origin: 'example',
    }).sources;
    const folder = mkdtempSync(join(tmpdir(), 'deploy-guide-'));
    mkdirSync(join(folder, 'deploy'));
    writeFileSync(join(folder, 'deploy/prod.yaml'), example);
    try {
      for (const page of [docPage('docs/deploy.md'), docPage('README.md')]) {
        const check = shellCommands([page]).find((command) =>
          /^(npx )?atlas-audit-alerts check\b/.test(command.words.join(' ')),
        );
        const words = check?.words ?? [];
        const flag = (name: string) =>
          words.flatMap((word, index) => (word === name ? [words[index + 1] ?? ''] : []));
        const [config] = flag('--config');
        const sources =
          config === undefined
            ? {
                orgIds: flag('--org'),
                projectIds: flag('--project'),
                allProjectsOfOrgs: words.includes('--all-projects'),
              }
            : (await readRunConfigFile({ path: config, cwd: folder })).config.sources;

        expect(sources, `${check?.where}: ${words.join(' ')}`).toEqual(expected);
      }
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });

  it('warns, before the five-minute path deploys, that a required access list needs a fixed egress address', () => {
    const readme = docPage('README.md').text;
    const path = readme.split('## Deploy in five minutes')[1]?.split('\n## ')[0] ?? '';
    const beforeDeploy = path.split('npx cdk deploy')[0] ?? '';
    const needs = docPage('docs/deploy.md').text.split('## What you need')[1]?.split('\n## ')[0] ?? '';

    for (const text of [beforeDeploy, needs].map((part) => part.replace(/\s+/g, ' '))) {
      expect(text).toMatch(/requires an IP access list/);
      expect(text).toContain('network.mode: create-vpc');
      expect(text).toContain('EgressIpAddresses');
    }
  });

  it("tails the poller's log group, named by its stack output", () => {
    for (const page of [docPage('README.md'), docPage('docs/deploy.md')]) {
      const tails = shellCommands([page]).filter(
        (command) => command.words.slice(0, 3).join(' ') === 'aws logs tail',
      );

      expect(
        tails.map((command) => command.words[3]),
        page.path,
      ).toContain('$(output PollerLogGroupName)');
    }
  });

  it('says how to see the concurrency quota and how to deploy without a reservation', () => {
    const guide = docPage('docs/deploy.md').text;

    expect(guide).toContain('aws lambda get-account-settings');
    expect(guide).toContain('poller.reservedConcurrency: false');
  });

  it('deletes the Chatbot log group the stack does not own on teardown', () => {
    const teardown = docPage('docs/deploy.md').text.split('## Tear down')[1] ?? '';

    expect(teardown).toMatch(
      /aws logs delete-log-group --region us-east-1 --log-group-name "\/aws\/chatbot\/\$STACK-alerts"/,
    );
  });
});

/** The leaves of a settings object, as dotted paths with their values. */
function leaves(value: unknown, prefix = ''): [string, unknown][] {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return [[prefix, value]];
  return Object.entries(value).flatMap(([key, inner]) =>
    leaves(inner, prefix === '' ? key : `${prefix}.${key}`),
  );
}

describe('the deploy guide’s table of settings', () => {
  const guide = docPage('docs/deploy.md').text;
  const defaults = new Map(leaves(parseDeployConfig({ input: {}, origin: 'defaults' })));
  const rows = [...guide.matchAll(/^\| `([\w.]+)` \| `([^`]+)` \|/gm)].map(([, path = '', shown = '']) => ({
    path,
    shown,
  }));

  it('names every setting that has a default', () => {
    const missing = [...defaults.keys()].filter((path) => !guide.includes(`\`${path}\``));

    expect(missing).toEqual([]);
  });

  it('gives each default as the loader applies it', () => {
    const stated = rows.filter((row) => defaults.has(row.path));
    const wrong = stated
      .filter(
        (row) =>
          JSON.stringify(defaults.get(row.path)) !==
          JSON.stringify(/^[[\d]|^true$|^false$/.test(row.shown) ? JSON.parse(row.shown) : row.shown),
      )
      .map(
        (row) =>
          `${row.path}: the guide says ${row.shown}, the loader gives ${JSON.stringify(defaults.get(row.path))}`,
      );

    expect(stated.length).toBeGreaterThan(20);
    expect(wrong).toEqual([]);
  });
});

describe('the guides on changing rules', () => {
  it('change them in a layer over builtin, never by editing or copying the built-in pack', () => {
    const advice = docPages().flatMap((page) =>
      page.text
        .split('\n')
        .map((line, index) => ({ where: `${page.path}:${index + 1}`, line }))
        .filter(({ line }) =>
          /\bedit (the )?rules\/|copy of the pack|rules replay .*--compare (?!builtin\b|[A-Z])[\w./-]/.test(
            line,
          ),
        ),
    );

    expect(advice).toEqual([]);
  });
});
