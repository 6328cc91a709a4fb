import type { Dispatcher } from 'undici';
import {
  type AtlasAccessHistoryOptions,
  accessHistoryQuery,
  clusterPathName,
} from './access-history-query.js';
import { pathId, resourceOfLink } from './api-paths.js';
import { AtlasList, type FetchedPage, type PageRequest } from './atlas-list.js';
import {
  type AtlasClientOptions,
  CLUSTERS_V2_ACCEPT,
  type ResolvedClientConfig,
  resolveClientConfig,
  SERVICE_ACCOUNTS_V2_ACCEPT,
} from './client-options.js';
import { createDigestAuthInterceptor } from './digest-interceptor.js';
import { AtlasError, AtlasRequestError } from './errors.js';
import {
  type AtlasEventFilter,
  type AtlasListOptions,
  eventListQuery,
  listQuery,
  MAX_ITEMS_PER_PAGE,
} from './event-filter.js';
import { exchange, type HttpRequest, type HttpResponse } from './http-exchange.js';
import { jsonNestsDeeperThan, MAX_JSON_DEPTH } from './json-depth.js';
import { RateLimitPacer } from './rate-limit-pacer.js';
import {
  errorFromNetworkFailure,
  errorFromResponse,
  type FailureContext,
  malformedResponseError,
} from './response-errors.js';
import {
  readAccessListEntry,
  readAccessLogLine,
  readAccessLogs,
  readAlertConfig,
  readApiKey,
  readCluster,
  readEvent,
  readListPage,
  readOrganization,
  readProject,
  readServiceAccount,
  readTeam,
  type Shape,
  unwrapEnvelope,
} from './response-shapes.js';
import { type AttemptOutcome, type AttemptProgress, retryWithBackoff } from './retry-loop.js';
import { parseRetryAfter, RETRYABLE_STATUSES } from './retry-policy.js';
import { SecretRedactor } from './secret-redactor.js';
import { ServerClock } from './server-clock.js';
import { ServiceAccountTokenProvider } from './service-account-token-provider.js';
import type {
  AtlasAccessHistory,
  AtlasAccessListEntry,
  AtlasAccessLogLine,
  AtlasAlertConfig,
  AtlasApiKey,
  AtlasCluster,
  AtlasEvent,
  AtlasEventTypeDetails,
  AtlasOrganization,
  AtlasProject,
  AtlasProjectAccessListEntry,
  AtlasResource,
  AtlasServiceAccount,
  AtlasTeam,
} from './types.js';
import { Agent } from './undici-parts.js';

/** Counters since the client was created, for metrics and tests. */
export interface AtlasClientStats {
  /** HTTP requests sent: Digest challenges, retries and token requests included. */
  requests: number;
  /** Digest challenges answered: each one an extra request. */
  authRoundTrips: number;
  /** Attempts repeated after a retryable failure, and requests repeated with a fresh token. */
  retries: number;
  /** 429 answers received. */
  rateLimited: number;
  /** Service-account token requests. */
  tokenFetches: number;
  /** Requests that waited before being sent because Atlas's `RateLimit-Remaining` ran low. */
  paced: number;
}

/** What the client last heard from Atlas, whatever the status: for a preflight's report. */
export interface AtlasAnswer {
  /** HTTP status. */
  readonly status: number;
  /** The `Date` header as sent, if any. */
  readonly date: string | undefined;
  /** The `Content-Type` header as sent, if any: on v2, the API version that answered. */
  readonly contentType: string | undefined;
  /** When the answer arrived, on the client's clock (milliseconds since the epoch). */
  readonly receivedAt: number;
}

/** Options of the single-event reads. */
export interface AtlasReadOptions {
  /** Ask for the event's `raw` document. */
  includeRaw?: boolean;
  signal?: AbortSignal;
}

const UNAUTHORIZED = Symbol('unauthorized');

