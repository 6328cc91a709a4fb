import { open } from 'node:fs/promises';

const NEWLINE = 0x0a;
/** How much of the file's end is read at a time while looking for the last whole line. */
const TAIL_CHUNK_BYTES = 64 * 1024;

/**
 * Appends `text` (whole lines, each ending in `\n`) to a file, all or nothing: when the write fails
 * part way (a full disk, a file size limit), the file is cut back to where it was, so no partial line
 * stays to be glued to the next one; and the data is flushed to disk before it resolves, so a line
 * reported written can be read back. A partial last line left by a process killed mid-write is cut
 * off first: it was never reported written.
 *
 * @throws The file system's error (ENOSPC, EFBIG, EACCES...) after the file was cut back.
 *
 * @example
 * ```ts
 * await appendWholeLines('.atlas-audit-alerts/outbox.jsonl', `${JSON.stringify(entry)}\n`);
 * ```
 */
export async function appendWholeLines(path: string, text: string): Promise<void> {
  const handle = await open(path, 'a+', 0o600);
  try {
    const start = await endOfLastWholeLine(handle);
    try {
      await handle.appendFile(text, { encoding: 'utf8' });
      await handle.datasync();
    } catch (error) {
      await handle.truncate(start).catch(() => {});
      throw error;
    }
  } finally {
    await handle.close();
  }
}

/** The file's size, after cutting off a last line that has no `\n` (a write that never finished). */
async function endOfLastWholeLine(handle: Awaited<ReturnType<typeof open>>): Promise<number> {
  const { size } = await handle.stat();
  let end = size;
  const buffer = Buffer.alloc(TAIL_CHUNK_BYTES);
  while (end > 0) {
    const length = Math.min(TAIL_CHUNK_BYTES, end);
    const { bytesRead } = await handle.read(buffer, 0, length, end - length);
    const newline = buffer.subarray(0, bytesRead).lastIndexOf(NEWLINE);
    if (newline !== -1) {
      end = end - length + newline + 1;
      break;
    }
    end -= length;
  }
  if (end !== size) await handle.truncate(end);
  return end;
}
