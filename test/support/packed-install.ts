import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cp, mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { buildState } from '../../cli/build-state.mjs';
import { lambdaBundlesState } from '../../infra/lambda-bundles.js';

const run = promisify(execFile);

/** The repository's own folder. */
export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** One file of the tarball, as `npm pack --json` lists it. */
export interface PackedFile {
  path: string;
  size: number;
}

/** The package `npm pack` made of this repository, installed into a folder of its own. */
export interface PackedInstall {
  /** The tarball's path. */
  tarball: string;
  /** Its size in bytes, compressed. */
  size: number;
  /** The size of its files, unpacked. */
  unpackedSize: number;
  files: PackedFile[];
  /** Whether the repository's build was current (packed as it is) or had to be made in a copy. */
  built: 'checkout' | 'copy';
  /** The folder the tarball is installed into: `node_modules/atlas-audit-alerts` under it. */
  app: string;
  /** The installed command: `node_modules/.bin/atlas-audit-alerts` in {@link app}. */
  bin: string;
}

/** Options of {@link packAndInstall}. */
export interface PackAndInstallOptions {
  /** An empty folder of the caller's: the tarball, a copy of the sources if needed, and the app go under it. */
  directory: string;
}

/**
 * Packs this repository with `npm pack` and installs the tarball into an empty folder as a user's
 * project would, without the network.
 *
 * The JavaScript build is packed as it is when it is current (`npm ci` made it, nothing changed
 * since); otherwise the tracked and untracked files of the repository are copied, as a fresh clone
 * holds them, and built there, so the checkout's own dist/ is never rewritten under other tests.
 *
 * The install is `npm ci --offline` from a lock file that names the tarball and the dependency
 * versions this repository's lock file holds (those not marked dev): npm 11 resolves a version range
 * from the full registry document of each package, which the npm cache of a machine that only ran
 * `npm ci` does not hold, while the tarballs it does. The installed command thus runs the dependency
 * versions the tests ran.
 *
 * @throws {Error} when a step fails, with the command and what npm printed.
 * @example
 * ```ts
 * const installed = await packAndInstall({ directory: await mkdtemp(join(tmpdir(), 'pack-')) });
 * spawnSync(process.execPath, [installed.bin, '--help'], { cwd: installed.app });
 * ```
 */
export async function packAndInstall(options: PackAndInstallOptions): Promise<PackedInstall> {
  const { directory } = options;
  const current = buildState(REPO_ROOT) === 'current' && lambdaBundlesState(REPO_ROOT) === 'current';
  const source = current ? REPO_ROOT : await copyAndBuild(join(directory, 'source'));
  const packed = await npm(['pack', '--ignore-scripts', '--json', '--pack-destination', directory], source);
  const [report] = JSON.parse(packed) as Array<{
    filename: string;
    size: number;
    unpackedSize: number;
    files: PackedFile[];
  }>;
  if (report === undefined) throw new Error(`npm pack reported no tarball: ${packed}`);
  const tarball = join(directory, report.filename);

  const app = join(directory, 'app');
  await mkdir(app);
  await writeInstallManifests(app, tarball);
  await npm(['ci', '--offline', '--no-audit', '--no-fund'], app);
  return {
    tarball,
    size: report.size,
    unpackedSize: report.unpackedSize,
    files: report.files,
    built: current ? 'checkout' : 'copy',
    app,
    bin: join(app, 'node_modules', '.bin', 'atlas-audit-alerts'),
  };
}

/** Copies what a clone of the repository holds (tracked and untracked, not ignored files) and builds it. */
async function copyAndBuild(target: string): Promise<string> {
  const { stdout } = await run('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: REPO_ROOT,
    maxBuffer: 64 * 1024 * 1024,
  });
  const files = stdout.split('\0').filter((file) => file !== '');
  for (const file of files) {
    await cp(join(REPO_ROOT, file), join(target, file), { recursive: false, force: true }).catch(
      (error: NodeJS.ErrnoException) => {
        // A file deleted in the working tree but still tracked: a clone of the work would lack it too.
        if (error.code !== 'ENOENT') throw error;
      },
    );
  }
  await symlink(join(REPO_ROOT, 'node_modules'), join(target, 'node_modules'), 'dir');
  await npm(['run', 'build'], target);
  return target;
}

