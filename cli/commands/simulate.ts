import type { Command } from 'commander';

/** Registers the `simulate` command. */
export function registerSimulateCommand(_program: Command): void {}
