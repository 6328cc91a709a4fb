import { join, resolve } from 'node:path';
import {
  LogLevel,
  type BundlingOptions as NodejsBundlingOptions,
  OutputFormat,
} from 'aws-cdk-lib/aws-lambda-nodejs';
import type { BuildOptions } from 'esbuild';

/** The poller's entry point, relative to the project root. */
export const POLLER_ENTRY = 'functions/poller/handler.ts';

/** The fan-out dispatcher's entry point, relative to the project root. */
export const DISPATCHER_ENTRY = 'functions/fan-out/dispatcher.ts';

/** The fan-out worker's entry point, relative to the project root. */
export const WORKER_ENTRY = 'functions/fan-out/worker.ts';

/** The Node.js major version the poller runs on; the bundle targets it. */
export const POLLER_NODE_MAJOR = 24;

/** The global through which the bundle receives the compiled rule pack (see `bundled-rule-pack.ts`). */
export const RULE_PACK_GLOBAL = '__ATLAS_AUDIT_ALERTS_RULE_PACK__';

/**
 * An ES module bundle that contains CommonJS code (undici, the AWS SDK) calls `require` for Node
 * built-ins; ES modules have no `require`, so esbuild's shim throws `Dynamic require of "node:https"
 * is not supported`. Defining `require` from `createRequire` at the top of the bundle gives the shim one.
 */
export const ESM_REQUIRE_BANNER =
  "import { createRequire as __bundleCreateRequire } from 'node:module'; const require = __bundleCreateRequire(import.meta.url);";

/**
 * Prefer the packages' ES module builds: they tree-shake, and the AWS SDK's are smaller. Falls back to
 * `main` for packages that only ship CommonJS.
 */
const MAIN_FIELDS = ['module', 'main'];

export interface PollerBundleOptions {
  /** The directory holding `package.json` and `functions/`. */
  projectRoot: string;
  /**
   * The module that exports {@link RULE_PACK_GLOBAL} (written by `writeRulePackModule`). esbuild's
   * `inject` replaces every reference to that global with its export, so the rule pack reaches the
   * bundle as a file rather than through a command-line `--define`, which has a length limit and
   * passes through a shell.
   */
  rulePackModule: string;
}

/**
 * The NodejsFunction bundling of the poller: an ES module for Node.js 24, minified with source maps,
 * the AWS SDK bundled in (so the deployed code is the code that was tested, not the runtime's SDK), with
 * the `require` banner, built by the local esbuild (no Docker).
 *
 * @example
 * ```ts
 * new NodejsFunction(this, 'Poller', { entry, bundling: pollerNodejsBundling({ projectRoot, rulePackModule }) });
 * ```
 */
export function pollerNodejsBundling({ rulePackModule }: PollerBundleOptions): NodejsBundlingOptions {
  return {
    format: OutputFormat.ESM,
    target: `node${POLLER_NODE_MAJOR}`,
    minify: true,
    sourceMap: true,
    sourcesContent: false,
    banner: ESM_REQUIRE_BANNER,
    mainFields: MAIN_FIELDS,
    bundleAwsSDK: true,
    externalModules: [],
    inject: [rulePackModule],
    forceDockerBundling: false,
    logLevel: LogLevel.WARNING,
  };
}

/**
 * The esbuild options the Lambda bundles share, for any entry point and without the rule pack: an ES
 * module for the Lambda's Node.js, minified with a source map, every package bundled in, with the
 * `require` banner. The digest benchmark builds the Atlas client with them, so it times the client as
 * the Lambda runs it.
 *
 * @example
 * ```ts
 * await build(lambdaEsbuildOptions({ projectRoot, entry: 'shared/atlas/index.ts', outfile: '/tmp/atlas.mjs' }));
 * ```
 */
export function lambdaEsbuildOptions({
  projectRoot,
  entry,
  outfile,
}: {
  projectRoot: string;
  entry: string;
  outfile: string;
}): BuildOptions {
  return {
    absWorkingDir: projectRoot,
    entryPoints: [resolve(projectRoot, entry)],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: `node${POLLER_NODE_MAJOR}`,
    minify: true,
    sourcemap: true,
    sourcesContent: false,
    banner: { js: ESM_REQUIRE_BANNER },
    mainFields: MAIN_FIELDS,
    external: [],
    logLevel: 'warning',
  };
}

/**
 * The same bundle as {@link pollerNodejsBundling}, as options for esbuild's own API: the bundle test and
 * the cold-start benchmark build with it, so they measure what the stack deploys. The output is
 * `index.mjs` in `outdir`, as NodejsFunction names it.
 *
 * @example
 * ```ts
 * await build(pollerEsbuildOptions({ projectRoot, rulePackModule, outdir: '/tmp/poller' }));
 * ```
 */
export function pollerEsbuildOptions({
  projectRoot,
  rulePackModule,
  outdir,
  entry = POLLER_ENTRY,
}: PollerBundleOptions & { outdir: string; entry?: string }): BuildOptions {
  return {
    ...lambdaEsbuildOptions({ projectRoot, entry, outfile: join(outdir, 'index.mjs') }),
    inject: [rulePackModule],
  };
}
