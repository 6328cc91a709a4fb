import { closeSync, constants, fstatSync, lstatSync, openSync, readlinkSync, readSync } from 'node:fs';
import { extname } from 'node:path';

/** The largest rule file read: forty thousand rules fit in it. */
export const MAX_RULE_FILE_BYTES = 8 * 1024 * 1024;
/** The most rule text read for all layers together. */
export const MAX_RULE_TEXT_BYTES = 32 * 1024 * 1024;

/** The names rule files go by. */
export const RULE_FILE_EXTENSIONS: ReadonlySet<string> = new Set(['.yaml', '.yml']);

/** A rule file read, or why it was not. */
export type RuleFileRead = { ok: true; text: string } | { ok: false; message: string };

/** Options of {@link readRuleFile}. */
export interface ReadRuleFileOptions {
  /** The most bytes read; a larger file is refused unread. Default {@link MAX_RULE_FILE_BYTES}. */
  readonly maxBytes?: number | undefined;
  /**
   * Refuse a symbolic link instead of reading what it points at: the files of a layer directory must be
   * in it, so a link to a file elsewhere (a credentials file, say) is never read and never quoted in an
   * error. A layer given as a file may be a link; its target must then be named `.yaml` or `.yml`.
   */
  readonly refuseLinks?: boolean | undefined;
}

/**
 * Reads a rule file as UTF-8 text, refusing without blocking or reading further what is not a rule
 * file: anything but a regular file (a FIFO would block forever, `/dev/urandom` never ends), a file
 * over the size bound, a symbolic link where `refuseLinks` says so, a name that is not `.yaml` or
 * `.yml`. Never throws; the message of a refusal says what the path is and what to do.
 *
 * @example
 * ```ts
 * const read = readRuleFile('my-rules/tuning.yaml');
 * if (!read.ok) console.error(read.message);
 * ```
 */
export function readRuleFile(path: string, options: ReadRuleFileOptions = {}): RuleFileRead {
  const maxBytes = options.maxBytes ?? MAX_RULE_FILE_BYTES;
  try {
    const link = lstatSync(path);
    if (link.isSymbolicLink()) {
      const target = readlinkSync(path);
      if (options.refuseLinks === true) {
        return refused(
          `this is a symbolic link to ${target}: the rule files of a layer directory must be in it; copy the file there, or give it as a layer of its own`,
        );
      }
      if (!RULE_FILE_EXTENSIONS.has(extname(target))) {
        return refused(
          `this is a symbolic link to ${target}, which is not a .yaml or .yml file: give rule files, or directories of them`,
        );
      }
    } else if (!RULE_FILE_EXTENSIONS.has(extname(path))) {
      return refused('this is not a .yaml or .yml file: give rule files, or directories of them');
    }
    // Opening without blocking: a FIFO with no writer would otherwise hold the open forever.
    const handle = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
    try {
      const info = fstatSync(handle);
      if (!info.isFile())
        return refused(
          `this is ${kindOf(info)}, not a regular file: give rule files, or directories of them`,
        );
      if (info.size > maxBytes) return refused(tooLarge(maxBytes, info.size));
      // Read in chunks and stop past the bound: a file that grows while it is read is refused too.
      const chunks: Buffer[] = [];
      const chunk = Buffer.allocUnsafe(64 * 1024);
      let length = 0;
      for (;;) {
        const bytesRead = readSync(handle, chunk, 0, chunk.length, null);
        if (bytesRead === 0) break;
        length += bytesRead;
        if (length > maxBytes) return refused(tooLarge(maxBytes));
        chunks.push(Buffer.from(chunk.subarray(0, bytesRead)));
      }
      return { ok: true, text: Buffer.concat(chunks, length).toString('utf8') };
    } finally {
      closeSync(handle);
    }
  } catch (error) {
    return refused(`cannot read: ${describeFsError(error)}`);
  }
}

function refused(message: string): RuleFileRead {
  return { ok: false, message };
}

function tooLarge(maxBytes: number, bytes?: number): string {
  const size = bytes === undefined ? '' : ` (${mib(bytes)})`;
  return `this file is larger than the ${mib(maxBytes)} a rule file may hold${size}: check that it is the file you meant, or split it`;
}

function mib(bytes: number): string {
  return `${(bytes / 2 ** 20).toFixed(1)} MiB`;
}

function kindOf(info: {
  isDirectory(): boolean;
  isFIFO(): boolean;
  isSocket(): boolean;
  isCharacterDevice(): boolean;
  isBlockDevice(): boolean;
}): string {
  if (info.isDirectory()) return 'a directory';
  if (info.isFIFO()) return 'a FIFO (named pipe)';
  if (info.isSocket()) return 'a socket';
  if (info.isCharacterDevice() || info.isBlockDevice()) return 'a device';
  return 'not a regular file';
}

/**
 * What a file system error means, in words.
 *
 * @example
 * ```ts
 * describeFsError(Object.assign(new Error('...'), { code: 'ENOENT' })); // 'no such file or directory'
 * ```
 */
export function describeFsError(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  if (code === 'ENOENT') return 'no such file or directory';
  if (code === 'EACCES') return 'permission denied';
  if (code === 'ELOOP') return 'too many symbolic links';
  return error instanceof Error ? error.message : String(error);
}
