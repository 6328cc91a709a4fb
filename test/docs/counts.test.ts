import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CodeBlock, codeBlocks, docPage, REPO_ROOT } from './support/markdown.js';

const BIN = join(REPO_ROOT, 'cli/bin.mjs');
/** The demo and a few rule commands in child processes, on a machine that may be busy. */
const RUN_TIMEOUT_MS = 180_000;

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `atlas-audit-alerts ARGS` in `cwd` as a user would, with no Atlas credentials. */
function cli(args: readonly string[], cwd = REPO_ROOT): Promise<Run> {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.startsWith('MONGODB_ATLAS_')),
  );
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
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

const lines = (text: string) => text.split('\n').filter((line) => line !== '');
const lastLine = (text: string) => lines(text).at(-1) ?? '';

/**
 * The output a console block shows for the command after `$ `: the lines up to the next prompt. A
 * line `...` or `…` stands for any number of lines.
 */
function shownOutput(block: CodeBlock, command: string): string[] {
  const blockLines = block.code.split('\n');
  const start = blockLines.indexOf(`$ ${command}`);
  if (start === -1) throw new Error(`${block.page}:${block.line}: no "$ ${command}" in this block`);
  const rest = blockLines.slice(start + 1);
  const end = rest.findIndex((line) => line.startsWith('$ '));
  return (end === -1 ? rest : rest.slice(0, end)).filter((line) => line !== '');
}

/** Whether the actual lines are those shown, `...` matching any run of lines. */
function matchesShown(shown: readonly string[], actual: readonly string[]): boolean {
  const [first, ...rest] = shown;
  if (first === undefined) return actual.length === 0;
  if (first === '...' || first === '…') {
    return actual.some((_, skip) => matchesShown(rest, actual.slice(skip))) || matchesShown(rest, []);
  }
  return actual[0] === first && matchesShown(rest, actual.slice(1));
}

/** How many `{ ... }` cases an array constant of a test file lists, at its top level. */
function casesIn(file: string, constant: string): number {
  const source = readFileSync(join(REPO_ROOT, file), 'utf8');
  const start = source.indexOf(`const ${constant}`);
  const end = source.indexOf('\n];', start);
  if (start === -1 || end === -1) throw new Error(`${file} has no array constant ${constant}`);
  return source.slice(start, end).split('\n  {\n').length - 1;
}

const rulesPage = docPage('docs/rules.md');
const workedExample = codeBlocks(rulesPage).find(
  (block) => block.lang === 'yaml' && block.code.includes('id: prod-data-explorer-off-hours'),
);
const workedConsole = codeBlocks(rulesPage).filter(
  (block) =>
    block.lang === 'console' &&
    block.code.includes('$ atlas-audit-alerts rules validate builtin my-rules\n') &&
    block.code.includes(
      '$ atlas-audit-alerts rules test builtin my-rules\n...\nok    prod-data-explorer-off-hours',
    ),
);

