import type { Dispatcher } from 'undici';
import { AtlasResponseError } from './errors.js';

/** One HTTP request to Atlas, as the client sends it. */
export interface HttpRequest {
  method: 'GET' | 'POST';
  /** Path and query, starting with `/`. */
  path: string;
  headers: Record<string, string>;
  body?: string;
  signal?: AbortSignal;
}

/** Atlas's answer, its body read whole. */
export interface HttpResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** Options of {@link exchange}. */
export interface ExchangeOptions {
  dispatcher: Dispatcher;
  origin: string;
  request: HttpRequest;
  /** Longest wait for the response headers, and between two chunks of the body. */
  timeoutMs: number;
  /** Bodies above this are refused rather than buffered: a list page of 500 events is a few MB. */
  maxBodyBytes: number;
}

/**
 * Sends one request and reads the whole answer. No retries, no interpretation of the status.
 *
 * @throws The dispatcher's error when no complete answer arrives (connection refused or reset, timeout,
 *   body cut short), or the signal's reason when the caller aborts.
 * @throws AtlasResponseError when the body is larger than `maxBodyBytes`.
 *
 * @example
 * ```ts
 * const response = await exchange({ dispatcher, origin: 'https://cloud.mongodb.com', timeoutMs: 30_000,
 *   maxBodyBytes: 64 * 1024 * 1024, request: { method: 'GET', path: '/api/atlas/v2/groups/x/events', headers } });
 * ```
 */
export async function exchange(options: ExchangeOptions): Promise<HttpResponse> {
  const { request } = options;
  const response = await options.dispatcher.request({
    origin: options.origin,
    path: request.path,
    method: request.method,
    headers: request.headers,
    body: request.body ?? null,
    signal: request.signal ?? null,
    headersTimeout: options.timeoutMs,
    bodyTimeout: options.timeoutMs,
  });
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of response.body) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    if (size > options.maxBodyBytes) {
      response.body.destroy();
      throw new AtlasResponseError(
        `Atlas answered ${request.method} ${pathOnly(request.path)} with a body over ${options.maxBodyBytes} bytes: ask for fewer items per page`,
        { status: response.statusCode, method: request.method, path: pathOnly(request.path) },
      );
    }
    chunks.push(buffer);
  }
  return {
    status: response.statusCode,
    headers: response.headers,
    body: Buffer.concat(chunks).toString('utf8'),
  };
}

/**
 * A request path without its query string: what error messages and logs show.
 *
 * @example
 * ```ts
 * pathOnly('/api/atlas/v2/groups/x/events?pageNum=2'); // '/api/atlas/v2/groups/x/events'
 * ```
 */
export function pathOnly(path: string): string {
  const index = path.indexOf('?');
  return index === -1 ? path : path.slice(0, index);
}
