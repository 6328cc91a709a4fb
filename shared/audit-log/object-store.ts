import { createReadStream, readdirSync } from 'node:fs';
import { isAbsolute, join, relative, resolve } from 'node:path';

/** Where exported audit log objects are read from: an S3 bucket, or a folder that stands for one. */
export interface AuditObjectStore {
  /**
   * The object's body as it streams.
   *
   * @throws when the object cannot be read (missing, refused, the connection lost); a stream that
   *   fails later fails its iteration.
   */
  read(bucket: string, key: string, signal?: AbortSignal): Promise<AsyncIterable<Uint8Array>>;
}

/**
 * A folder that stands for buckets: the object `key` of bucket `b` is the file `<folder>/b/<key>`. The
 * simulator writes exported objects there, so the object source runs without AWS; a key that would
 * lead outside the bucket's folder is refused.
 *
 * @example
 * ```ts
 * const body = await new FolderObjectStore('/tmp/exports').read('atlas-logs', 'p/c/h/mongodb-audit-log/1.log.gz');
 * ```
 */
export class FolderObjectStore implements AuditObjectStore {
  readonly #folder: string;

  constructor(folder: string) {
    this.#folder = resolve(folder);
  }

  async read(bucket: string, key: string, signal?: AbortSignal): Promise<AsyncIterable<Uint8Array>> {
    const base = join(this.#folder, bucket);
    const path = resolve(base, key);
    const inside = relative(base, path);
    if (bucket.includes('/') || inside === '' || inside.startsWith('..') || isAbsolute(inside)) {
      throw new RangeError(
        `The object key ${JSON.stringify(key)} leads outside the bucket ${bucket}: refused`,
      );
    }
    const stream = createReadStream(path, signal === undefined ? {} : { signal });
    // Opening fails on the first read: wait for the open, so a missing object fails here.
    await new Promise<void>((done, fail) => {
      stream.once('open', () => done());
      stream.once('error', fail);
    });
    return stream;
  }

  /**
   * The keys of a bucket's objects (under `prefix`, when given), sorted: what a local run reads, in the
   * order Atlas wrote them (keys name the minutes they hold).
   */
  keys(bucket: string, prefix = ''): string[] {
    const base = join(this.#folder, bucket);
    let entries: string[];
    try {
      entries = readdirSync(base, { recursive: true, encoding: 'utf8' });
    } catch {
      return [];
    }
    return entries
      .map((entry) => entry.split('\\').join('/'))
      .filter((key) => key.startsWith(prefix) && /\.(log|gz|json)$/.test(key))
      .sort();
  }
}
