import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Logger, silentLogger } from '../logger.js';
import { PUSH_STATUS, type PushReceiver, type PushResult } from './push-receiver.js';
import { MAX_PUSH_BODY_BYTES } from './push-settings.js';

/** Options of {@link startPushServer}. */
export interface PushServerOptions {
  receiver: Pick<PushReceiver, 'receive'>;
  /** Default `127.0.0.1`. */
  host?: string;
  /** Default 0: a free port. */
  port?: number;
  /** Largest body read, in bytes; a longer one is refused (413) and the connection closed. Default 16 KB. */
  maxBodyBytes?: number;
  /** Time to receive a request's headers, in milliseconds. Default 5,000. */
  headersTimeoutMs?: number;
  /** Time to receive the whole request, headers and body, in milliseconds. Default 10,000. */
  requestTimeoutMs?: number;
  /** Told of each request's outcome (the CLI counts them). */
  onResult?: (result: PushResult) => void;
  logger?: Logger;
}

/** A running push server. */
export interface PushServer {
  /** `http://host:port/`. */
  readonly url: string;
  readonly port: number;
  /** Stops taking connections and closes those open. */
  close(): Promise<void>;
}

/** Headers taken at most, in bytes: an Atlas webhook sends a handful. */
const MAX_HEADER_BYTES = 8 * 1024;

/**
 * The push receiver behind a local HTTP server (`run --push-listen`), bounded so that a slow or large
 * request costs little: headers must arrive within `headersTimeoutMs` and be at most 8 KB, the whole
 * request within `requestTimeoutMs` (a body trickled a byte at a time is cut off then, with 408), and a
 * body over `maxBodyBytes` is refused with 413 as soon as its `Content-Length` says so, or as soon as
 * that many bytes have come, without reading the rest. Each answer is a bare status; a refusal closes
 * the connection.
 *
 * @example
 * ```ts
 * const server = await startPushServer({ receiver, host: '127.0.0.1', port: 8787 });
 * // Atlas (or the simulator's sender) posts to server.url
 * await server.close();
 * ```
 */
export async function startPushServer(options: PushServerOptions): Promise<PushServer> {
  const maxBodyBytes = options.maxBodyBytes ?? MAX_PUSH_BODY_BYTES;
  const requestTimeoutMs = options.requestTimeoutMs ?? 10_000;
  const headersTimeoutMs = Math.min(options.headersTimeoutMs ?? 5_000, requestTimeoutMs);
  const logger = options.logger ?? silentLogger;
  const server: Server = createServer({
    headersTimeout: headersTimeoutMs,
    requestTimeout: requestTimeoutMs,
    maxHeaderSize: MAX_HEADER_BYTES,
    // Node checks the two timeouts above on this interval (30 s by default): check often enough that
    // they hold to within a fraction of themselves.
    connectionsCheckingInterval: Math.max(50, Math.min(1_000, Math.floor(headersTimeoutMs / 4))),
    keepAliveTimeout: 5_000,
  });
  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    handle(request, response).catch((error: unknown) => {
      logger.error('push server failed on a request', {
        error: error instanceof Error ? error.message : String(error),
      });
      answer(response, 500, true);
    });
  });

  const handle = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const refuse = (result: PushResult): void => {
      options.onResult?.(result);
      answer(response, result.status, true);
      request.destroy();
    };
    const declared = Number(request.headers['content-length']);
    if (Number.isFinite(declared) && declared > maxBodyBytes) {
      refuse({ status: PUSH_STATUS.oversized, outcome: 'oversized' });
      return;
    }
    const body = await readBody(request, maxBodyBytes);
    if (body === 'oversized') {
      refuse({ status: PUSH_STATUS.oversized, outcome: 'oversized' });
      return;
    }
    if (body === 'aborted') return;
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(request.headers)) {
      if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(',') : value;
    }
    const result = await options.receiver.receive({
      method: request.method ?? '',
      path: (request.url ?? '').split('?')[0] ?? '',
      headers,
      body,
    });
    options.onResult?.(result);
    answer(response, result.status, result.outcome !== 'accepted' && result.outcome !== 'replay');
  };

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${host}:${address.port}/`,
    port: address.port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** The body, or why there is none: longer than `max` (reading stopped there), or the request aborted. */
function readBody(request: IncomingMessage, max: number): Promise<Uint8Array | 'oversized' | 'aborted'> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let length = 0;
    const finish = (value: Uint8Array | 'oversized' | 'aborted'): void => {
      request.off('data', onData);
      request.off('end', onEnd);
      request.off('error', onAbort);
      request.off('close', onClose);
      resolve(value);
    };
    const onData = (chunk: Buffer): void => {
      length += chunk.byteLength;
      if (length > max) {
        request.pause();
        finish('oversized');
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = (): void => finish(Buffer.concat(chunks, length));
    const onAbort = (): void => finish('aborted');
    const onClose = (): void => {
      if (!request.complete) finish('aborted');
    };
    request.on('data', onData);
    request.on('end', onEnd);
    request.on('error', onAbort);
    request.on('close', onClose);
  });
}

function answer(response: ServerResponse, status: number, close: boolean): void {
  if (response.headersSent || response.destroyed) return;
  response.writeHead(status, { 'content-length': '0', ...(close ? { connection: 'close' } : {}) });
  response.end();
}
