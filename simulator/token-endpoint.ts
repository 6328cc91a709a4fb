import type { IncomingMessage } from 'node:http';
import type { OutgoingResponse } from './http-writer.js';
import type { Principal, SimulatorData } from './simulator-data.js';

const MAX_BODY_BYTES = 64 * 1024;

const NO_STORE = { 'Cache-Control': 'no-store', Pragma: 'no-cache' } as const;

/** The outcome of checking a token request before a token is issued. */
export type TokenRequestCheck =
  | { readonly kind: 'refused'; readonly response: OutgoingResponse; readonly failed: boolean }
  | { readonly kind: 'granted'; readonly principal: Principal };

function oauthError(status: number, error: string, description: string, headers = {}): OutgoingResponse {
  return {
    status,
    body: JSON.stringify({ error, error_description: description }),
    contentType: 'application/json',
    headers: { ...NO_STORE, ...headers },
  };
}

/**
 * Reads a request body as text, up to 64 KiB. Resolves `undefined` when the body is larger.
 *
 * @example
 * ```ts
 * const body = await readBody(req);
 * ```
 */
export function readBody(req: IncomingMessage): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) chunks.push(chunk);
    });
    req.on('end', () => {
      resolve(size > MAX_BODY_BYTES ? undefined : Buffer.concat(chunks).toString('utf8'));
    });
    req.on('error', reject);
  });
}

/**
 * Checks an OAuth 2.0 client-credentials token request (RFC 6749 section 4.4) as Atlas takes it:
 * `POST`, HTTP Basic with the client id and secret as they are (not URL-encoded), a form body with
 * `grant_type=client_credentials`. Never throws.
 *
 * @example
 * ```ts
 * const check = checkTokenRequest({ method: 'POST', authorization, body: 'grant_type=client_credentials', data });
 * ```
 */
export function checkTokenRequest(options: {
  method: string;
  authorization: string | undefined;
  body: string | undefined;
  data: SimulatorData;
}): TokenRequestCheck {
  if (options.method !== 'POST') {
    return {
      kind: 'refused',
      failed: false,
      response: {
        ...oauthError(405, 'invalid_request', 'The token endpoint takes POST.'),
        headers: { Allow: 'POST' },
      },
    };
  }
  const basic = /^\s*basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(options.authorization ?? '');
  const decoded = basic ? Buffer.from(basic[1] as string, 'base64').toString('utf8') : undefined;
  const colon = decoded?.indexOf(':') ?? -1;
  const clientId = decoded !== undefined && colon > 0 ? decoded.slice(0, colon) : undefined;
  const principal = clientId === undefined ? undefined : options.data.serviceAccounts.get(clientId);
  if (principal === undefined || decoded?.slice(colon + 1) !== principal.secret) {
    return {
      kind: 'refused',
      failed: options.authorization !== undefined,
      response: oauthError(401, 'invalid_client', 'Client authentication failed.', {
        'WWW-Authenticate': 'Basic realm="MongoDB Cloud"',
      }),
    };
  }
  if (options.body === undefined) {
    return {
      kind: 'refused',
      failed: false,
      response: oauthError(400, 'invalid_request', 'The request body is too large.'),
    };
  }
  const grantType = new URLSearchParams(options.body).get('grant_type');
  if (grantType === null) {
    return {
      kind: 'refused',
      failed: false,
      response: oauthError(400, 'invalid_request', 'grant_type is required.'),
    };
  }
  if (grantType !== 'client_credentials') {
    return {
      kind: 'refused',
      failed: false,
      response: oauthError(400, 'unsupported_grant_type', `Grant type ${grantType} is not supported.`),
    };
  }
  return { kind: 'granted', principal };
}

/**
 * The 200 answer carrying a new access token.
 *
 * @example
 * ```ts
 * tokenResponse({ accessToken: 'abc', expiresIn: 3600 });
 * ```
 */
export function tokenResponse(token: { accessToken: string; expiresIn: number }): OutgoingResponse {
  return {
    status: 200,
    body: JSON.stringify({
      access_token: token.accessToken,
      expires_in: token.expiresIn,
      token_type: 'Bearer',
    }),
    contentType: 'application/json',
    headers: NO_STORE,
  };
}
