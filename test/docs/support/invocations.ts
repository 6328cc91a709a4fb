import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import { REPO_ROOT } from './markdown.js';
import type { ShellCommand } from './shell-commands.js';

/** A word that stands for any command or script in prose: `<command>`, `...`, `NAME`. */
const PLACEHOLDER = /^(<[^>]*>|\.\.\.|…|[A-Z][A-Z_]*)$/;

const PACKAGE_SCRIPTS = (
  JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }
).scripts;

/** What is wrong with `atlas-audit-alerts ARGS` for this program: unknown commands and flags. */
export function cliProblems(program: Command, args: readonly string[]): string[] {
  let command = program;
  let index = 0;
  while (command.commands.length > 0 && index < args.length && !(args[index] ?? '').startsWith('-')) {
    const name = args[index] ?? '';
    if (PLACEHOLDER.test(name)) return [];
    const found = command.commands.find((sub) => sub.name() === name || sub.aliases().includes(name));
    if (found === undefined) {
      return [`"${command.name()}" has no command "${name}"`];
    }
    command = found;
    index += 1;
  }
  const problems: string[] = [];
  for (const arg of args.slice(index)) {
    // A usage line writes optional flags in brackets and alternatives in parentheses: [--strict], (--org
    const flag = /^[[(]*(--?[A-Za-z][\w-]*)/.exec(arg)?.[1];
    if (flag === undefined) continue;
    if (flag === '--help' || flag === '-h') continue;
    // Options of the program itself (--no-color) may follow the command's name.
    const known = [command, ...ancestorsOf(command)].flatMap((owner) => owner.options);
    if (known.some((option) => option.long === flag || option.short === flag)) continue;
    problems.push(`"${command.name()}" takes no flag ${flag}`);
  }
  return problems;
}

function ancestorsOf(command: Command): Command[] {
  const found: Command[] = [];
  for (let parent = command.parent; parent !== null; parent = parent.parent) found.push(parent);
  return found;
}

/** Whether the script file that an npm script runs with `node --import tsx FILE` reads `--name`. */
function scriptReadsFlag(script: string, flag: string): boolean {
  const file = /--import tsx (\S+\.ts)/.exec(script)?.[1];
  if (file === undefined) return false;
  const name = flag.replace(/^--/, '').split('=')[0] ?? '';
  const source = readFileSync(join(REPO_ROOT, file), 'utf8');
  const escaped = name.replace(/[.*+?^${}()|[\]\\-]/g, '\\$&');
  return new RegExp(`(^|[\\s{,])('${escaped}'|${escaped}):\\s*\\{\\s*type:`, 'm').test(source);
}

/** The words after `--` in an npm command, which npm passes to the script. */
function afterDoubleDash(words: readonly string[]): string[] {
  const at = words.indexOf('--');
  return at === -1 ? [] : words.slice(at + 1);
}

/**
 * What is wrong with one command of a shell example, for the commands this project defines:
 * `atlas-audit-alerts` (however started), `npm run`/`npm start`/`npm test` and `npx cdk --context
 * config=FILE` for files in the repository. Other programs (aws, jq, curl) are not judged.
 */
export function invocationProblems(program: Command, command: ShellCommand): string[] {
  const [first, second, ...rest] = command.words;
  if (first === 'atlas-audit-alerts') return cliProblems(program, command.words.slice(1));
  if (first === 'npx' && second === 'atlas-audit-alerts') return cliProblems(program, rest);
  if (first === 'node' && second === 'cli/bin.mjs') return cliProblems(program, rest);
  if (first === 'npx' && second === 'cdk') {
    return command.words.flatMap((word) => {
      const file = /^config=(infra\/\S+|cli\/\S+|examples\/\S+)$/.exec(word)?.[1];
      return file === undefined || existsSync(join(REPO_ROOT, file)) ? [] : [`no file ${file}`];
    });
  }
  if (first !== 'npm') return [];
  if (second === 'ci' || second === 'install') return [];
  const script = second === 'run' ? rest[0] : second;
  // `npm run` alone, in prose, names the command family.
  if (script === undefined) return [];
  if (PLACEHOLDER.test(script)) return [];
  const body = PACKAGE_SCRIPTS[script];
  if (body === undefined) return [`package.json has no script "${script}"`];
  const passed = afterDoubleDash(command.words);
  if (script === 'start') return cliProblems(program, ['demo', ...passed]);
  if (script === 'cli') return cliProblems(program, passed);
  return passed
    .filter((word) => word.startsWith('--'))
    .filter((flag) => !scriptReadsFlag(body, flag))
    .map((flag) => `npm run ${script} passes ${flag}, which ${body} does not read`);
}
