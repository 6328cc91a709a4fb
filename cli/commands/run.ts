import type { Command } from 'commander';

/** Registers the `run` command. */
export function registerRunCommand(_program: Command): void {}
