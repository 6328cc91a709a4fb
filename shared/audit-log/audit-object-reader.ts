import { pipeline, Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { type AuditLogContext, type AuditLogEvent, buildAuditLogEvent } from './audit-log-events.js';

/** The longest line read: an audit message is a few hundred bytes; one past this is skipped and counted. */
export const MAX_AUDIT_LINE_BYTES = 256 * 1024;

/** How many events a batch holds: what the rules evaluate and the claims settle together. */
export const AUDIT_BATCH_SIZE = 500;

/** What reading one object found, counted as it goes. */
export interface AuditObjectCounts {
  /** Bytes of text read (after gunzip). */
  bytes: number;
  /** Lines read, empty ones left out. */
  lines: number;
  /** Lines that became events. */
  events: number;
  /** Lines that are not JSON, or not an audit message: skipped. */
  malformed: number;
  /** Lines longer than the bound: skipped unread. */
  overlong: number;
}

export interface ReadAuditObjectOptions {
  /** The project, cluster and host of the object (from its key). */
  context: AuditLogContext;
  /** Default {@link MAX_AUDIT_LINE_BYTES}. */
  maxLineBytes?: number;
  /** Default {@link AUDIT_BATCH_SIZE}. */
  batchSize?: number;
  /** Filled in while the object is read; complete once the iteration ends. */
  counts?: AuditObjectCounts;
}

/**
 * Reads an audit log object as a stream, gzip or not (told by its first bytes), and yields its events
 * in batches. Memory stays flat whatever the object's size: one chunk, one line (at most
 * `maxLineBytes`) and one batch at a time; the caller's pace drives the reading. A line that is not an
 * audit message is counted and skipped, as is one past the bound (read up to its end without keeping
 * it), and neither stops the object; a last line without a newline (an object cut short) is read like
 * any other. Events keep the order of their lines.
 *
 * @throws what the stream throws: a read failure, or a gzip object that is corrupt or cut short (the
 *   events of the lines before are yielded first).
 * @example
 * ```ts
 * const counts = emptyAuditCounts();
 * for await (const events of readAuditObject(body, { context, counts })) await evaluate(events);
 * ```
 */
export async function* readAuditObject(
  body: AsyncIterable<Uint8Array>,
  options: ReadAuditObjectOptions,
): AsyncGenerator<AuditLogEvent[]> {
  const counts = options.counts ?? emptyAuditCounts();
  const maxLineBytes = options.maxLineBytes ?? MAX_AUDIT_LINE_BYTES;
  const batchSize = options.batchSize ?? AUDIT_BATCH_SIZE;
  const decoder = new TextDecoder('utf-8');
  let batch: AuditLogEvent[] = [];
  const take = (line: Buffer): void => {
    const text = decoder.decode(line).replace(/\r$/, '');
    if (text.trim() === '') return;
    counts.lines += 1;
    try {
      batch.push(buildAuditLogEvent(JSON.parse(text), text, options.context));
      counts.events += 1;
    } catch {
      counts.malformed += 1;
    }
  };
  for await (const line of splitLines(decoded(body), maxLineBytes, counts)) {
    take(line);
    if (batch.length >= batchSize) {
      yield batch;
      batch = [];
    }
  }
  if (batch.length > 0) yield batch;
}

/** Counts at zero, to pass to {@link readAuditObject} and read once it ends. */
export function emptyAuditCounts(): AuditObjectCounts {
  return { bytes: 0, lines: 0, events: 0, malformed: 0, overlong: 0 };
}

/** The object's text bytes: through gunzip when it starts with the gzip magic bytes. */
async function* decoded(body: AsyncIterable<Uint8Array>): AsyncGenerator<Uint8Array> {
  const chunks = body[Symbol.asyncIterator]();
  // The first two bytes tell gzip, and a chunk may hold fewer.
  const head: Uint8Array[] = [];
  let headBytes = 0;
  while (headBytes < 2) {
    const next = await chunks.next();
    if (next.done === true) break;
    head.push(next.value);
    headBytes += next.value.length;
  }
  if (headBytes === 0) return;
  const all = (async function* () {
    yield* head;
    for (;;) {
      const next = await chunks.next();
      if (next.done === true) return;
      yield next.value;
    }
  })();
  const start = Buffer.concat(head.map((chunk) => chunk.subarray(0, 2))).subarray(0, 2);
  if (start[0] === 0x1f && start[1] === 0x8b) {
    // pipeline, not pipe: a read that fails reaches the gunzip stream, and so the reader, as the error.
    const gunzip = createGunzip();
    pipeline(Readable.from(all, { objectMode: false }), gunzip, () => {});
    yield* gunzip as AsyncIterable<Uint8Array>;
  } else {
    yield* all;
  }
}

/**
 * Lines of a byte stream, split at `\n`, each at most `maxLineBytes`: a longer one is dropped as it
 * grows (only its length is kept) and counted once its end is found.
 */
async function* splitLines(
  chunks: AsyncIterable<Uint8Array>,
  maxLineBytes: number,
  counts: AuditObjectCounts,
): AsyncGenerator<Buffer> {
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let overlong = false;
  for await (const chunk of chunks) {
    const bytes = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    counts.bytes += bytes.length;
    let start = 0;
    for (;;) {
      const newline = bytes.indexOf(0x0a, start);
      const end = newline === -1 ? bytes.length : newline;
      if (!overlong) {
        if (pendingBytes + (end - start) > maxLineBytes) {
          overlong = true;
          pending = [];
          pendingBytes = 0;
        } else if (end > start) {
          pending.push(bytes.subarray(start, end));
          pendingBytes += end - start;
        }
      }
      if (newline === -1) break;
      if (overlong) counts.overlong += 1;
      else yield pending.length === 1 ? (pending[0] as Buffer) : Buffer.concat(pending, pendingBytes);
      pending = [];
      pendingBytes = 0;
      overlong = false;
      start = newline + 1;
    }
    // The chunk's bytes that stay pending must not pin the chunk it came in: copy them.
    if (pending.length > 0) pending = [Buffer.from(Buffer.concat(pending, pendingBytes))];
  }
  if (overlong) counts.overlong += 1;
  else if (pendingBytes > 0) yield Buffer.concat(pending, pendingBytes);
}
