import { join, resolve } from 'node:path';
import type { BuildOptions } from 'esbuild';

/** The poller's entry point, relative to the project root. */
export const POLLER_ENTRY = 'functions/poller/handler.ts';

/** The fan-out dispatcher's entry point, relative to the project root. */
export const DISPATCHER_ENTRY = 'functions/fan-out/dispatcher.ts';

/** The fan-out worker's entry point, relative to the project root. */
export const WORKER_ENTRY = 'functions/fan-out/worker.ts';

/** The push receiver's entry point, relative to the project root. */
export const RECEIVER_ENTRY = 'functions/push/receiver.ts';

/** The audit log function's entry point, relative to the project root. */
export const AUDIT_LOG_ENTRY = 'functions/audit-log/handler.ts';

/** The Node.js major version the poller runs on; the bundle targets it. */
export const POLLER_NODE_MAJOR = 24;

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
    // Paths as they appear, not where links lead: a build where node_modules is a link (a copy of the
    // sources) names the same files in its source map, so it is the same bundle byte for byte.
    preserveSymlinks: true,
    external: [],
    logLevel: 'warning',
  };
}

/**
 * A function's bundle, as options for esbuild's own API: `index.mjs` (with its source map) in `outdir`,
 * built from the function's entry point. `npm run build` builds every function with it into
 * `dist/lambda/` (see `lambda-bundles.ts`), the package ships them, and the construct deploys them with
 * the rule pack beside them; the bundle test and the cold-start benchmark build with it too, so they
 * measure what is deployed.
 *
 * @example
 * ```ts
 * await build(pollerEsbuildOptions({ projectRoot, outdir: '/tmp/poller' }));
 * ```
 */
export function pollerEsbuildOptions({
  projectRoot,
  outdir,
  entry = POLLER_ENTRY,
}: {
  /** The directory holding `package.json` and `functions/`. */
  projectRoot: string;
  outdir: string;
  entry?: string;
}): BuildOptions {
  return lambdaEsbuildOptions({ projectRoot, entry, outfile: join(outdir, 'index.mjs') });
}