describe('the figures the README and docs/ state', () => {
  const scratch = mkdtempSync(join(tmpdir(), 'atlas-audit-alerts-docs-counts-'));
  const runs: Record<string, Run> = {};

  beforeAll(async () => {
    const myRules = join(scratch, 'my-rules');
    mkdirSync(myRules);
    writeFileSync(join(myRules, 'prod-data-explorer.yaml'), workedExample?.code ?? '');
    const examples = join(REPO_ROOT, 'examples');
    const commands: Record<string, Promise<Run>> = {
      validate: cli(['rules', 'validate']),
      test: cli(['rules', 'test']),
      layersValidate: cli(['rules', 'validate', 'builtin', 'my-rules'], examples),
      layersTest: cli(['rules', 'test', 'builtin', 'my-rules'], examples),
      coverage: cli(['rules', 'coverage']),
      examples: cli(['rules', 'eval', '--events', 'test/rules/fixtures/event-examples.json']),
      workedValidate: cli(['rules', 'validate', 'builtin', 'my-rules'], scratch),
      workedTest: cli(['rules', 'test', 'builtin', 'my-rules'], scratch),
      demo: cli(['demo']),
    };
    for (const [name, run] of Object.entries(commands)) runs[name] = await run;
  }, RUN_TIMEOUT_MS);
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  const run = (name: string): Run => {
    const result = runs[name];
    if (result === undefined) throw new Error(`no run ${name}`);
    return result;
  };

  it('gives the built-in pack’s rules, lists, tests and files as rules validate and rules test count them', () => {
    const validated = lastLine(run('validate').stdout);
    const [, rules, disabled, tests] =
      /^(\d+) rules \((\d+) disabled\), \d+ lists and (\d+) inline tests in \d+ files: valid$/.exec(
        validated,
      ) ?? [];
    const examples =
      disabled === '1' ? '1 of them a disabled example' : `${disabled} of them disabled examples`;
    const packSentence = `${rules} rules (${examples} to switch on), every one with inline tests (${tests} in all)`;
    const operations = docPage('docs/operations.md').text;

    expect(rules).toBeDefined();
    expect(docPage('README.md').text.replace(/\s+/g, ' ')).toContain(packSentence);
    expect(rulesPage.text.replace(/\s+/g, ' ')).toContain(packSentence);
    expect(operations).toContain(`# ${validated}\n`);
    expect(operations).toContain(`ends with: ${lastLine(run('test').stdout)}\n`);
    expect(lastLine(run('test').stdout)).toBe(`${tests} passed, 0 failed`);
  });

  it('gives the example layer’s counts as rules validate and rules test print them', () => {
    const shown = codeBlocks(rulesPage).find((block) =>
      block.code.includes('$ atlas-audit-alerts rules validate builtin my-rules'),
    );

    expect(shown && shownOutput(shown, 'atlas-audit-alerts rules validate builtin my-rules')).toEqual(
      lines(run('layersValidate').stdout),
    );
    expect(shown && shownOutput(shown, 'atlas-audit-alerts rules test builtin my-rules').at(-1)).toBe(
      lastLine(run('layersTest').stdout),
    );
  });

  it('gives the event types covered as rules coverage counts them', () => {
    const summary = lines(run('coverage').stdout).filter((line) =>
      /^\d+ enabled rules|^(project|organization) event types: |^Uncovered project event types/.test(line),
    );

    expect(summary).toHaveLength(4);
    for (const line of summary) expect(rulesPage.text).toContain(`\n${line}\n`);
  });

  it('gives the number of example events and of the alerts they raise as rules eval does', () => {
    const fixtures = JSON.parse(
      readFileSync(join(REPO_ROOT, 'test/rules/fixtures/event-examples.json'), 'utf8'),
    ) as unknown[];
    const evaluated = lastLine(run('examples').stderr);

    expect(rulesPage.text).toContain(`holds ${fixtures.length} example bodies`);
    expect(evaluated).toMatch(new RegExp(` from ${fixtures.length} events$`));
    expect(rulesPage.text).toContain(`\n${evaluated}\n`);
  });

  it('shows the worked example’s validate and test output as the commands print it', () => {
    const [validate] = workedConsole;
    const validateRun = run('workedValidate');
    const testRun = run('workedTest');

    expect(workedExample).toBeDefined();
    expect(validate && shownOutput(validate, 'atlas-audit-alerts rules validate builtin my-rules')).toEqual(
      lines(validateRun.stdout),
    );
    expect(validateRun.stderr).toBe('');
    expect(
      validate &&
        matchesShown(
          shownOutput(validate, 'atlas-audit-alerts rules test builtin my-rules'),
          lines(testRun.stdout),
        ),
    ).toBe(true);
  });

  it('gives the demo’s new events and alerts as npm start prints them', () => {
    const readme = docPage('README.md').text;
    const output = lines(run('demo').stdout);
    // How many events tick 2 reads again depends on how long tick 1 took on the wall clock (its
    // window ends at now − lag); the new events and the alerts do not.
    const summary = output.filter((line) =>
      /^(sources polled|new events|alerts (critical|high|medium|low|info|in all)) /.test(line),
    );
    const closing = / and found \d+ new: .*$/.exec(
      output.find((line) => line.startsWith('Tick 2 read')) ?? '',
    )?.[0];

    expect(run('demo').status).toBe(0);
    expect(summary).toHaveLength(8);
    expect([...summary, closing].filter((line) => line === undefined || !readme.includes(line))).toEqual([]);
  });

  it('gives the chaos suite’s seeds and bad-input cases as the test files hold them', () => {
    const reliability = docPage('docs/reliability.md').text.replace(/\s+/g, ' ');
    const seeds = /Array\.from\(\{ length: (\d+) \}/.exec(
      readFileSync(join(REPO_ROOT, 'test/chaos/chaos.test.ts'), 'utf8'),
    )?.[1];
    const ruleFiles = casesIn('test/chaos/bad-rule-files.test.ts', 'BAD_RULE_FILES');
    const deployConfigs =
      casesIn('test/chaos/bad-deploy-config.test.ts', 'BAD_SETTINGS') +
      casesIn('test/chaos/bad-deploy-config.test.ts', 'BAD_FILES');
    const answers = casesIn('test/chaos/bad-atlas-responses.test.ts', 'BAD_ANSWERS');

    expect(reliability).toContain(`**${seeds} seeds** of it run in \`npm test\``);
    expect(reliability).toContain(`${ruleFiles} malformed rule files`);
    expect(reliability).toContain(`${deployConfigs} malformed deploy configurations`);
    expect(reliability).toContain(`${answers} unusable Atlas answers`);
  });
});

describe('the output comparison', () => {
  it('lets `...` stand for any lines and nothing else', () => {
    expect(matchesShown(['a', '...', 'd'], ['a', 'b', 'c', 'd'])).toBe(true);
    expect(matchesShown(['a', '...', 'd'], ['a', 'd'])).toBe(true);
    expect(matchesShown(['a', 'c'], ['a', 'b', 'c'])).toBe(false);
    expect(matchesShown(['4 passed, 1 failed'], ['5 passed, 0 failed'])).toBe(false);
  });
});
