import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { colorEnabled } from '../../cli/color.js';
import { buildProgram } from '../../cli/main.js';

const bin = fileURLToPath(new URL('../../cli/bin.mjs', import.meta.url));
const FAKE_KEY = {
  MONGODB_ATLAS_PUBLIC_API_KEY: 'fakepub1',
  MONGODB_ATLAS_PRIVATE_API_KEY: 'fake-private-key-for-tests',
};

function runCli(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const env = { ...process.env, ...FAKE_KEY };
  const result = spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8', env });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('atlas-audit-alerts command', () => {
  it('prints its help and exits 0', () => {
    const { status, stdout } = runCli('--help');

    expect(status).toBe(0);
    expect(stdout).toContain('Usage: atlas-audit-alerts');
  });

  it('exits 2 on an unknown command, saying so in one line', () => {
    const { status, stderr } = runCli('no-such-command');

    expect(status).toBe(2);
    expect(stderr).toBe(
      "atlas-audit-alerts: unknown command 'no-such-command' (--help lists what the command takes)\n",
    );
  });

  it.each([
    [
      ['fetch', 'events', '--colour'],
      "atlas-audit-alerts: unknown option '--colour' (--help lists what the command takes)\n",
    ],
    [
      ['fetch', 'events', '--flavor', 'atlas-v3'],
      "atlas-audit-alerts: option '--flavor <flavor>' argument 'atlas-v3' is invalid. Allowed choices are ops-manager, atlas-v1, atlas-v2.\n",
    ],
  ])('prints a usage error in %j as one line, without the help, and exits 2', (args, line) => {
    const { status, stdout, stderr } = runCli(...args);

    expect(status).toBe(2);
    expect(stderr).toBe(line);
    expect(stdout).toBe('');
  });

  it('names the flag that allows plain http when it refuses a remote http:// base URL', () => {
    const { status, stdout, stderr } = runCli(
      'fetch',
      'events',
      '--org',
      '5f4e3d2c1b0a998877665544',
      '--base-url',
      'http://opsmanager.example.com',
    );

    expect(status).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toMatch(
      /^atlas-audit-alerts: baseUrl http:\/\/opsmanager\.example\.com is plain http .* \(--allow-insecure-http\)\n$/,
    );
    expect(stderr).not.toContain(FAKE_KEY.MONGODB_ATLAS_PRIVATE_API_KEY);
  });
});

/** Every command of the program, subcommands included, with its full name. */
function everyCommand(command: Command, prefix = ''): { name: string; command: Command }[] {
  return command.commands.flatMap((sub) => {
    const name = `${prefix}${sub.name()}`;
    return [{ name, command: sub }, ...everyCommand(sub, `${name} `)];
  });
}

describe('the help of every command', () => {
  const commands = everyCommand(buildProgram());

  it.each(commands.map(({ name, command }) => [name, command] as const))(
    '%s gives each default once, as "(default: ...)", and none for an empty list',
    (_, command) => {
      const help = command.createHelp();
      const texts = [
        ...command.options.map((option) => [option.flags, help.optionDescription(option)] as const),
        ...command.registeredArguments.map(
          (argument) => [argument.name(), help.argumentDescription(argument)] as const,
        ),
      ];

      const wrong = texts.filter(
        ([, text]) =>
          (text.match(/\bdefault:/g)?.length ?? 0) > 1 || /\(default [^:]|default: \[\]/.test(text),
      );

      expect(wrong).toEqual([]);
    },
  );
});

describe('the rules commands', () => {
  it('take their layers with --rules, each of them, as run and backfill do', () => {
    const rules = buildProgram().commands.find((command) => command.name() === 'rules');
    // schema prints the schema of every rule file: it reads no layer.
    const takingLayers = (rules?.commands ?? []).filter((command) => command.name() !== 'schema');

    expect(takingLayers.map((command) => command.name()).sort()).toEqual([
      'coverage',
      'eval',
      'replay',
      'test',
      'validate',
    ]);
    for (const command of takingLayers) {
      expect(
        command.options.some((option) => option.long === '--rules'),
        command.name(),
      ).toBe(true);
    }
  });
});

describe('the version and colours', () => {
  it('prints the version of package.json with --version and -V', () => {
    const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
      version: string;
    };

    expect(runCli('--version')).toMatchObject({ status: 0, stdout: `atlas-audit-alerts ${version}\n` });
    expect(runCli('-V').stdout).toBe(`atlas-audit-alerts ${version}\n`);
  });

  it('takes --no-color before or after any command, and says so in every command’s help', () => {
    const before = runCli('--no-color', 'rules', 'validate');
    const after = runCli('rules', 'validate', '--no-color');

    expect(before.status).toBe(0);
    expect(after.status).toBe(0);
    for (const { command } of everyCommand(buildProgram())) {
      let shown = '';
      command.configureOutput({ writeOut: (text) => (shown += text) });
      command.outputHelp();
      expect(shown, command.name()).toContain('--no-color');
    }
  });
});

describe('colorEnabled', () => {
  const terminal = { isTTY: true };

  it('colours a terminal, and nothing else', () => {
    expect(colorEnabled({ stream: terminal, env: {} })).toBe(true);
    expect(colorEnabled({ stream: { isTTY: false }, env: {} })).toBe(false);
  });

  it('honours NO_COLOR set to anything but the empty string, TERM=dumb and --no-color', async () => {
    const program = buildProgram();
    let seen: Command | undefined;
    program.commands
      .find((command) => command.name() === 'demo')
      ?.action((_options, command: Command) => {
        seen = command;
      });
    await program.parseAsync(['node', 'atlas-audit-alerts', 'demo', '--no-color']);

    expect(colorEnabled({ stream: terminal, env: { NO_COLOR: '1' } })).toBe(false);
    expect(colorEnabled({ stream: terminal, env: { NO_COLOR: '' } })).toBe(true);
    expect(colorEnabled({ stream: terminal, env: { TERM: 'dumb' } })).toBe(false);
    expect(colorEnabled({ stream: terminal, env: {}, command: seen })).toBe(false);
  });
});
