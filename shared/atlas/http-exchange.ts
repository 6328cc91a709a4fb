import type { Dispatcher } from 'undici';
import { AtlasResponseError } from './errors.js';
import { errors } from './undici-parts.js';

/** One HTTP request to Atlas, as the client sends it. */
export interface HttpRequest {
  method: 'GET' | 'POST' | 'PUT';
  /** Path and query, starting with `/`. */
  path: string;
  headers: Record<string, string>;
  body?: string;
  signal?: AbortSignal;
  /**
   * A write that may not be sent twice: retried only after a 429 (which Atlas did not carry out),
   * never after a transport failure or a 5xx, which may follow a write that took effect.
   */
  writeOnce?: boolean;
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
  const { signal } = options.request;
  if (signal?.aborted) return Promise.reject(signal.reason);
  return new Promise<HttpResponse>((resolve, reject) => {
    new ExchangeHandler(options, resolve, reject).start();
  });
}

/**
 * One exchange's state, undici's handler callbacks and the signal's listener, in one object: a call
 * allocates it and its timer, not a closure per callback.
 */
class ExchangeHandler implements Dispatcher.DispatchHandler {
  readonly #options: ExchangeOptions;
  readonly #resolve: (response: HttpResponse) => void;
  readonly #reject: (reason: unknown) => void;
  #controller: Dispatcher.DispatchController | undefined;
  #overall: NodeJS.Timeout | undefined;
  #settled = false;
  #status = 0;
  #headers: HttpResponse['headers'] = {};
  #chunks: Buffer[] = [];
  #size = 0;

  constructor(
    options: ExchangeOptions,
    resolve: (response: HttpResponse) => void,
    reject: (reason: unknown) => void,
  ) {
    this.#options = options;
    this.#resolve = resolve;
    this.#reject = reject;
  }

  start(): void {
    const { request, timeoutMs } = this.#options;
    this.#overall = setTimeout(() => this.#timeOut(), timeoutMs);
    request.signal?.addEventListener('abort', this, { once: true });
    try {
      this.#options.dispatcher.dispatch(
        {
          origin: this.#options.origin,
          path: request.path,
          method: request.method,
          headers: request.headers,
          body: request.body ?? null,
          headersTimeout: timeoutMs,
          bodyTimeout: timeoutMs,
        },
        this,
      );
    } catch (error) {
      this.#fail(error);
    }
  }

  /** The caller's signal aborted: abort the request. */
  handleEvent(): void {
    this.#controller?.abort(this.#options.request.signal?.reason);
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.#controller = controller;
    const { signal } = this.#options.request;
    if (signal?.aborted) controller.abort(signal.reason);
  }

  onResponseStart(
    _controller: Dispatcher.DispatchController,
    statusCode: number,
    headers: Record<string, string | string[] | undefined>,
  ): void {
    this.#status = statusCode;
    this.#headers = headers;
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    this.#size += chunk.length;
    const { maxBodyBytes, request } = this.#options;
    if (this.#size > maxBodyBytes) {
      const path = pathOnly(request.path);
      controller.abort(
        new AtlasResponseError(
          `Atlas answered ${request.method} ${path} with a body over ${maxBodyBytes} bytes: ask for fewer items per page`,
          { status: this.#status, method: request.method, path },
        ),
      );
      return;
    }
    this.#chunks.push(chunk);
  }

  onResponseEnd(): void {
    if (!this.#settle()) return;
    const chunks = this.#chunks;
    // A small answer arrives in one chunk: decode it in place rather than copy it first.
    const body =
      chunks.length === 1
        ? (chunks[0] as Buffer).toString('utf8')
        : Buffer.concat(chunks, this.#size).toString('utf8');
    this.#resolve({ status: this.#status, headers: this.#headers, body });
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    const { signal } = this.#options.request;
    this.#fail(signal?.aborted ? signal.reason : error);
  }

  #timeOut(): void {
    const { request, timeoutMs } = this.#options;
    const error = new errors.BodyTimeoutError(
      `Atlas did not finish answering ${request.method} ${pathOnly(request.path)} within ${timeoutMs} ms`,
    );
    this.#fail(error);
    this.#controller?.abort(error);
  }

  #fail(reason: unknown): void {
    if (this.#settle()) this.#reject(reason);
  }

  /** Marks the exchange settled, once: false when it already was. */
  #settle(): boolean {
    if (this.#settled) return false;
    this.#settled = true;
    clearTimeout(this.#overall);
    this.#options.request.signal?.removeEventListener('abort', this);
    return true;
  }
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
