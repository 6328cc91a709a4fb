import { type Clock, systemClock } from '../clock.js';
import { type Logger, silentLogger } from '../logger.js';
import { AtlasConfigError, AtlasInsecureUrlError } from './errors.js';
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from './retry-policy.js';

/** The three API generations one client speaks. */
export const ATLAS_FLAVORS = ['ops-manager', 'atlas-v1', 'atlas-v2'] as const;

export type AtlasFlavor = (typeof ATLAS_FLAVORS)[number];

/** Path prefix of each flavour, below the base URL. */
export const FLAVOR_PREFIXES: Readonly<Record<AtlasFlavor, string>> = Object.freeze({
  'ops-manager': '/api/public/v1.0',
  'atlas-v1': '/api/atlas/v1.0',
  'atlas-v2': '/api/atlas/v2',
});

/** The `Accept` header of each flavour: v2 answers 406 without its versioned media type. */
export const FLAVOR_ACCEPT: Readonly<Record<AtlasFlavor, string>> = Object.freeze({
  'ops-manager': 'application/json',
  'atlas-v1': 'application/json',
  'atlas-v2': 'application/vnd.atlas.2023-01-01+json',
});

/**
 * The `Accept` header of the v2 service-account resources: their first and only version is
 * 2024-08-05 (`listOrgServiceAccounts` in the OpenAPI document); 2023-01-01 does not serve them.
 */
export const SERVICE_ACCOUNTS_V2_ACCEPT = 'application/vnd.atlas.2024-08-05+json';

/**
 * The `Accept` header of the v2 clusters list: version 2024-08-05 (`listGroupClusters` in the OpenAPI
 * document), whose clusters state their provider per region. 2023-01-01 and 2023-02-01 carry a sunset
 * date, and Atlas already answers 410 `VERSION_GONE` to 2023-02-01 there.
 */
export const CLUSTERS_V2_ACCEPT = 'application/vnd.atlas.2024-08-05+json';

/** An API key (HTTP Digest) or a service account (OAuth 2.0 client credentials). */
export type AtlasCredentials =
  | { kind: 'digest'; publicKey: string; privateKey: string }
  | { kind: 'service-account'; clientId: string; clientSecret: string };

/** Options of `new AtlasClient(...)`. Only `credentials` is required. */
export interface AtlasClientOptions {
  /** Default `https://cloud.mongodb.com`. For Ops Manager, its address: `https://opsmanager.example.com:8443`. */
  baseUrl?: string;
  /** Default `atlas-v2`. */
  flavor?: AtlasFlavor;
  credentials: AtlasCredentials;
  /** Allow `http://` to a host that is not loopback. Credentials then cross the network unencrypted. */
  allowInsecureHttp?: boolean;
  clock?: Clock;
  logger?: Logger;
  /** Retry policy; fields left out take {@link DEFAULT_RETRY_POLICY}'s values. */
  retry?: Partial<RetryPolicy>;
  /** A number in [0, 1) for backoff jitter. Default `Math.random`. */
  random?: () => number;
  /** Default `atlas-audit-alerts`. */
  userAgent?: string;
  /** Most connections open to Atlas at once. Default: no limit. */
  connections?: number;
  /** Longest wait for response headers, and between body chunks. Default 30 s. */
  requestTimeoutMs?: number;
}

/** The options checked and filled in: what the client runs on. */
export interface ResolvedClientConfig {
  /** `https://cloud.mongodb.com`: scheme, host and port. */
  origin: string;
  /** Path of the base URL, without a trailing slash: usually empty. */
  basePath: string;
  /** `basePath` + the flavour's prefix. */
  apiPrefix: string;
  flavor: AtlasFlavor;
  accept: string;
  credentials: AtlasCredentials;
  policy: RetryPolicy;
  clock: Clock;
  logger: Logger;
  random: () => number;
  userAgent: string;
  connections: number | undefined;
  requestTimeoutMs: number;
  maxBodyBytes: number;
}

const DEFAULT_BASE_URL = 'https://cloud.mongodb.com';
const MAX_BODY_BYTES = 64 * 1024 * 1024;

/**
 * Checks the client's options and fills in the defaults.
 *
 * @throws AtlasInsecureUrlError when the base URL is `http://` to a host that is not loopback and
 *   `allowInsecureHttp` is off.
 * @throws AtlasConfigError for any other invalid option: a base URL that is not http(s), holds a user
 *   name, query or fragment; an unknown flavour; empty credentials; a retry policy out of range.
 *
 * @example
 * ```ts
 * const config = resolveClientConfig({ credentials: { kind: 'digest', publicKey, privateKey } });
 * config.apiPrefix; // '/api/atlas/v2'
 * ```
 */
