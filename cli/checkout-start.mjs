// How a checkout starts the command: from the build in dist/ when it was made from the sources as
// they are (`npm ci` builds it, through the prepare script); when it is missing or older than them
// (edited since, another branch checked out), from the TypeScript sources through tsx, which takes
// seconds rather than a tenth of one but never runs stale code. `npm run build` makes it fast again.
import { fileURLToPath } from 'node:url';
import { buildState } from './build-state.mjs';

if (buildState(fileURLToPath(new URL('../', import.meta.url))) === 'current') {
  await import('../dist/cli/start.js');
} else {
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
