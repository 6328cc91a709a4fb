import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, relative } from 'node:path';
import type { BuildOptions, BuildResult } from 'esbuild';
import {
  AUDIT_LOG_ENTRY,
  DISPATCHER_ENTRY,
  POLLER_ENTRY,
  pollerEsbuildOptions,
  RECEIVER_ENTRY,
  WORKER_ENTRY,
} from './bundling.js';

/** The functions of a deployment, each a bundle of its own. */
export const FUNCTION_ROLES = ['poller', 'dispatcher', 'worker', 'receiver', 'audit-log'] as const;

/**
 * A function of a deployment: the poller, the fan-out dispatcher and worker, the push receiver, or the
 * audit log reader.
 */
export type FunctionRole = (typeof FUNCTION_ROLES)[number];

/** Each function's entry point, relative to the project root. */
export const FUNCTION_ENTRIES: Readonly<Record<FunctionRole, string>> = {
  poller: POLLER_ENTRY,
  dispatcher: DISPATCHER_ENTRY,
  worker: WORKER_ENTRY,
  receiver: RECEIVER_ENTRY,
  'audit-log': AUDIT_LOG_ENTRY,
};

/** Where the prebuilt bundles are, relative to the package's folder: `<role>/index.mjs` under it. */
export const LAMBDA_BUNDLES_PATH = 'dist/lambda';

/** The record of a bundles build, written last: when it started and what it read. */
export const LAMBDA_BUILD_INFO = 'build-info.json';

interface LambdaBuildInfo {
  startedAt: number;
  /** Every file esbuild read, relative to the package's folder (sources and packages alike). */
  inputs: string[];
}

/**
 * Builds the function bundles into `dist/lambda/<role>/` with esbuild's synchronous API
 * (`index.mjs` and its source map), then records what they were built from. Each file is written beside
 * its place and renamed into it, so a reader, or a second build racing this one, never sees half a file.
 * esbuild is a build tool: it is loaded here only, never by code that deploys prebuilt bundles.
 *
 * @returns the bundles' folder.
 * @example
 * ```ts
 * buildLambdaBundles(projectRoot); // `npm run build` does it after tsc
 * ```
 */
export function buildLambdaBundles(projectRoot: string): string {
  const esbuild = createRequire(import.meta.url)('esbuild') as {
    buildSync(
      options: BuildOptions & { write: false; metafile: true },
    ): BuildResult<{ metafile: true; write: false }>;
  };
  const root = join(projectRoot, LAMBDA_BUNDLES_PATH);
  const startedAt = Date.now();
  const inputs = new Set<string>();
  const scratch = join(root, `.build-${process.pid}-${startedAt}`);
  try {
    for (const role of FUNCTION_ROLES) {
      const outdir = join(root, role);
      const result = esbuild.buildSync({
        ...pollerEsbuildOptions({ projectRoot, outdir, entry: FUNCTION_ENTRIES[role] }),
        write: false,
        metafile: true,
      });
      for (const input of Object.keys(result.metafile.inputs)) inputs.add(input);
      mkdirSync(outdir, { recursive: true });
      mkdirSync(scratch, { recursive: true });
      for (const file of result.outputFiles) {
        const staged = join(scratch, `${role}-${relative(outdir, file.path).replaceAll('/', '_')}`);
        writeFileSync(staged, file.contents);
        renameSync(staged, file.path);
      }
    }
    const info: LambdaBuildInfo = { startedAt, inputs: [...inputs].sort() };
    const staged = join(scratch, LAMBDA_BUILD_INFO);
    writeFileSync(staged, `${JSON.stringify(info, null, 1)}\n`);
    renameSync(staged, join(root, LAMBDA_BUILD_INFO));
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  return root;
}

/**
 * Whether the bundles in `dist/lambda` were built from the files as they are now: `current` when every
 * file esbuild read is older than the build's start, `stale` when one changed or is gone, `missing`
 * when no build was recorded or a function's bundle is not there (a build older than the function). A file added that some source now imports changed that source too.
 *
 * @example
 * ```ts
 * if (lambdaBundlesState(projectRoot) !== 'current') buildLambdaBundles(projectRoot);
 * ```
 */
export function lambdaBundlesState(projectRoot: string): 'current' | 'stale' | 'missing' {
  let info: LambdaBuildInfo;
  try {
    info = JSON.parse(
      readFileSync(join(projectRoot, LAMBDA_BUNDLES_PATH, LAMBDA_BUILD_INFO), 'utf8'),
    ) as LambdaBuildInfo;
  } catch {
    return 'missing';
  }
  if (typeof info?.startedAt !== 'number' || !Array.isArray(info.inputs)) return 'missing';
  // A build from before a function was added has no bundle for it.
  for (const role of FUNCTION_ROLES) {
    if (!existsSync(join(projectRoot, LAMBDA_BUNDLES_PATH, role, 'index.mjs'))) return 'missing';
  }
  try {
    for (const input of info.inputs) {
      if (statSync(join(projectRoot, input)).mtimeMs > info.startedAt) return 'stale';
    }
  } catch {
    return 'stale';
  }
  return 'current';
}
