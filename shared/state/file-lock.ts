import { randomBytes } from 'node:crypto';
import { link, readFile, rename, rm, stat, utimes, writeFile } from 'node:fs/promises';
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
  /** How often the holder touches the lock file to show it is alive. Default 10 s. */
  heartbeatMs?: number;
  /**
   * A lock file untouched for this long is stale whoever holds it (another host, a pid this host
   * now gives to another process). Default 2 minutes.
   */
  staleMs?: number;
}

interface LockContent {
  pid: number;
  hostname: string;
  token: string;
}

/** Takeovers raced by other processes before giving up. */
const MAX_ATTEMPTS = 5;
const DEFAULT_HEARTBEAT_MS = 10_000;
const DEFAULT_STALE_MS = 120_000;

/**
 * Tokens of the locks this process holds. A lock file naming this process's pid with a token not
 * here was left by an earlier process that had the same pid: a container's pid 1 before a restart.
 */
const heldTokens = new Set<string>();

/**
 * Takes an exclusive lock on a file for this process: creates `<file>.lock` holding the pid, the host
 * name and a token, only if it does not exist, and touches it every `heartbeatMs` while held. A lock
 * is taken over, with a warning, when its holder is known to be gone: a process of this host that no
 * longer runs, an earlier process with this process's own pid (a container restarted as pid 1), or
 * any holder, of this host or another, that has not touched the lock for `staleMs`.
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
  const heartbeatMs = options.heartbeatMs ?? DEFAULT_HEARTBEAT_MS;
  const staleMs = options.staleMs ?? DEFAULT_STALE_MS;
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt += 1) {
    if (await createExclusively(lockPath, JSON.stringify(content))) {
      return holdLock(lockPath, content.token, heartbeatMs);
    }
    const found = await readLock(lockPath);
    if (found === 'absent') continue;
    const holder = found.content;
    if (holder === 'unreadable') {
      throw new StateFileLockedError(
        `the lock file ${lockPath} of state file ${options.guardedPath} cannot be read: if no other run ` +
          'uses this state file, delete the lock file and start again',
        { path: options.guardedPath },
      );
    }
    const gone = holderGone(holder, content.hostname, Date.now() - found.touchedAt >= staleMs);
    if (gone === undefined) throw lockedError(options.guardedPath, lockPath, holder);
    if (await takeOverStale(lockPath, holder)) {
      options.logger.warn('took over the lock of a state file from a process that no longer runs', {
        path: options.guardedPath,
        lockPath,
        stalePid: holder.pid,
        staleHost: holder.hostname,
        why: gone,
      });
    }
  }
  throw new StateFileLockedError(
    `could not lock state file ${options.guardedPath}: ${lockPath} kept changing hands; another run is ` +
      'starting with the same state file',
    { path: options.guardedPath },
  );
}

/** Why the lock's holder is known to be gone, or `undefined` while it may still run. */
function holderGone(holder: LockContent, host: string, untouched: boolean): string | undefined {
  if (holder.hostname === host) {
    if (holder.pid === process.pid) {
      return heldTokens.has(holder.token) ? undefined : 'an earlier process with this pid left it';
    }
    if (!isRunning(holder.pid)) return 'its process no longer runs';
  }
  return untouched ? 'its holder stopped touching it' : undefined;
}

/** Keeps the lock alive until released. */
function holdLock(lockPath: string, token: string, heartbeatMs: number): FileLock {
  heldTokens.add(token);
  const heartbeat = setInterval(() => {
    const now = new Date();
    utimes(lockPath, now, now).catch(() => {});
  }, heartbeatMs);
  heartbeat.unref();
  return {
    path: lockPath,
    release: async () => {
      clearInterval(heartbeat);
      heldTokens.delete(token);
      await releaseIfOurs(lockPath, token);
    },
  };
}

function lockedError(guardedPath: string, lockPath: string, holder: LockContent): StateFileLockedError {
  // A pid names a process on its own host only: another host's pid 1 is not this process's pid 1.
  const sameHost = holder.hostname === hostname();
  const who =
    sameHost && holder.pid === process.pid ? `this process (pid ${holder.pid})` : `process ${holder.pid}`;
  const where = sameHost ? '' : ` on host ${holder.hostname}`;
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

async function readLock(
  lockPath: string,
): Promise<{ content: LockContent | 'unreadable'; touchedAt: number } | 'absent'> {
  let text: string;
  let touchedAt: number;
  try {
    touchedAt = (await stat(lockPath)).mtimeMs;
    text = await readFile(lockPath, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 'absent';
    throw error;
  }
  return { content: parseLock(text) ?? 'unreadable', touchedAt };
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
