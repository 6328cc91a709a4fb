import type { ServerResponse } from 'node:http';

/** One answer to write, body already serialised. */
export interface OutgoingResponse {
  status: number;
  /** Text, or bytes already encoded as UTF-8. */
  body: string | Buffer;
  contentType: string;
  headers?: Readonly<Record<string, string | readonly string[]>>;
  /** Wrap the JSON body: `single` → `{content, status}`, `list` → the list plus `status`. */
  envelope?: 'single' | 'list' | undefined;
  /** Pretty-print the JSON body. */
  pretty?: boolean;
  /** Declare the full `Content-Length`, send half the body, then close the connection. */
  truncate?: boolean;
}

function shapeBody(response: OutgoingResponse): Buffer {
  if (response.envelope === undefined && !response.pretty) {
    return typeof response.body === 'string' ? Buffer.from(response.body, 'utf8') : response.body;
  }
  let body = response.body.toString();
  if (response.envelope === 'list') {
    body = `${body.slice(0, -1)},"status":${response.status}}`;
  } else if (response.envelope === 'single') {
    body = `{"content":${body},"status":${response.status}}`;
  }
  if (response.pretty) {
    body = JSON.stringify(JSON.parse(body), null, 2);
  }
  return Buffer.from(body, 'utf8');
}

/**
 * Writes a response with the headers every API answer carries (`Vary`, `Strict-Transport-Security`,
 * the service version) and an exact `Content-Length`, so keep-alive clients can reuse the
 * connection. With `truncate`, the connection is closed halfway through the body.
 *
 * @example
 * ```ts
 * writeResponse(res, { status: 200, body: '{}', contentType: 'application/json' }, commonHeaders);
 * ```
 */
export function writeResponse(
  res: ServerResponse,
  response: OutgoingResponse,
  commonHeaders: Readonly<Record<string, string>>,
): void {
  const payload = shapeBody(response);
  res.statusCode = response.status;
  for (const [name, value] of Object.entries(commonHeaders)) res.setHeader(name, value);
  for (const [name, value] of Object.entries(response.headers ?? {})) res.setHeader(name, value);
  res.setHeader('Content-Type', response.contentType);
  res.setHeader('Content-Length', payload.length);
  if (response.truncate) {
    res.write(payload.subarray(0, Math.floor(payload.length / 2)), () => {
      res.socket?.destroy();
    });
    return;
  }
  res.end(payload);
}
