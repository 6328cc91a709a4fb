import type { Command } from 'commander';

/** Registers the `demo` command. */
export function registerDemoCommand(_program: Command): void {}
