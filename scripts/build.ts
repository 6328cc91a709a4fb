/**
 * Builds the JavaScript the package runs into dist/: `tsc -p tsconfig.build.json` emits every module
 * the command imports, with its source map and type declarations; the data files those modules read
 * beside them (the event catalog, the simulator's seed) are copied next to their JavaScript; last,
 * dist/build-info.json records when the build started and from which folders, so that cli/bin.mjs can
 * tell a build older than the sources in a checkout. Then esbuild bundles the functions into
 * dist/lambda/<role>/ for the construct to deploy (see infra/lambda-bundles.ts, which records their own
 * inputs). `npm run build`; `npm ci` runs it (prepare).
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, extname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BUILD_INFO_PATH } from '../cli/build-state.mjs';
import { buildLambdaBundles, FUNCTION_ROLES } from '../infra/lambda-bundles.js';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const DIST = join(ROOT, 'dist');
const CONFIG = 'tsconfig.build.json';
/** Files a module may read beside itself at run time (`new URL('./x.json', import.meta.url)`). */
const DATA_FILES = new Set(['.json', '.yaml']);

const startedAt = Date.now();
rmSync(DIST, { recursive: true, force: true });

const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const compiled = spawnSync(process.execPath, [tsc, '-p', CONFIG], { cwd: ROOT, stdio: 'inherit' });
if (compiled.status !== 0) {
  process.stderr.write(
    `build: tsc -p ${CONFIG} failed (exit ${compiled.status ?? compiled.signal}): fix what it printed above; until then the command runs the sources through tsx\n`,
  );
  process.exit(1);
}

// The source folders of the emitted modules, relative to the root: cli, cli/commands, shared/rules...
const sourceFolders = [
  ...new Set(
    filesUnder(DIST)
      .filter((file) => file.endsWith('.js'))
      .map((file) => relative(DIST, dirname(file))),
  ),
].sort();
let copied = 0;
for (const folder of sourceFolders) {
  for (const entry of readdirSync(join(ROOT, folder), { withFileTypes: true })) {
    if (!entry.isFile() || !DATA_FILES.has(extname(entry.name))) continue;
    copyFileSync(join(ROOT, folder, entry.name), join(DIST, folder, entry.name));
    copied += 1;
  }
}

// The functions' bundles, which the construct deploys: esbuild, after tsc, into dist/lambda/<role>/.
const lambdaStartedAt = Date.now();
buildLambdaBundles(ROOT);
const lambdaSeconds = ((Date.now() - lambdaStartedAt) / 1000).toFixed(1);

const inputs = [...sourceFolders.map((folder) => folder.split(sep).join('/')), 'tsconfig.json', CONFIG];
writeFileSync(join(ROOT, BUILD_INFO_PATH), `${JSON.stringify({ startedAt, inputs }, null, 2)}\n`);
const modules = filesUnder(DIST).filter((file) => file.endsWith('.js')).length;
process.stdout.write(
  `build: ${modules} modules from ${sourceFolders.length} folders and ${copied} data files in dist/, and the ${FUNCTION_ROLES.length} function bundles in dist/lambda/ (${lambdaSeconds} s of ${((Date.now() - startedAt) / 1000).toFixed(1)} s)\n`,
);

function filesUnder(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name));
}