/**
 * The Atlas Admin API client: Ops Manager / Cloud Manager (`/api/public/v1.0`), Atlas v1.0 and Atlas
 * v2, with an API key (HTTP Digest, one request per call after the first) or a service account (OAuth
 * 2.0, token cached). Lists follow every `next` link; 429, 5xx and connection failures are retried with
 * backoff that honours `Retry-After`; every failure is a typed {@link AtlasError} whose message names
 * the request and the fix, and never a credential.
 *
 * @example
 * ```ts
 * const client = new AtlasClient({ credentials: { kind: 'digest', publicKey, privateKey } });
 * try {
 *   for await (const event of client.listOrgEvents('5f4e3d2c1b0a998877665544', { minDate: since })) {
 *     console.log(event.eventTypeName);
 *   }
 * } finally {
 *   await client.close();
 * }
 * ```
 */
export class AtlasClient {
  readonly #config: ResolvedClientConfig;
  readonly #agent: Agent;
  readonly #dispatcher: Dispatcher;
  readonly #tokens: ServiceAccountTokenProvider | undefined;
  readonly #redactor: SecretRedactor;
  readonly #counts = { requests: 0, authRoundTrips: 0, retries: 0, rateLimited: 0 };
  readonly #serverClock: ServerClock;
  readonly #pacer: RateLimitPacer;
  #lastAnswer: AtlasAnswer | undefined;

