import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../cli/main.js';
import { cliProblems, invocationProblems } from './support/invocations.js';
import { codeBlocks, docPages, inlineCode } from './support/markdown.js';
import { commandLines, type ShellCommand, simpleCommands } from './support/shell-commands.js';

const SHELL_LANGUAGES = ['sh', 'bash', 'shell', 'console'];
/** Inline code that is a command of this project, such as `atlas-audit-alerts rules test my-rules`. */
const PROJECT_COMMAND = /^(atlas-audit-alerts|npx atlas-audit-alerts|npm run|npm start|npm test)(\s|$)/;
/** Inline code that is a command line without the program's name, such as `rules validate --strict`. */
const SUBCOMMAND = /^(fetch|simulate|rules|run|backfill|demo|check|status|send-test-alert) (?=\S)/;

/** Every command in the shell blocks and the inline code of the README and docs/. */
function documentedCommands(): ShellCommand[] {
  const pages = docPages();
  const inBlocks = pages
    .flatMap(codeBlocks)
    .filter((block) => SHELL_LANGUAGES.includes(block.lang))
    .flatMap(commandLines)
    .flatMap(({ line, where }) => simpleCommands(line, where));
  const inline = pages
    .flatMap(inlineCode)
    .filter((span) => PROJECT_COMMAND.test(span.code) || SUBCOMMAND.test(span.code))
    .map((span) => (SUBCOMMAND.test(span.code) ? { ...span, code: `atlas-audit-alerts ${span.code}` } : span))
    .flatMap((span) => simpleCommands(span.code, `${span.page}:${span.line}`));
  return [...inBlocks, ...inline];
}

describe('the commands the README and docs/ show', () => {
  const program = buildProgram();
  const commands = documentedCommands();

  it('name real commands and flags of atlas-audit-alerts, and real npm scripts with the flags they read', () => {
    const problems = commands.flatMap((command) =>
      invocationProblems(program, command).map(
        (problem) => `${command.where}: ${command.words.join(' ')}: ${problem}`,
      ),
    );

    expect(problems).toEqual([]);
  });

  it('finds the commands of every kind it checks', () => {
    const programs = new Set(commands.map((command) => command.words.slice(0, 2).join(' ')));

    expect(commands.length).toBeGreaterThan(100);
    expect([...programs]).toEqual(
      expect.arrayContaining([
        'atlas-audit-alerts rules',
        'npm run',
        'npm start',
        'npx cdk',
        'npx atlas-audit-alerts',
      ]),
    );
  });

  it('tells a stale flag, command or script from a real one', () => {
    const at = (line: string) => simpleCommands(line, 'here:1')[0] ?? { words: [], where: 'here:1' };

    expect(cliProblems(program, ['rules', 'validate', '--strict', 'builtin'])).toEqual([]);
    expect(cliProblems(program, ['rules', 'validate', '--strikt'])).toEqual([
      '"validate" takes no flag --strikt',
    ]);
    expect(cliProblems(program, ['fetch', 'event', '--org', 'x'])).toEqual([
      '"fetch" has no command "event"',
    ]);
    expect(invocationProblems(program, at('npm run cli -- run --once --evry 1m'))).toEqual([
      '"run" takes no flag --evry',
    ]);
    expect(invocationProblems(program, at('npm run bench -- --only rules --quik'))).toEqual([
      'npm run bench passes --quik, which node --import tsx bench/run.ts does not read',
    ]);
    expect(invocationProblems(program, at('npm run benchmark'))).toEqual([
      'package.json has no script "benchmark"',
    ]);
    expect(
      invocationProblems(program, at('npx cdk synth --context config=infra/examples/nope.yaml')),
    ).toEqual(['no file infra/examples/nope.yaml']);
  });
});
