import type { Command } from 'commander';
import type { Environment } from './atlas-options.js';

/** Options of {@link colorEnabled}. */
export interface ColorEnabledOptions {
  /** The stream the colours would go to. */
  stream: { isTTY?: boolean };
  env: Environment;
  /** The command being run: `--no-color`, given anywhere on the command line, turns colours off. */
  command?: Command | undefined;
}

/**
 * Whether a command prints ANSI colours: only to a terminal, and never with `--no-color`, with
 * `NO_COLOR` set to anything but the empty string (https://no-color.org), or with `TERM=dumb`.
 *
 * @example
 * ```ts
 * const color = colorEnabled({ stream: process.stdout, env: process.env, command });
 * ```
 */
export function colorEnabled(options: ColorEnabledOptions): boolean {
  const { stream, env, command } = options;
  if (command?.optsWithGlobals<{ color?: boolean }>().color === false) return false;
  const noColor = env.NO_COLOR;
  if (noColor !== undefined && noColor !== '') return false;
  if (env.TERM === 'dumb') return false;
  return stream.isTTY === true;
}
