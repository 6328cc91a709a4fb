#!/usr/bin/env node
// Entry point of the `atlas-audit-alerts` command: loads the TypeScript sources through tsx, so the
// command always runs the code in this checkout with no build step.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('./main.ts');
process.exitCode = await main(process.argv);