  /**
   * @throws AtlasInsecureUrlError when the base URL is `http://` to a host that is not loopback and
   *   `allowInsecureHttp` is off.
   * @throws AtlasConfigError for any other invalid option (see `resolveClientConfig`).
   */
  constructor(options: AtlasClientOptions) {
    const config = resolveClientConfig(options);
    this.#config = config;
    this.#serverClock = new ServerClock({ clock: config.clock, logger: config.logger });
    this.#pacer = new RateLimitPacer({ clock: config.clock });
    this.#agent = new Agent({
      ...(config.connections === undefined ? {} : { connections: config.connections }),
      headersTimeout: config.requestTimeoutMs,
      bodyTimeout: config.requestTimeoutMs,
    });
    const { credentials } = config;
    if (credentials.kind === 'digest') {
      this.#redactor = new SecretRedactor([credentials.privateKey]);
      this.#dispatcher = this.#agent.compose(
        createDigestAuthInterceptor({
          username: credentials.publicKey,
          password: credentials.privateKey,
          onChallenge: () => {
            this.#counts.authRoundTrips += 1;
            this.#counts.requests += 1;
          },
        }),
      );
      this.#tokens = undefined;
    } else {
      const basic = Buffer.from(`${credentials.clientId}:${credentials.clientSecret}`, 'utf8').toString(
        'base64',
      );
      this.#redactor = new SecretRedactor([credentials.clientSecret, basic]);
      this.#dispatcher = this.#agent;
      const tokenPath = `${config.basePath}/api/oauth/token`;
      this.#tokens = new ServiceAccountTokenProvider({
        clientId: credentials.clientId,
        clientSecret: credentials.clientSecret,
        tokenPath,
        clock: config.clock,
        onToken: (token) => this.#redactor.add(token),
        send: (request) =>
          this.#send(
            { ...request, headers: { ...request.headers, 'user-agent': config.userAgent } },
            tokenPath,
            (response) => ({ ok: true, value: response }),
          ),
        errorFor: (response) =>
          errorFromResponse(response, this.#context('POST', tokenPath, { attempt: 1, elapsedMs: 0 })),
      });
    }
  }

  /** The last answer Atlas gave (any status, token requests included), or `undefined` before any. */
  get lastAnswer(): AtlasAnswer | undefined {
    return this.#lastAnswer;
  }

  /** Counters since the client was created: a snapshot. */
  get stats(): AtlasClientStats {
    return { ...this.#counts, tokenFetches: this.#tokens?.fetches ?? 0, paced: this.#pacer.paused };
  }

  /**
   * Atlas's clock, from the `Date` header of its latest answer (the local clock until one arrives):
   * what a poll window's end is measured on, and the skew between the two clocks.
   */
  get serverClock(): ServerClock {
    return this.#serverClock;
  }

  /**
   * The events of a project (`GET /groups/{groupId}/events`), newest first as Atlas sends them (no
   * order is promised: sort by `created` and `id` yourself). An entry that is not a JSON object is
   * left out with a warning that gives its position on the page, never its content.
   *
   * @throws AtlasRequestError at once for an invalid id or filter; while iterating, the errors of
   *   every call: AtlasAuthError, AtlasForbiddenError, AtlasNotFoundError, AtlasRateLimitError,
   *   AtlasVersionError, AtlasServerError, AtlasNetworkError, AtlasResponseError.
   */
  listProjectEvents(groupId: string, filter: AtlasEventFilter = {}): AtlasList<AtlasEvent> {
    return this.#list(
      `/groups/${pathId('groupId', groupId)}/events`,
      eventListQuery(filter),
      readEvent,
      filter.signal,
      this.#config.accept,
      { skip: 'events' },
    );
  }

  /**
   * The events of an organization (`GET /orgs/{orgId}/events`). Throws as {@link listProjectEvents}.
   */
  listOrgEvents(orgId: string, filter: AtlasEventFilter = {}): AtlasList<AtlasEvent> {
    return this.#list(
      `/orgs/${pathId('orgId', orgId)}/events`,
      eventListQuery(filter),
      readEvent,
      filter.signal,
      this.#config.accept,
      { skip: 'events' },
    );
  }

  /**
   * One project event (`GET /groups/{groupId}/events/{eventId}`).
   *
   * @throws AtlasRequestError for an invalid id (before sending), AtlasNotFoundError when Atlas does
   *   not know it, and the other errors of {@link listProjectEvents}.
   */
  async getProjectEvent(
    groupId: string,
    eventId: string,
    options: AtlasReadOptions = {},
  ): Promise<AtlasEvent> {
    const path = `/groups/${pathId('groupId', groupId)}/events/${pathId('eventId', eventId)}`;
    return this.#getJson(path, readQuery(options), readEvent, options.signal);
  }

  /**
   * One organization event (`GET /orgs/{orgId}/events/{eventId}`). Throws as {@link getProjectEvent}.
   */
  async getOrgEvent(orgId: string, eventId: string, options: AtlasReadOptions = {}): Promise<AtlasEvent> {
    const path = `/orgs/${pathId('orgId', orgId)}/events/${pathId('eventId', eventId)}`;
    return this.#getJson(path, readQuery(options), readEvent, options.signal);
  }

  /**
   * The API keys of an organization (`GET /orgs/{orgId}/apiKeys`), `privateKey` always masked.
   * Throws as {@link listProjectEvents}.
   */
  listApiKeys(orgId: string, options: AtlasListOptions = {}): AtlasList<AtlasApiKey> {
    return this.#list(
      `/orgs/${pathId('orgId', orgId)}/apiKeys`,
      listQuery(options),
      readApiKey,
      options.signal,
    );
  }

  /**
   * The access list of one API key (`GET /orgs/{orgId}/apiKeys/{apiKeyId}/accessList`). Throws as
   * {@link listProjectEvents}.
   */
  listApiKeyAccessList(
    orgId: string,
    apiKeyId: string,
    options: AtlasListOptions = {},
  ): AtlasList<AtlasAccessListEntry> {
    const path = `/orgs/${pathId('orgId', orgId)}/apiKeys/${pathId('apiKeyId', apiKeyId)}/accessList`;
    return this.#list(path, listQuery(options), readAccessListEntry, options.signal, this.#config.accept, {
      skip: 'access-list entries',
    });
  }

  /**
   * The service accounts of an organization (`GET /orgs/{orgId}/serviceAccounts`), without their
   * secrets. On Atlas v2 it asks for the resource's own version (2024-08-05). Ops Manager and the
   * legacy Atlas API have no such resource: they answer 404 (AtlasNotFoundError). Throws as
   * {@link listProjectEvents}.
   */
  listServiceAccounts(orgId: string, options: AtlasListOptions = {}): AtlasList<AtlasServiceAccount> {
    return this.#list(
      `/orgs/${pathId('orgId', orgId)}/serviceAccounts`,
      listQuery(options),
      readServiceAccount,
      options.signal,
      this.#serviceAccountsAccept(),
    );
  }

  /**
   * The access list of one service account (`GET /orgs/{orgId}/serviceAccounts/{clientId}/accessList`),
   * with the same version as {@link listServiceAccounts}. Throws as {@link listProjectEvents}.
   */
  listServiceAccountAccessList(
    orgId: string,
    clientId: string,
    options: AtlasListOptions = {},
  ): AtlasList<AtlasAccessListEntry> {
    const path = `/orgs/${pathId('orgId', orgId)}/serviceAccounts/${pathId('clientId', clientId)}/accessList`;
    return this.#list(
      path,
      listQuery(options),
      readAccessListEntry,
      options.signal,
      this.#serviceAccountsAccept(),
      { skip: 'access-list entries' },
    );
  }

  /**
   * A project's IP access list (`GET /groups/{groupId}/accessList`): who may connect to its clusters.
   * Throws as {@link listProjectEvents}.
   */
  listProjectAccessList(
    groupId: string,
    options: AtlasListOptions = {},
  ): AtlasList<AtlasProjectAccessListEntry> {
    return this.#list(
      `/groups/${pathId('groupId', groupId)}/accessList`,
      listQuery(options),
      readAccessListEntry,
      options.signal,
      this.#config.accept,
      { skip: 'access-list entries' },
    );
  }

  /**
   * The projects of an organization (`GET /orgs/{orgId}/groups`). Throws as {@link listProjectEvents}.
   */
  listOrgProjects(orgId: string, options: AtlasListOptions = {}): AtlasList<AtlasProject> {
    return this.#list(
      `/orgs/${pathId('orgId', orgId)}/groups`,
      listQuery(options),
      readProject,
      options.signal,
    );
  }

  /**
   * One organization (`GET /orgs/{orgId}`, Organization Member): its name for alerts.
   *
   * @throws AtlasRequestError for an invalid id (before sending), AtlasNotFoundError when Atlas does
   *   not know it, and the other errors of {@link listProjectEvents}.
   */
  async getOrg(orgId: string, options: { signal?: AbortSignal } = {}): Promise<AtlasOrganization> {
    const path = `/orgs/${pathId('orgId', orgId)}`;
    return this.#getJson(path, new URLSearchParams(), readOrganization, options.signal);
  }

  /**
   * One project (`GET /groups/{groupId}`, Project Read Only): its name for alerts. Throws as
   * {@link getOrg}.
   */
  async getProject(groupId: string, options: { signal?: AbortSignal } = {}): Promise<AtlasProject> {
    const path = `/groups/${pathId('groupId', groupId)}`;
    return this.#getJson(path, new URLSearchParams(), readProject, options.signal);
  }

  /**
   * One team of an organization (`GET /orgs/{orgId}/teams/{teamId}`, Organization Member): its name
   * for alerts. Throws as {@link getOrg}.
   */
  async getTeam(orgId: string, teamId: string, options: { signal?: AbortSignal } = {}): Promise<AtlasTeam> {
    const path = `/orgs/${pathId('orgId', orgId)}/teams/${pathId('teamId', teamId)}`;
    return this.#getJson(path, new URLSearchParams(), readTeam, options.signal);
  }

  /**
   * One alert configuration of a project (`GET /groups/{groupId}/alertConfigs/{alertConfigId}`,
   * Project Read Only): what it alerts on, for alerts about it. Throws as {@link getOrg}.
   */
  async getAlertConfig(
    groupId: string,
    alertConfigId: string,
    options: { signal?: AbortSignal } = {},
  ): Promise<AtlasAlertConfig> {
    const path = `/groups/${pathId('groupId', groupId)}/alertConfigs/${pathId('alertConfigId', alertConfigId)}`;
    return this.#getJson(path, new URLSearchParams(), readAlertConfig, options.signal);
  }

  /**
   * Every event type Atlas knows (`GET /eventTypes`, Atlas v2, Organization Member or Project Read
   * Only), each with whether Atlas can raise an alert for it (`alertable`). An entry without a string
   * `eventType` and a boolean `alertable` is left out with a warning. Throws as {@link listProjectEvents}.
   */
  listEventTypes(options: AtlasListOptions = {}): AtlasList<AtlasEventTypeDetails> {
    return this.#list(
      '/eventTypes',
      listQuery(options),
      (value) =>
        isObject(value) && typeof value.eventType === 'string' && typeof value.alertable === 'boolean'
          ? { ok: true, value: value as unknown as AtlasEventTypeDetails }
          : { ok: false, problem: 'an event type without eventType and alertable' },
      options.signal,
      this.#config.accept,
      { skip: 'event types' },
    );
  }

  /**
   * The alert configurations of a project (`GET /groups/{groupId}/alertConfigs`, Project Read Only),
   * as Atlas serves them (webhook secrets redacted). Throws as {@link listProjectEvents}.
   */
  listAlertConfigs(groupId: string, options: AtlasListOptions = {}): AtlasList<AtlasResource> {
    return this.#list(
      `/groups/${pathId('groupId', groupId)}/alertConfigs`,
      listQuery(options),
      readResource,
      options.signal,
    );
  }

  /**
   * A project's integration of one type (`GET /groups/{groupId}/integrations/{integrationType}`,
   * Project Read Only), as Atlas serves it: the secret redacted, the URL partly. Throws as
   * {@link getOrg}; AtlasNotFoundError when the project has none of that type.
   */
  async getIntegration(
    groupId: string,
    integrationType: string,
    options: { signal?: AbortSignal } = {},
  ): Promise<AtlasResource> {
    const path = `/groups/${pathId('groupId', groupId)}/integrations/${pathId('integrationType', integrationType)}`;
    return this.#getJson(path, new URLSearchParams(), readResource, options.signal);
  }

  /**
   * Sends a write (`POST` or `PUT`) of a JSON body to a resource below the API prefix, such as
   * `/groups/{groupId}/alertConfigs`, and returns the answer's JSON object. Only a 429 is retried (it
   * was not carried out); any other failure is thrown at once, since a write that may have been
   * carried out must not be sent twice. Throws as {@link getOrg}.
   */
  async writeJson(
    method: 'POST' | 'PUT',
    resource: string,
    body: AtlasResource,
    options: { signal?: AbortSignal } = {},
  ): Promise<AtlasResource> {
    return this.#getJson(resource, new URLSearchParams(), readResource, options.signal, this.#config.accept, {
      method,
      body: JSON.stringify(body),
    });
  }

  /**
   * Adds a text that no error message or log line of this client may show, such as a webhook secret
   * sent in a request body: Atlas may echo a body in an error.
   */
  protectSecret(value: string): void {
    this.#redactor.add(value);
  }

  /**
   * The clusters of a project (`GET /groups/{groupId}/clusters`, Project Read Only), each with its
   * name, its tier and whether its database access history can be read (dedicated clusters only; a
   * cluster whose provider the client does not recognise counts as readable). On Atlas v2 it asks for
   * the resource's current version (2024-08-05). On Ops Manager every cluster is `self-managed`, with
   * no access history. An entry that is not an object or has no name is left out with a warning that
   * gives its position. Throws as {@link listProjectEvents}.
   */
  listClusters(groupId: string, options: AtlasListOptions = {}): AtlasList<AtlasCluster> {
    const selfManaged = this.#config.flavor === 'ops-manager';
    return this.#list(
      `/groups/${pathId('groupId', groupId)}/clusters`,
      listQuery(options),
      (value) => readCluster(value, selfManaged),
      options.signal,
      this.#config.flavor === 'atlas-v2' ? CLUSTERS_V2_ACCEPT : this.#config.accept,
      { skip: 'clusters' },
    );
  }

  /**
   * One read of a dedicated cluster's database access history
   * (`GET /groups/{groupId}/dbAccessHistory/clusters/{clusterName}`, Project Cluster Log Viewer or
   * Project Database Access Admin): the newest `nLogs` authentication attempts (default 20,000, the
   * most Atlas sends) between `start` and `end` (epoch milliseconds, inclusive; without them, the
   * seven days Atlas keeps). A line that is not an object, lacks a field or has one of the wrong type
   * is left out, counted in `dropped`, and logged as a warning with its position, never its content.
   * An answer of more lines than asked is refused.
   *
   * @throws AtlasRequestError at once for an invalid id, cluster name or option, and on Ops Manager,
   *   which keeps no access history; then the errors of {@link getOrg}: a shared-tier or Flex cluster
   *   is refused by Atlas (AtlasRequestError for its 400), an unknown one is AtlasNotFoundError.
   */
  async readAccessHistory(
    groupId: string,
    clusterName: string,
    options: AtlasAccessHistoryOptions = {},
  ): Promise<AtlasAccessHistory> {
    const path = `/groups/${pathId('groupId', groupId)}/dbAccessHistory/clusters/${clusterPathName(clusterName)}`;
    if (this.#config.flavor === 'ops-manager') {
      throw new AtlasRequestError(
        `Ops Manager keeps no database access history (GET ${this.#config.apiPrefix}${path}): read it from Atlas, with the atlas-v2 flavour`,
      );
    }
    const { query, nLogs } = accessHistoryQuery(options);
    const items = await this.#getJson(path, query, (body) => readAccessLogs(body, nLogs), options.signal);
    const lines: AtlasAccessLogLine[] = [];
    const skipped: number[] = [];
    items.forEach((item, index) => {
      const line = readAccessLogLine(item);
      if (line.ok) lines.push(line.value);
      else skipped.push(index);
    });
    if (skipped.length > 0) {
      this.#config.logger.warn('Atlas sent access-history lines that cannot be read; skipped them', {
        path: `${this.#config.apiPrefix}${path}`,
        skipped: skipped.length,
        positions: skipped.slice(0, 10),
      });
    }
    return { lines, dropped: skipped.length };
  }

  /** Closes the connections. The client cannot be used afterwards. */
  async close(): Promise<void> {
    await this.#agent.close();
  }

  /** The `Accept` header of the service-account resources: their own version on v2. */
  #serviceAccountsAccept(): string {
    return this.#config.flavor === 'atlas-v2' ? SERVICE_ACCOUNTS_V2_ACCEPT : this.#config.accept;
  }

  /**
   * A paginated list whose items `readItem` reads. An item it refuses fails the whole page
   * (`refuse-page`: API keys and service accounts, where a missing item would read as a removal), or
   * is left out with a warning that names what the list holds (`{ skip }`: events, where refusing the
   * page would stop the source at it on every tick, and access-list entries, where an entry that is
   * not an object names nothing that could be removed). Items left out, and parts of items a reader
   * left out, are counted in the page's `dropped`.
   */
  #list<T>(
    path: string,
    query: URLSearchParams,
    readItem: (value: unknown) => Shape<T>,
    signal: AbortSignal | undefined,
    accept: string = this.#config.accept,
    onBadItem: 'refuse-page' | { skip: string } = 'refuse-page',
  ): AtlasList<T> {
    return new AtlasList<T>({
      first: { path, query },
      apiPrefix: this.#config.apiPrefix,
      fetchPage: (request: PageRequest) =>
        this.#getJson(
          request.path,
          request.query,
          (body) => this.#readPage(body, request, readItem, onBadItem),
          signal,
          accept,
        ),
    });
  }

  /** Reads one page of a list for {@link #list}: its items, what was left out, and its next link. */
  #readPage<T>(
    body: unknown,
    request: PageRequest,
    readItem: (value: unknown) => Shape<T>,
    onBadItem: 'refuse-page' | { skip: string },
  ): Shape<FetchedPage<T>> {
    const page = readListPage(body);
    if (!page.ok) {
      return page;
    }
    const { results } = page.value;
    // Atlas sends 500 at most: more is a server to refuse, never an array to take in whole.
    if (results.length > MAX_ITEMS_PER_PAGE) {
      return {
        ok: false,
        problem: `a page of ${results.length} items, more than the ${MAX_ITEMS_PER_PAGE} Atlas sends at most`,
      };
    }
    const items: T[] = [];
    const skipped: number[] = [];
    const trimmed: number[] = [];
    let droppedParts = 0;
    for (let index = 0; index < results.length; index += 1) {
      const item = readItem(results[index]);
      if (item.ok) {
        items.push(item.value);
        if (item.dropped !== undefined && item.dropped > 0) {
          trimmed.push(index);
          droppedParts += item.dropped;
        }
      } else if (onBadItem !== 'refuse-page') {
        skipped.push(index);
      } else {
        return item;
      }
    }
    if (skipped.length > 0 && onBadItem !== 'refuse-page') {
      this.#config.logger.warn(`Atlas listed entries that are not ${onBadItem.skip}; skipped them`, {
        ...this.#pageWhere(request),
        skipped: skipped.length,
        positions: skipped.slice(0, 10),
      });
    }
    if (trimmed.length > 0) {
      this.#config.logger.warn('Atlas listed entries with parts that cannot be read; left those parts out', {
        ...this.#pageWhere(request),
        parts: droppedParts,
        positions: trimmed.slice(0, 10),
      });
    }
    const nextLink = page.value.links.find((link) => link.rel === 'next');
    const next = nextLink === undefined ? undefined : resourceOfLink(nextLink.href);
    if (nextLink !== undefined && next === undefined) {
      return { ok: false, problem: 'a next link that is not an Atlas API URL' };
    }
    return {
      ok: true,
      value: { items, totalCount: page.value.totalCount, next, dropped: skipped.length + droppedParts },
    };
  }

  /** Where a page's warnings happened: positions only, as the entries are Atlas's text and may echo anything. */
  #pageWhere(request: PageRequest): { path: string; pageNum: string } {
    return { path: `${this.#config.apiPrefix}${request.path}`, pageNum: request.query.get('pageNum') ?? '1' };
  }

  /** GETs a resource below the API prefix and reads its body; with a service account, once more with a fresh token on a 401. */
  async #getJson<T>(
    resource: string,
    query: URLSearchParams,
    read: (body: unknown) => Shape<T>,
    signal: AbortSignal | undefined,
    accept: string = this.#config.accept,
    write?: { method: 'POST' | 'PUT'; body: string },
  ): Promise<T> {
    const path = `${this.#config.apiPrefix}${resource}`;
    const search = query.toString();
    const headers: Record<string, string> = {
      accept,
      'user-agent': this.#config.userAgent,
      ...(write === undefined ? {} : { 'content-type': accept }),
    };
    const request: HttpRequest = {
      method: write?.method ?? 'GET',
      path: search === '' ? path : `${path}?${search}`,
      headers,
      ...(write === undefined ? {} : { body: write.body, writeOnce: true }),
      ...(signal === undefined ? {} : { signal }),
    };
    const tokens = this.#tokens;
    for (let refreshed = false; ; refreshed = true) {
      const token = tokens ? await tokens.getToken(signal) : undefined;
      if (token !== undefined) {
        headers.authorization = `Bearer ${token}`;
      }
      const result = await this.#sendForJson(request, path, read, token !== undefined && !refreshed);
      if (result !== UNAUTHORIZED) {
        return result;
      }
      if (token !== undefined) {
        tokens?.invalidate(token);
      }
      this.#counts.retries += 1;
    }
  }

  #sendForJson<T>(
    request: HttpRequest,
    path: string,
    read: (body: unknown) => Shape<T>,
    refreshable: boolean,
  ): Promise<T | typeof UNAUTHORIZED> {
    return this.#send<T | typeof UNAUTHORIZED>(request, path, (response, progress) => {
      // The failure context is built only for a failure: most answers need none.
      if (response.status === 401 && refreshable) {
        return { ok: true, value: UNAUTHORIZED };
      }
      if (response.status < 200 || response.status >= 300) {
        return {
          ok: false,
          retryable: false,
          error: () => errorFromResponse(response, this.#context(request.method, path, progress)),
        };
      }
      if (jsonNestsDeeperThan(response.body)) {
        return {
          ok: false,
          retryable: false,
          error: () =>
            malformedResponseError({
              what: `JSON nested more than ${MAX_JSON_DEPTH} levels deep`,
              status: response.status,
              context: this.#context(request.method, path, progress),
              retryable: false,
            }),
        };
      }
      let parsed: unknown;
      try {
        parsed = this.#redactor.parseJson(response.body);
      } catch (cause) {
        return {
          ok: false,
          retryable: true,
          error: (final) =>
            malformedResponseError({
              what: 'a body that is not JSON',
              status: response.status,
              context: this.#context(request.method, path, final),
              retryable: true,
              cause,
            }),
        };
      }
      const envelope = unwrapEnvelope(parsed);
      if (envelope.status !== undefined && (envelope.status < 200 || envelope.status >= 300)) {
        const inner: HttpResponse = {
          ...response,
          status: envelope.status,
          body: JSON.stringify(envelope.body),
        };
        return {
          ok: false,
          retryable: false,
          error: () => errorFromResponse(inner, this.#context(request.method, path, progress)),
        };
      }
      const shape = read(envelope.body);
      if (!shape.ok) {
        return {
          ok: false,
          retryable: false,
          error: () =>
            malformedResponseError({
              what: shape.problem,
              status: response.status,
              context: this.#context(request.method, path, progress),
              retryable: false,
            }),
        };
      }
      return { ok: true, value: shape.value };
    });
  }

  /**
   * Sends `request` with retries. Retryable statuses and transport failures are retried; any other
   * answer goes to `interpret`, which turns it into a value or a failure.
   */
  #send<T>(
    request: HttpRequest,
    path: string,
    interpret: (response: HttpResponse, progress: AttemptProgress) => AttemptOutcome<T>,
  ): Promise<T> {
    const config = this.#config;
    const { signal } = request;
    return retryWithBackoff<T>(
      async (progress) => {
        let response: HttpResponse;
        // Atlas's RateLimit-Remaining running low: wait for its bucket to refill rather than earn a 429.
        if (this.#pacer.delayFor(request.path) > 0) await this.#pacer.wait(request.path, signal);
        this.#counts.requests += 1;
        try {
          response = await exchange({
            dispatcher: this.#dispatcher,
            origin: config.origin,
            request,
            timeoutMs: config.requestTimeoutMs,
            maxBodyBytes: config.maxBodyBytes,
          });
        } catch (cause) {
          if (signal?.aborted) {
            throw signal.reason;
          }
          if (cause instanceof AtlasError) {
            return { ok: false, retryable: cause.retryable, error: () => cause };
          }
          const retryable =
            request.writeOnce !== true &&
            errorFromNetworkFailure(cause, this.#context(request.method, path, progress)).retryable;
          return {
            ok: false,
            retryable,
            error: (final) => errorFromNetworkFailure(cause, this.#context(request.method, path, final)),
          };
        }
        this.#serverClock.observe(response.headers.date, config.clock.now());
        // A 429 is the retry policy's (Retry-After); pacing works from the answers that got through.
        if (response.status < 400) this.#pacer.observe(request.path, response.headers);
        config.logger.debug('Atlas request', { method: request.method, path, status: response.status });
        this.#lastAnswer = {
          status: response.status,
          date: headerText(response.headers.date),
          contentType: headerText(response.headers['content-type']),
          receivedAt: config.clock.now(),
        };
        if (response.status === 429) {
          this.#counts.rateLimited += 1;
        }
        if (
          RETRYABLE_STATUSES.has(response.status) &&
          (request.writeOnce !== true || response.status === 429)
        ) {
          const retryAfterMs = parseRetryAfter(response.headers['retry-after'], config.clock.now());
          return {
            ok: false,
            retryable: true,
            ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
            error: (final) => errorFromResponse(response, this.#context(request.method, path, final)),
          };
        }
        return interpret(response, progress);
      },
      {
        policy: config.policy,
        clock: config.clock,
        random: config.random,
        ...(signal === undefined ? {} : { signal }),
        onRetry: ({ attempt, delayMs, error }) => {
          this.#counts.retries += 1;
          config.logger.warn('Atlas request failed; retrying', {
            method: request.method,
            path,
            status: error.status,
            errorCode: error.errorCode,
            attempt,
            delayMs,
          });
        },
      },
    );
  }

  #context(method: string, path: string, progress: AttemptProgress): FailureContext {
    return {
      method,
      path,
      origin: this.#config.origin,
      auth: this.#config.credentials.kind,
      redactor: this.#redactor,
      attempts: progress.attempt,
      elapsedMs: progress.elapsedMs,
      nowMs: this.#config.clock.now(),
    };
  }
}

function headerText(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function readQuery(options: AtlasReadOptions): URLSearchParams {
  return new URLSearchParams(options.includeRaw ? { includeRaw: 'true' } : {});
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Reads any JSON object as it is. */
function readResource(value: unknown): { ok: true; value: AtlasResource } | { ok: false; problem: string } {
  return isObject(value)
    ? { ok: true, value }
    : { ok: false, problem: 'an answer that is not a JSON object' };
}
