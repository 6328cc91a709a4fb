import { type Dispatcher, errors } from 'undici';
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
  /**
   * Longest wait for the response headers, between two chunks of the body, and for the whole
   * exchange: a server that trickles its answer a byte at a time cannot hold a call longer.
   */
  timeoutMs: number;
  /** Bodies above this are refused rather than buffered: a list page of 500 events is a few MB. */
  maxBodyBytes: number;
}

/**
 * Sends one request and reads the whole answer. No retries, no interpretation of the status.
 *
 * It dispatches with a handler that collects the body's chunks itself, rather than through undici's
 * `request()`: that API wraps the answer in a stream, and the stream and its async iterator cost more
 * CPU per call than the rest of a small call's client-side work together.
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
export function exchange(options: ExchangeOptions): Promise<HttpResponse> {
  const { request, maxBodyBytes } = options;
  const { signal } = request;
  return new Promise<HttpResponse>((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    let controller: Dispatcher.DispatchController | undefined;
    let settled = false;
    const onAbort = (): void => controller?.abort(signal?.reason);
    const finish = (outcome: () => void): void => {
      if (settled) return;
      settled = true;
      clearTimeout(overall);
      signal?.removeEventListener('abort', onAbort);
      outcome();
    };
    const overall = setTimeout(() => {
      const error = new errors.BodyTimeoutError(
        `Atlas did not finish answering ${request.method} ${pathOnly(request.path)} within ${options.timeoutMs} ms`,
      );
      finish(() => reject(error));
      controller?.abort(error);
    }, options.timeoutMs);
    signal?.addEventListener('abort', onAbort, { once: true });
    let status = 0;
    let headers: HttpResponse['headers'] = {};
    const chunks: Buffer[] = [];
    let size = 0;
    const handler: Dispatcher.DispatchHandler = {
      onRequestStart(requestController) {
        controller = requestController;
        if (signal?.aborted) requestController.abort(signal.reason);
      },
      onResponseStart(_controller, statusCode, responseHeaders) {
        status = statusCode;
        headers = responseHeaders as HttpResponse['headers'];
      },
      onResponseData(responseController, chunk) {
        size += chunk.length;
        if (size > maxBodyBytes) {
          responseController.abort(
            new AtlasResponseError(
              `Atlas answered ${request.method} ${pathOnly(request.path)} with a body over ${maxBodyBytes} bytes: ask for fewer items per page`,
              { status, method: request.method, path: pathOnly(request.path) },
            ),
          );
          return;
        }
        chunks.push(chunk);
      },
      onResponseEnd() {
        finish(() => resolve({ status, headers, body: Buffer.concat(chunks).toString('utf8') }));
      },
      onResponseError(_controller, error) {
        finish(() => reject(signal?.aborted ? signal.reason : error));
      },
    };
    try {
      options.dispatcher.dispatch(
        {
          origin: options.origin,
          path: request.path,
          method: request.method,
          headers: request.headers,
          body: request.body ?? null,
          headersTimeout: options.timeoutMs,
          bodyTimeout: options.timeoutMs,
        },
        handler,
      );
    } catch (error) {
      finish(() => reject(error));
    }
  });
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