export function resolveClientConfig(options: AtlasClientOptions): ResolvedClientConfig {
  const url = parseBaseUrl(options.baseUrl ?? DEFAULT_BASE_URL, options.allowInsecureHttp ?? false);
  const flavor = options.flavor ?? 'atlas-v2';
  if (!ATLAS_FLAVORS.includes(flavor)) {
    throw new AtlasConfigError(
      `flavor ${JSON.stringify(String(flavor))} is unknown: use one of ${ATLAS_FLAVORS.join(', ')}`,
    );
  }
  checkCredentials(options.credentials);
  const basePath = url.pathname.replace(/\/+$/, '');
  return {
    origin: url.origin,
    basePath,
    apiPrefix: `${basePath}${FLAVOR_PREFIXES[flavor]}`,
    flavor,
    accept: FLAVOR_ACCEPT[flavor],
    credentials: options.credentials,
    policy: checkPolicy({ ...DEFAULT_RETRY_POLICY, ...options.retry }),
    clock: options.clock ?? systemClock,
    logger: options.logger ?? silentLogger,
    random: options.random ?? Math.random,
    userAgent: options.userAgent ?? 'atlas-audit-alerts',
    connections: checkOptionalPositiveInteger('connections', options.connections),
    requestTimeoutMs: checkOptionalPositiveInteger('requestTimeoutMs', options.requestTimeoutMs) ?? 30_000,
    maxBodyBytes: MAX_BODY_BYTES,
  };
}

/**
 * Whether `hostname` (as `URL.hostname` gives it) is this machine: `localhost`, 127.0.0.0/8 or `[::1]`.
 *
 * @example
 * ```ts
 * isLoopbackHost('127.0.0.1'); // true
 * isLoopbackHost('cloud.mongodb.com'); // false
 * ```
 */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase();
  return (
    host === 'localhost' ||
    host.endsWith('.localhost') ||
    host === '[::1]' ||
    /^127(?:\.(?:25[0-5]|2[0-4]\d|1?\d?\d)){3}$/.test(host)
  );
}

function parseBaseUrl(text: string, allowInsecureHttp: boolean): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch (error) {
    throw new AtlasConfigError(
      'baseUrl is not a URL: use https://cloud.mongodb.com, or the address of your Ops Manager such as https://opsmanager.example.com:8443',
      { cause: error },
    );
  }
  if (url.username !== '' || url.password !== '') {
    // The URL itself is left out of the message: it holds a credential.
    throw new AtlasConfigError('baseUrl holds a user name or password: pass credentials separately');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new AtlasConfigError(`baseUrl ${url.origin} is not http(s): use an https:// address`);
  }
  if (url.search !== '' || url.hash !== '') {
    throw new AtlasConfigError(`baseUrl ${url.origin}${url.pathname} has a query or fragment: remove it`);
  }
  if (url.protocol === 'http:' && !allowInsecureHttp && !isLoopbackHost(url.hostname)) {
    throw new AtlasInsecureUrlError(
      `baseUrl ${url.origin} is plain http to a host that is not loopback, so credentials would cross the network unencrypted: use https://, or allow insecure HTTP for a network you trust`,
    );
  }
  return url;
}

function checkCredentials(credentials: AtlasCredentials | undefined): void {
  const missing = (fields: Record<string, unknown>): string[] =>
    Object.entries(fields)
      .filter(([, value]) => typeof value !== 'string' || value === '')
      .map(([name]) => name);
  let empty: string[];
  if (credentials?.kind === 'digest') {
    empty = missing({ publicKey: credentials.publicKey, privateKey: credentials.privateKey });
  } else if (credentials?.kind === 'service-account') {
    empty = missing({ clientId: credentials.clientId, clientSecret: credentials.clientSecret });
  } else {
    throw new AtlasConfigError(
      "credentials are missing: pass { kind: 'digest', publicKey, privateKey } or { kind: 'service-account', clientId, clientSecret }",
    );
  }
  if (empty.length > 0) {
    throw new AtlasConfigError(`credentials ${empty.join(' and ')} ${empty.length > 1 ? 'are' : 'is'} empty`);
  }
}

function checkPolicy(policy: RetryPolicy): RetryPolicy {
  const problems: string[] = [];
  if (!Number.isInteger(policy.maxAttempts) || policy.maxAttempts < 1 || policy.maxAttempts > 20) {
    problems.push(`maxAttempts must be an integer from 1 to 20, got ${policy.maxAttempts}`);
  }
  for (const name of ['baseDelayMs', 'maxDelayMs', 'deadlineMs'] as const) {
    if (!Number.isFinite(policy[name]) || policy[name] < 0) {
      problems.push(`${name} must be a number of milliseconds, 0 or more, got ${policy[name]}`);
    }
  }
  if (problems.length > 0) {
    throw new AtlasConfigError(`retry policy is invalid: ${problems.join('; ')}`);
  }
  return policy;
}

function checkOptionalPositiveInteger(name: string, value: number | undefined): number | undefined {
  if (value !== undefined && (!Number.isInteger(value) || value < 1)) {
    throw new AtlasConfigError(`${name} must be a positive integer, got ${value}`);
  }
  return value;
}
