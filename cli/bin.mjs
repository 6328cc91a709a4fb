#!/usr/bin/env node
// Entry point of the `atlas-audit-alerts` command. It runs the JavaScript that `npm run build` puts
// in dist/, which is all an installed package holds. In a checkout whose build is missing or older
// than the TypeScript sources (edited since, another branch checked out), it runs the sources through
// tsx instead: seconds to start rather than a tenth of one, but never stale code. `npm ci` builds
// (the prepare script); `npm run build` after editing makes the command fast again.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { buildState } from './build-state.mjs';

const checkout = existsSync(new URL('./start.ts', import.meta.url));
if (checkout && buildState(fileURLToPath(new URL('../', import.meta.url))) !== 'current') {
  await runSources();
} else {
  await import('../dist/cli/start.js');
}

async function runSources() {
  let register;
  try {
    ({ register } = await import('tsx/esm/api'));
  } catch {
    process.stderr.write(
      'atlas-audit-alerts: the build in dist/ is missing or older than the sources, and tsx, which runs the sources, is not installed: run npm run build (or npm ci)\n',
    );
    process.exit(1);
  }
  register();
  await import('./start.ts');
}
