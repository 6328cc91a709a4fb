import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../cli/main.js';
import { docPage, docPages } from './support/markdown.js';

/** Every command of the program with its full name (`rules validate`), subcommands included. */
function everyCommand(command: Command, prefix = ''): { name: string; command: Command }[] {
  return command.commands.flatMap((sub) => {
    const name = `${prefix}${sub.name()}`;
    return [{ name, command: sub }, ...everyCommand(sub, `${name} `)];
  });
}

describe('docs/cli.md and the pages it links', () => {
  const program = buildProgram();
  const commands = everyCommand(program).filter(({ command }) => command.commands.length === 0);
  const cli = docPage('docs/cli.md').text;
  const everything = docPages()
    .map((page) => page.text)
    .join('\n');

  it('give every command a row of its own in the table of commands', () => {
    const rows = cli.split('\n').filter((line) => line.startsWith('| `'));
    const missing = commands
      .map(({ name }) => name)
      .filter(
        (name) => !rows.some((row) => row.startsWith(`| \`${name}\``) || row.startsWith(`| \`${name} `)),
      );

    expect(commands.length).toBeGreaterThan(12);
    expect(missing).toEqual([]);
  });

  it('name every flag of every command, and the flags of the program itself', () => {
    const flags = [
      ...program.options.map((option) => ({ command: '(program)', flag: option.long })),
      ...commands.flatMap(({ name, command }) =>
        command.options.map((option) => ({ command: name, flag: option.long })),
      ),
    ].filter(({ flag }) => flag !== undefined && flag !== '--help');
    const missing = flags.filter(({ flag }) => !new RegExp(`${flag}(?![\\w-])`).test(everything));

    expect(missing).toEqual([]);
  });
});
