import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Clock } from '../shared/clock.js';
import type { Logger } from '../shared/logger.js';
import { clientAddress, findAccessListEntry } from './access-list.js';
import { handleApiRequest } from './api-handlers.js';
import { ApiProblem, problems } from './api-problem.js';
import type { Authenticator, AuthResult } from './authenticator.js';
import { formatDigestChallenge } from './digest-challenge.js';
import type { FaultDecision, FaultInjector } from './fault-injector.js';
import { type OutgoingResponse, writeResponse } from './http-writer.js';
import type { NonceRegistry } from './nonce-registry.js';
import type { OAuthTokenStore } from './oauth-tokens.js';
import type { RequestCounters } from './request-counters.js';
import { type ApiGeneration, matchRoute, type RouteMatch, splitApiPath, TOKEN_PATH } from './routes.js';
import { formatAtlasDate, type Principal, type SimulatorData } from './simulator-data.js';
import { checkTokenRequest, readBody, tokenResponse } from './token-endpoint.js';

/** Everything the request handler works with; owned by the simulator. */
export interface RequestHandlerOptions {
  data: SimulatorData;
  authenticator: Authenticator;
  nonces: NonceRegistry;
  tokens: OAuthTokenStore;
  counters: RequestCounters;
  /** The current fault injector (replaced by `setFaults`). */
  faults: () => FaultInjector;
  clock: Clock;
  logger: Logger;
  /** Algorithms offered in challenges, one `WWW-Authenticate` header each. */
  challengeAlgorithms: readonly string[];
  enforceAccessList: boolean;
  /** Who a request without an `Authorization` header acts as now; undefined: such requests are challenged. */
  unauthenticatedPrincipal: () => Principal | undefined;
  retiredApiVersions: ReadonlySet<string>;
  /** `host:port` for links when a request carries no `Host` header. */
  fallbackHost: () => string;
  /** What `RateLimit-Limit` announces, per principal, scope (project, organization) and minute. */
  rateLimitPerMinute: number;
}

/** Request-level choices that shape every JSON answer. */
interface Shape {
  generation: ApiGeneration;
  envelope: boolean;
  pretty: boolean;
}

const GATEWAY_BODIES = {
  badGateway: [
    502,
    'upstream connect error or disconnect/reset before headers. reset reason: connection termination',
  ],
  serviceUnavailable: [503, 'no healthy upstream'],
  gatewayTimeout: [504, 'upstream request timeout'],
} as const;

const FIRST_API_VERSION = '2023-01-01';

/** The first (and only) API version of the v2 service-account resources. */
const SERVICE_ACCOUNTS_VERSION = '2024-08-05';

/** Routes that exist only on Atlas v2, from {@link SERVICE_ACCOUNTS_VERSION}. */
const SERVICE_ACCOUNT_ROUTES: ReadonlySet<string> = new Set([
  'listServiceAccounts',
  'listServiceAccountAccessList',
]);

/** Routes that take writes, and the methods each allows; every other route is read-only (GET). */
const WRITE_METHODS: Readonly<Partial<Record<RouteMatch['name'], readonly string[]>>> = {
  listAlertConfigs: ['GET', 'POST'],
  getAlertConfig: ['GET', 'PUT', 'DELETE'],
  getIntegration: ['GET', 'POST', 'PUT', 'DELETE'],
};

/** Routes only Atlas v2 serves here: the alert setup resources the push commands use. */
const V2_ONLY_ROUTES: ReadonlySet<string> = new Set([
  'listAlertConfigs',
  'listIntegrations',
  'getIntegration',
  'listEventTypes',
]);

/** Routes Ops Manager does not have: it keeps no database access history. */
const ATLAS_ONLY_ROUTES: ReadonlySet<string> = new Set([
  'getClusterAccessHistory',
  'getProcessAccessHistory',
]);

/**
 * What `RateLimit-Limit` announces unless the simulator is started with another `rateLimitPerMinute`:
 * requests per principal, scope and minute. Atlas keeps a token bucket per endpoint set and scope
 * (the project of a `/groups/{groupId}` path, the organization of an `/orgs/{orgId}` one), so one busy
 * project does not spend another's budget; the simulator counts per scope, not per endpoint set.
 */
