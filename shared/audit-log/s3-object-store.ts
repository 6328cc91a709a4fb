import { GetObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import type { AuditObjectStore } from './object-store.js';

/**
 * Reads exported objects from S3 with GetObject, streaming the body: the object is never held whole.
 *
 * @example
 * ```ts
 * const objects = new S3ObjectStore(new S3Client({}));
 * for await (const chunk of await objects.read('my-atlas-logs', key)) process(chunk);
 * ```
 */
export class S3ObjectStore implements AuditObjectStore {
  readonly #client: S3Client;

  constructor(client: S3Client) {
    this.#client = client;
  }

  async read(bucket: string, key: string, signal?: AbortSignal): Promise<AsyncIterable<Uint8Array>> {
    const answer = await this.#client.send(
      new GetObjectCommand({ Bucket: bucket, Key: key }),
      signal === undefined ? {} : { abortSignal: signal },
    );
    const body = answer.Body as AsyncIterable<Uint8Array> | undefined;
    if (body === undefined || typeof body[Symbol.asyncIterator] !== 'function') {
      throw new TypeError(`S3 answered GetObject for s3://${bucket}/${key} with no body to stream`);
    }
    return body;
  }
}
