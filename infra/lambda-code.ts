import { copyFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { RULE_PACK_FILE } from '../functions/poller/bundled-rule-pack.js';
import { PACKAGE_ROOT } from '../shared/package-files.js';
import { LambdaBundlesMissingError } from './errors.js';
import {
  buildLambdaBundles,
  type FunctionRole,
  LAMBDA_BUNDLES_PATH,
  lambdaBundlesState,
} from './lambda-bundles.js';

/** The files of a prebuilt bundle that go into the function's code. */
const BUNDLE_FILES = ['index.mjs', 'index.mjs.map'];

/**
 * Whether this module runs from the TypeScript sources (a checkout, through tsx or vitest) rather than
 * from the package's build: only then may the bundles be older than the code they were built from.
 */
const FROM_SOURCES = import.meta.url.endsWith('.ts');

let checked = false;

/**
 * The folder of a function's prebuilt bundle. The package ships the bundles `npm run build` made; in a
 * checkout, where sources change between builds, bundles older than any file they were built from are
 * built again first (once per process), so `cdk synth` never deploys code older than the sources.
 *
 * @throws {LambdaBundlesMissingError} when the package holds no bundle for the function.
 * @example
 * ```ts
 * const folder = prebuiltBundle('poller'); // .../dist/lambda/poller
 * ```
 */
export function prebuiltBundle(role: FunctionRole): string {
  if (FROM_SOURCES && !checked) {
    if (lambdaBundlesState(PACKAGE_ROOT) !== 'current') buildLambdaBundles(PACKAGE_ROOT);
    checked = true;
  }
  const folder = join(PACKAGE_ROOT, LAMBDA_BUNDLES_PATH, role);
  const missing = BUNDLE_FILES.filter((file) => !existsSync(join(folder, file)));
  if (missing.length > 0) {
    throw new LambdaBundlesMissingError(
      `The ${role} function's code is missing from ${folder} (${missing.join(', ')}): the atlas-audit-alerts package is incomplete. Install it again (npm install atlas-audit-alerts); in a checkout, run npm run build.`,
    );
  }
  return folder;
}

/**
 * Assembles a function's code in `outputDirectory/<role>`: the prebuilt bundle and its source map, and
 * the validated rule pack beside them (`rule-pack.json`, read by the function at start). Files already
 * there with the same content are left as they are.
 *
 * @returns the folder to deploy as the function's code asset.
 * @example
 * ```ts
 * Code.fromAsset(functionCode({ role: 'poller', rulePackFile, outputDirectory: join(outdir, 'functions') }));
 * ```
 */
export function functionCode({
  role,
  rulePackFile,
  outputDirectory,
}: {
  role: FunctionRole;
  /** The pack `buildRulePackFile` wrote. */
  rulePackFile: string;
  outputDirectory: string;
}): string {
  const bundle = prebuiltBundle(role);
  const folder = join(outputDirectory, role);
  mkdirSync(folder, { recursive: true });
  for (const file of BUNDLE_FILES) copyIfChanged(join(bundle, file), join(folder, file));
  copyIfChanged(rulePackFile, join(folder, RULE_PACK_FILE));
  return folder;
}

function copyIfChanged(from: string, to: string): void {
  const content = readFileSync(from);
  if (existsSync(to) && readFileSync(to).equals(content)) return;
  copyFileSync(from, to);
}
