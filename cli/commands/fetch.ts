import type { Command } from 'commander';

/** Registers the `fetch` command. */
export function registerFetchCommand(_program: Command): void {}