/** A package.json that depends on the tarball, and the lock file that lets `npm ci --offline` install it. */
async function writeInstallManifests(app: string, tarball: string): Promise<void> {
  const manifest = JSON.parse(await readFile(join(REPO_ROOT, 'package.json'), 'utf8')) as {
    name: string;
    version: string;
    license?: string;
    dependencies?: Record<string, string>;
    bin?: Record<string, string>;
    engines?: Record<string, string>;
  };
  const lock = JSON.parse(await readFile(join(REPO_ROOT, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, { version?: string; resolved?: string; dev?: boolean; link?: boolean }>;
  };
  const registry = (await npm(['config', 'get', 'registry'], app)).trim().replace(/\/?$/, '/');
  const spec = `file:${tarball}`;
  const packages: Record<string, unknown> = {
    '': { name: 'installed-app', dependencies: { [manifest.name]: spec } },
    [`node_modules/${manifest.name}`]: {
      version: manifest.version,
      resolved: spec,
      integrity: `sha512-${createHash('sha512')
        .update(await readFile(tarball))
        .digest('base64')}`,
      ...(manifest.license === undefined ? {} : { license: manifest.license }),
      ...(manifest.dependencies === undefined ? {} : { dependencies: manifest.dependencies }),
      ...(manifest.bin === undefined ? {} : { bin: manifest.bin }),
      ...(manifest.engines === undefined ? {} : { engines: manifest.engines }),
    },
  };
  for (const [path, entry] of Object.entries(lock.packages)) {
    if (!path.startsWith('node_modules/') || entry.dev === true || entry.link === true) continue;
    const name = path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length);
    // The cache holds each tarball under its registry address, which this lock file may leave out.
    const resolved =
      entry.resolved ?? `${registry}${name}/-/${name.slice(name.lastIndexOf('/') + 1)}-${entry.version}.tgz`;
    packages[path] = { ...entry, resolved };
  }
  await writeFile(
    join(app, 'package.json'),
    `${JSON.stringify({ name: 'installed-app', private: true, dependencies: { [manifest.name]: spec } }, null, 2)}\n`,
  );
  await writeFile(
    join(app, 'package-lock.json'),
    `${JSON.stringify({ name: 'installed-app', lockfileVersion: 3, requires: true, packages }, null, 2)}\n`,
  );
}

/** Runs npm in `cwd` and returns its stdout; a failure throws with what npm printed. */
async function npm(args: readonly string[], cwd: string): Promise<string> {
  try {
    const { stdout } = await run('npm', [...args], {
      cwd,
      maxBuffer: 64 * 1024 * 1024,
      env: npmEnvironment(),
    });
    return stdout;
  } catch (error) {
    const { stdout = '', stderr = '' } = error as { stdout?: string; stderr?: string };
    throw new Error(`npm ${args.join(' ')} failed in ${cwd}:\n${stderr}${stdout}`, { cause: error });
  }
}

/** npm settings a test run may carry that the npm it starts keeps: the cache and registry it uses. */
const KEPT_NPM_SETTINGS = new Set(['npm_config_cache', 'npm_config_registry', 'npm_config_userconfig']);

/**
 * The environment for npm and npx started from a test: this process's, without what an `npm test`
 * that started it exported about itself (`npm_config_local_prefix`, `npm_package_json`...), which
 * would point the npm started here back at this repository.
 */
export function npmEnvironment(): NodeJS.ProcessEnv {
  return {
    ...Object.fromEntries(
      Object.entries(process.env).filter(
        ([name]) => !name.toLowerCase().startsWith('npm_') || KEPT_NPM_SETTINGS.has(name.toLowerCase()),
      ),
    ),
    npm_config_update_notifier: 'false',
  };
}
