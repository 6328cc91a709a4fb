import { randomBytes } from 'node:crypto';
import { link, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import type { Logger } from '../logger.js';
import { StateFileLockedError } from './errors.js';

/** A held lock file. */
export interface FileLock {
  /** The lock file. */
  readonly path: string;
  /** Deletes the lock file if it is still this lock's. Safe to call twice. */
  release(): Promise<void>;
}

export interface AcquireFileLockOptions {
  /** The file the lock guards, named in errors and warnings. */
  guardedPath: string;
  /** The lock file; `${guardedPath}.lock` by default. */
  lockPath?: string;
  logger: Logger;
}

interface LockContent {
  pid: number;
  hostname: string;
  token: string;
}

/** Takeovers raced by other processes before giving up. */
const MAX_ATTEMPTS = 5;

/**
 * Takes an exclusive lock on a file for this process: creates `<file>.lock` holding the pid, the host
 * name and a token, only if it does not exist. A lock left by a process of this host that no longer
 * runs is taken over, with a warning.
 *
 * The lock file appears complete or not at all (written aside, then hard-linked into place, which
 * fails if it exists), so a reader never sees a half-written pid. A stale lock is taken over by
 * renaming it aside first: of two processes racing for the same stale lock only one can rename it,
 * and one that renamed a fresh lock by mistake puts it back.
 *
 * @throws StateFileLockedError when a live process (or a process of another host, whose liveness
 * cannot be checked) holds the lock, or the lock file cannot be read; the message names the file and
 * the pid.
 *
 * @example
 * ```ts
 * const lock = await acquireFileLock({ guardedPath: 'state.json', logger });
 * try { ... } finally { await lock.release(); }
 * ```
 */
export async function acquireFileLock(options: AcquireFileLockOptions): Promise<FileLock> {
  const lockPath = options.lockPath ?? `${options.guardedPath}.lock`;
  const content: LockContent = {
    pid: process.pid,
    hostname: hostname(),
    token: randomBytes(12).toString('hex'),
  };
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt += 1) {
    if (await createExclusively(lockPath, JSON.stringify(content))) {
      return { path: lockPath, release: () => releaseIfOurs(lockPath, content.token) };
    }
    const holder = await readLock(lockPath);
    if (holder === 'absent') continue;
    if (holder === 'unreadable') {
      throw new StateFileLockedError(
        `the lock file ${lockPath} of state file ${options.guardedPath} cannot be read: if no other run ` +
          'uses this state file, delete the lock file and start again',
        { path: options.guardedPath },
      );
    }
    if (holder.hostname !== content.hostname || isRunning(holder.pid)) {
      throw lockedError(options.guardedPath, lockPath, holder);
    }
    if (await takeOverStale(lockPath, holder)) {
      options.logger.warn('took over the lock of a state file from a process that no longer runs', {
        path: options.guardedPath,
        lockPath,
        stalePid: holder.pid,
      });
    }
  }
  throw new StateFileLockedError(
    `could not lock state file ${options.guardedPath}: ${lockPath} kept changing hands; another run is ` +
      'starting with the same state file',
    { path: options.guardedPath },
  );
}

function lockedError(guardedPath: string, lockPath: string, holder: LockContent): StateFileLockedError {
  const who = holder.pid === process.pid ? `this process (pid ${holder.pid})` : `process ${holder.pid}`;
  const where = holder.hostname === hostname() ? '' : ` on host ${holder.hostname}`;
  return new StateFileLockedError(
    `state file ${guardedPath} is in use by ${who}${where}: two runs cannot share a state file. Wait for ` +
      `it to finish, or give this run another state file; if that process is gone, delete ${lockPath}`,
    { path: guardedPath, pid: holder.pid },
  );
}

async function createExclusively(lockPath: string, text: string): Promise<boolean> {
  const draft = `${lockPath}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  await writeFile(draft, text, { mode: 0o600, flag: 'wx' });
  try {
    await link(draft, lockPath);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    await rm(draft, { force: true });
  }
}

async function readLock(lockPath: string): Promise<LockContent | 'absent' | 'unreadable'> {
  let text: string;
  try {
    text = await readFile(lockPath, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 'absent';
    throw error;
  }
  return parseLock(text) ?? 'unreadable';
}

function parseLock(text: string): LockContent | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const { pid, hostname: host, token } = value as Record<string, unknown>;
  if (typeof pid !== 'number' || !Number.isInteger(pid) || pid <= 0) return undefined;
  if (typeof host !== 'string' || typeof token !== 'string') return undefined;
  return { pid, hostname: host, token };
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Moves the stale lock aside; returns whether it was the stale one (and not a fresh lock since). */
async function takeOverStale(lockPath: string, stale: LockContent): Promise<boolean> {
  const aside = `${lockPath}.${process.pid}.${randomBytes(6).toString('hex')}.stale`;
  try {
    await rename(lockPath, aside);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
  const moved = parseLock(await readFile(aside, 'utf8'));
  if (moved?.token !== stale.token) {
    // Another process took the stale lock over between our read and our rename: give its lock back.
    await link(aside, lockPath).catch(() => {});
    await rm(aside, { force: true });
    return false;
  }
  await rm(aside, { force: true });
  return true;
}

async function releaseIfOurs(lockPath: string, token: string): Promise<void> {
  let text: string;
  try {
    text = await readFile(lockPath, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  if (parseLock(text)?.token === token) await rm(lockPath, { force: true });
}