export const SIMULATOR_RATE_LIMIT = 100;
const RATE_WINDOW_MS = 60_000;

/**
 * The API version a v2 request asks for in `Accept` (`application/vnd.atlas.YYYY-MM-DD+json`), if
 * it names a real date no earlier than the first version.
 */
function requestedVersion(accept: string | undefined): string | undefined {
  for (const part of (accept ?? '').split(',')) {
    const match = /^\s*application\/vnd\.atlas\.(\d{4}-\d{2}-\d{2})\+json\s*(?:;.*)?$/i.exec(part);
    const date = match?.[1];
    if (date === undefined || date < FIRST_API_VERSION) continue;
    const ms = Date.parse(`${date}T00:00:00Z`);
    if (!Number.isNaN(ms) && new Date(ms).toISOString().startsWith(date)) return date;
  }
  return undefined;
}

function isTrue(value: string | null): boolean {
  return value !== null && value.toLowerCase() === 'true';
}

/**
 * Creates the node:http request listener of the simulator: the token endpoint, then for API paths
 * version negotiation (v2), authentication, the caller's access list, routing, fault injection and
 * the route handler, counting as it goes.
 *
 * @example
 * ```ts
 * const server = createServer(createRequestHandler(options));
 * ```
 */
export function createRequestHandler(
  options: RequestHandlerOptions,
): (req: IncomingMessage, res: ServerResponse) => void {
  const { data, counters, clock, logger } = options;
  const commonHeaders: Readonly<Record<string, string>> = {
    Vary: 'Accept-Encoding',
    'Strict-Transport-Security': 'max-age=300',
    'X-MongoDB-Service-Version': `gitHash=${data.serviceVersion.gitHash}; versionString=${data.serviceVersion.versionString}`,
  };

  const send = (
    req: IncomingMessage,
    res: ServerResponse,
    response: OutgoingResponse,
    headers = commonHeaders,
  ): void => {
    counters.status(response.status);
    // Atlas's Date header is Atlas's clock: the simulator's, which tests drive, not this machine's.
    writeResponse(res, response, { ...headers, Date: new Date(clock.now()).toUTCString() });
    logger.debug('simulator request', {
      method: req.method,
      path: req.url?.split('?')[0],
      status: response.status,
    });
  };

  const rateWindows = new Map<string, { start: number; used: number }>();
  /**
   * `RateLimit-Limit` and `RateLimit-Remaining` as the OpenAPI document declares them on every
   * answer: the caller's budget for the route's scope in the current minute. The simulator only
   * announces it; 429s come from the fault plan.
   */
  const rateLimitHeaders = (caller: string, route: RouteMatch): Record<string, string> => {
    const now = clock.now();
    const bucket = `${caller} ${rateLimitScope(route)}`;
    let window = rateWindows.get(bucket);
    if (window === undefined || now - window.start >= RATE_WINDOW_MS) {
      window = { start: now, used: 0 };
      rateWindows.set(bucket, window);
    }
    window.used += 1;
    return {
      'RateLimit-Limit': String(options.rateLimitPerMinute),
      'RateLimit-Remaining': String(Math.max(0, options.rateLimitPerMinute - window.used)),
    };
  };

  const sendProblem = (
    req: IncomingMessage,
    res: ServerResponse,
    problem: ApiProblem,
    shape: Shape,
    headers: Record<string, string | readonly string[]> = {},
    contentType = 'application/json',
  ): void => {
    send(req, res, {
      status: problem.status,
      body: JSON.stringify(problem.toBody(shape.generation)),
      contentType,
      headers,
      envelope: shape.envelope ? 'single' : undefined,
      pretty: shape.pretty,
    });
  };

  const sendChallenge = (req: IncomingMessage, res: ServerResponse, stale: boolean, shape: Shape): void => {
    counters.challenge();
    const nonce = options.nonces.issue();
    const challenges = options.challengeAlgorithms.map((algorithm) =>
      formatDigestChallenge({ nonce, algorithm, stale }),
    );
    sendProblem(
      req,
      res,
      problems.unauthorized(),
      shape,
      { 'WWW-Authenticate': challenges },
      'application/json;charset=ISO-8859-1',
    );
  };

  /** Applies a fault; returns whether the request is answered (or dropped) by it. */
  const applyFault = async (
    req: IncomingMessage,
    res: ServerResponse,
    fault: FaultDecision,
    shape: Shape,
    nonce: string | undefined,
  ): Promise<boolean> => {
    switch (fault.kind) {
      case 'latency':
        counters.fault(fault.kind);
        await clock.sleep(fault.latencyMs);
        return false;
      case 'truncatedBody':
        return false;
      case 'nonceExpired':
        if (nonce === undefined) return false;
        counters.fault(fault.kind);
        options.nonces.expire(nonce);
        sendChallenge(req, res, true, shape);
        return true;
      case 'connectionReset':
        counters.fault(fault.kind);
        req.socket.resetAndDestroy();
        return true;
      case 'rateLimited':
      case 'rateLimitedNoRetryAfter': {
        counters.fault(fault.kind);
        const retryAfter =
          fault.retryAfterFormat === 'http-date'
            ? new Date(clock.now() + fault.retryAfterSeconds * 1000).toUTCString()
            : String(fault.retryAfterSeconds);
        sendProblem(
          req,
          res,
          problems.rateLimited(),
          shape,
          fault.kind === 'rateLimited' ? { 'Retry-After': retryAfter } : {},
        );
        return true;
      }
      case 'internalServerError':
        counters.fault(fault.kind);
        sendProblem(req, res, problems.unexpected(), shape);
        return true;
      case 'badGateway':
      case 'serviceUnavailable':
      case 'gatewayTimeout': {
        counters.fault(fault.kind);
        const [status, body] = GATEWAY_BODIES[fault.kind];
        send(req, res, { status, body, contentType: 'text/plain' }, {});
        return true;
      }
    }
  };

  const handleToken = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const method = req.method ?? 'GET';
    const key = `${method} ${TOKEN_PATH}`;
    counters.path(key);
    const body = method === 'POST' ? await readBody(req) : '';
    const check = checkTokenRequest({ method, authorization: req.headers.authorization, body, data });
    if (check.kind === 'refused') {
      if (check.failed) counters.authFailure();
      send(req, res, check.response);
      return;
    }
    const injector = options.faults();
    const fault = injector.active ? injector.next(key) : undefined;
    const shape: Shape = { generation: 'atlas-v2', envelope: false, pretty: false };
    if (fault !== undefined && (await applyFault(req, res, fault, shape, undefined))) return;
    counters.tokenIssued();
    send(req, res, {
      ...tokenResponse(options.tokens.issue(check.principal)),
      truncate: fault?.kind === 'truncatedBody',
    });
    if (fault?.kind === 'truncatedBody') counters.fault(fault.kind);
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    counters.request();
    const method = req.method ?? 'GET';
    const target = req.url ?? '/';
    const queryStart = target.indexOf('?');
    const pathname = queryStart === -1 ? target : target.slice(0, queryStart);
    if (pathname === TOKEN_PATH) {
      await handleToken(req, res);
      return;
    }
    const query = new URLSearchParams(queryStart === -1 ? '' : target.slice(queryStart + 1));
    const split = splitApiPath(pathname);
    const route = split === undefined ? undefined : matchRoute(split.rest);
    const key = `${method} ${route?.pattern ?? '(unmatched)'}`;
    counters.path(key);
    const shape: Shape = {
      generation: split?.generation ?? 'ops-manager',
      envelope: isTrue(query.get('envelope')),
      pretty: isTrue(query.get('pretty')),
    };
    if (split === undefined) {
      sendProblem(req, res, problems.resourceNotFound(pathname), shape);
      return;
    }
    let contentType = 'application/json';
    if (route !== undefined && SERVICE_ACCOUNT_ROUTES.has(route.name) && split.generation !== 'atlas-v2') {
      // Ops Manager and the legacy Atlas API have no service accounts.
      sendProblem(req, res, problems.resourceNotFound(pathname), shape);
      return;
    }
    if (route !== undefined && V2_ONLY_ROUTES.has(route.name) && split.generation !== 'atlas-v2') {
      sendProblem(req, res, problems.resourceNotFound(pathname), shape);
      return;
    }
    if (route !== undefined && ATLAS_ONLY_ROUTES.has(route.name) && split.generation === 'ops-manager') {
      sendProblem(req, res, problems.resourceNotFound(pathname), shape);
      return;
    }
    let version: string | undefined;
    if (split.generation === 'atlas-v2') {
      const requested = requestedVersion(req.headers.accept);
      if (
        requested === undefined ||
        (route !== undefined &&
          SERVICE_ACCOUNT_ROUTES.has(route.name) &&
          requested < SERVICE_ACCOUNTS_VERSION)
      ) {
        sendProblem(req, res, problems.notAcceptable(), shape);
        return;
      }
      if (options.retiredApiVersions.has(requested)) {
        sendProblem(req, res, problems.versionGone(requested, pathname.slice(1)), shape);
        return;
      }
      contentType = `application/vnd.atlas.${requested}+json`;
      version = requested;
    }
    const unauthenticated = options.unauthenticatedPrincipal();
    const auth: AuthResult =
      unauthenticated !== undefined && req.headers.authorization === undefined
        ? { kind: 'authenticated', principal: unauthenticated, nonce: undefined }
        : options.authenticator.authenticate(req.headers.authorization, method, target);
    if (auth.kind === 'challenge') {
      if (auth.failed) counters.authFailure();
      sendChallenge(req, res, auth.stale, shape);
      return;
    }
    const address = clientAddress(req.socket.remoteAddress);
    const entry = findAccessListEntry(auth.principal, address);
    if (entry !== undefined && address !== undefined) {
      entry.count++;
      entry.lastUsed = formatAtlasDate(clock.now());
      entry.lastUsedAddress = address.toString();
    } else if (options.enforceAccessList) {
      sendProblem(
        req,
        res,
        problems.ipNotOnAccessList(address?.toString() ?? String(req.socket.remoteAddress)),
        shape,
      );
      return;
    }
    if (route === undefined) {
      sendProblem(req, res, problems.resourceNotFound(pathname), shape);
      return;
    }
    const allowed = WRITE_METHODS[route.name] ?? ['GET'];
    if (!allowed.includes(method)) {
      sendProblem(req, res, problems.methodNotAllowed(method, pathname), shape, {
        Allow: allowed.join(', '),
      });
      return;
    }
    const body = method === 'POST' || method === 'PUT' ? await readBody(req) : undefined;
    const injector = options.faults();
    const fault = injector.active ? injector.next(key) : undefined;
    if (fault !== undefined && (await applyFault(req, res, fault, shape, auth.nonce))) return;
    const reply = handleApiRequest({
      data,
      principal: auth.principal,
      route,
      prefix: split.prefix,
      origin: `http://${req.headers.host ?? options.fallbackHost()}`,
      pathname,
      query,
      generation: split.generation,
      version,
      now: clock.now(),
      method,
      body,
    });
    if (reply instanceof ApiProblem) {
      sendProblem(req, res, reply, shape);
      return;
    }
    const truncate = fault?.kind === 'truncatedBody';
    if (truncate) counters.fault('truncatedBody');
    const empty = reply.status === 204;
    send(
      req,
      res,
      {
        status: reply.status,
        body: reply.body,
        contentType,
        envelope: shape.envelope && !empty ? (reply.list ? 'list' : 'single') : undefined,
        pretty: shape.pretty && !empty,
        truncate,
      },
      { ...commonHeaders, ...rateLimitHeaders(`${auth.principal.kind}:${auth.principal.id}`, route) },
    );
  };

  return (req, res) => {
    handle(req, res).catch((error: unknown) => {
      logger.error('simulator request failed', {
        method: req.method,
        path: req.url?.split('?')[0],
        error: error instanceof Error ? error.message : String(error),
      });
      if (res.headersSent) {
        res.destroy();
        return;
      }
      sendProblem(req, res, problems.unexpected(), {
        generation: 'ops-manager',
        envelope: false,
        pretty: false,
      });
    });
  };
}

/** The scope of a route's token bucket: its project, its organization, or the caller alone. */
function rateLimitScope(route: RouteMatch): string {
  const { groupId, orgId } = route.params;
  if (groupId !== undefined) return `groups/${groupId}`;
  if (orgId !== undefined) return `orgs/${orgId}`;
  return 'user';
}
