import { randomBytes } from 'node:crypto';
import { open, rename, rm } from 'node:fs/promises';
import { dirname } from 'node:path';

/**
 * Replaces the file at `path` with `data` so that a reader, or the file after a crash, holds either
 * the old content or the new one, never a mix: writes a temporary file beside it, flushes it to disk,
 * renames it over `path`, then flushes the directory so the rename itself is durable.
 *
 * @throws the file system's error (`ENOSPC`, `EACCES`...) when the write or the rename fails; the
 * temporary file is removed and `path` keeps its old content.
 *
 * @example
 * ```ts
 * await writeFileAtomic('.atlas-audit-alerts/state.json', JSON.stringify(state));
 * ```
 */
export async function writeFileAtomic(path: string, data: string): Promise<void> {
  const temporary = `${path}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    const file = await open(temporary, 'wx', 0o600);
    try {
      await file.writeFile(data, 'utf8');
      await file.sync();
    } finally {
      await file.close();
    }
    await rename(temporary, path);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
  await syncDirectory(dirname(path));
}

async function syncDirectory(directory: string): Promise<void> {
  let handle: Awaited<ReturnType<typeof open>> | undefined;
  try {
    handle = await open(directory, 'r');
    await handle.sync();
  } catch {
    // Some platforms (Windows) cannot open or flush a directory; the rename is then as durable as the
    // platform makes it, which is all any program there can do.
  } finally {
    await handle?.close();
  }
}
