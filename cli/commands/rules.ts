import type { Command } from 'commander';

/** Registers the `rules` command. */
export function registerRulesCommand(_program: Command): void {}
