import type { Command } from 'commander';

/** Registers the `backfill` command. */
export function registerBackfillCommand(_program: Command): void {}
