#!/usr/bin/env node
// Entry point of the `atlas-audit-alerts` command. It runs the JavaScript that `npm run build` puts
// in dist/, which with this file is all an installed package holds of the command. A checkout (the
// TypeScript sources are beside this file) decides in checkout-start.mjs whether its build is current.
import { existsSync } from 'node:fs';

if (existsSync(new URL('./start.ts', import.meta.url))) {
  await import('./checkout-start.mjs');
} else {
  await import('../dist/cli/start.js');
}
