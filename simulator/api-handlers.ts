import type { AtlasLink } from '../shared/atlas/types.js';
import { ACCESS_HISTORY_RETENTION_MS, MAX_ACCESS_LOG_LINES, type StoredAccessLog } from './access-history.js';
import {
  handleAlertConfigs,
  handleIntegrations,
  listEventTypes,
  type SetupReply,
} from './alert-setup-handlers.js';
import { ApiProblem, problems } from './api-problem.js';
import type { EventLog, StoredEvent } from './event-log.js';
import { isKnownEventType } from './known-event-types.js';
import {
  type EventFilters,
  type PageParams,
  parseAccessHistoryParams,
  parseBooleanParam,
  parseEventFilters,
  parsePageParams,
} from './query-params.js';
import { rawDocument } from './raw-document.js';
import { canReadAccessHistory, canReadProject, isOrgMember } from './role-policy.js';
import type { ApiGeneration, RouteMatch } from './routes.js';
import { CLUSTER_NAME, type SeedProjectAccessListEntry } from './seed-schema.js';
import {
  type ClusterRecord,
  formatAtlasDate,
  keepsAccessHistory,
  type OrgRecord,
  type Principal,
  type ProjectRecord,
  type SimulatorData,
} from './simulator-data.js';

/** A successful answer, its JSON body already encoded; `list` tells the writer how to envelope it. */
export interface ApiSuccess {
  readonly status: 200 | 204;
  readonly body: Buffer;
  readonly list: boolean;
}

export type ApiReply = ApiSuccess | ApiProblem;

/** What a route handler needs to know about an authenticated request. */
export interface ApiRequest {
  readonly data: SimulatorData;
  readonly principal: Principal;
  readonly route: RouteMatch;
  /** The API prefix the request used, e.g. `/api/atlas/v2`: links repeat it. */
  readonly prefix: string;
  /** `http://host:port` as the client addressed the server: links are absolute. */
  readonly origin: string;
  /** The request path as sent, prefix included. */
  readonly pathname: string;
  readonly query: URLSearchParams;
  readonly generation: ApiGeneration;
  /** The v2 version the request asked for (`YYYY-MM-DD`); undefined on v1.0 and Ops Manager. */
  readonly version: string | undefined;
  /** Now on the simulator's clock: access history older than seven days is gone. */
  readonly now: number;
  /** The HTTP method: GET everywhere, and POST, PUT, DELETE on the alert setup routes. */
  readonly method: string;
  /** The request body (POST, PUT), undefined when absent or over the size the simulator reads. */
  readonly body: string | undefined;
}

const ATLAS_ID = /^[0-9a-f]{24}$/;

function selfLink(href: string): AtlasLink[] {
  return [{ href, rel: 'self' }];
}

function pageHref(request: ApiRequest, pageNum: number, itemsPerPage: number): string {
  const params = new URLSearchParams();
  for (const [name, value] of request.query) {
    if (name !== 'pageNum' && name !== 'itemsPerPage') params.append(name, value);
  }
  params.append('pageNum', String(pageNum));
  params.append('itemsPerPage', String(itemsPerPage));
  return `${request.origin}${request.pathname}?${params.toString()}`;
}

/** `self` repeating the query with its page, `previous` after page 1, `next` only when a page follows. */
function pageLinks(request: ApiRequest, page: PageParams, hasNext: boolean): AtlasLink[] {
  const links: AtlasLink[] = [{ href: pageHref(request, page.pageNum, page.itemsPerPage), rel: 'self' }];
  if (page.pageNum > 1)
    links.push({ href: pageHref(request, page.pageNum - 1, page.itemsPerPage), rel: 'previous' });
  if (hasNext) links.push({ href: pageHref(request, page.pageNum + 1, page.itemsPerPage), rel: 'next' });
  return links;
}

const COMMA = Buffer.from(',');

function listJson(
  request: ApiRequest,
  page: PageParams,
  results: readonly Buffer[],
  total: number,
): ApiSuccess {
  const hasNext = page.pageNum * page.itemsPerPage < total;
  const count = page.includeCount ? `,"totalCount":${total}` : '';
  const parts: Buffer[] = [
    Buffer.from(`{"links":${JSON.stringify(pageLinks(request, page, hasNext))},"results":[`),
  ];
  results.forEach((result, index) => {
    if (index > 0) parts.push(COMMA);
    parts.push(result);
  });
  parts.push(Buffer.from(`]${count}}`));
  return { status: 200, body: Buffer.concat(parts), list: true };
}

function paginate<T>(request: ApiRequest, items: readonly T[], toJson: (item: T) => unknown): ApiReply {
  const page = parsePageParams(request.query);
  if (page instanceof ApiProblem) return page;
  const offset = (page.pageNum - 1) * page.itemsPerPage;
  const results = items
    .slice(offset, offset + page.itemsPerPage)
    .map((item) => Buffer.from(JSON.stringify(toJson(item))));
  return listJson(request, page, results, items.length);
}

function findProject(data: SimulatorData, groupId: string): ProjectRecord | ApiProblem {
  if (!ATLAS_ID.test(groupId)) return problems.invalidGroupId(groupId);
  return data.projects.get(groupId) ?? problems.groupNotFound(groupId);
}

function findOrg(data: SimulatorData, orgId: string): OrgRecord | ApiProblem {
  if (!ATLAS_ID.test(orgId)) return problems.invalidOrgId(orgId);
  return data.orgs.get(orgId) ?? problems.orgNotFound(orgId);
}

/** A project as Atlas shows it, alone (`GET /groups/{id}`) or in an organization's list. */
function projectBody(request: ApiRequest, project: ProjectRecord): Record<string, unknown> {
  return {
    clusterCount: project.clusterCount,
    created: project.created,
    id: project.id,
    links: selfLink(`${request.origin}${request.prefix}/groups/${project.id}`),
    name: project.name,
    orgId: project.orgId,
  };
}

function readableProject(request: ApiRequest): ProjectRecord | ApiProblem {
  const project = findProject(request.data, request.route.params.groupId ?? '');
  if (project instanceof ApiProblem) return project;
  if (!canReadProject(request.principal.roles, project)) {
    return problems.forbidden(`this resource needs Project Read Only or higher on project ${project.id}`);
  }
  return project;
}

function memberOrg(request: ApiRequest): OrgRecord | ApiProblem {
  const org = findOrg(request.data, request.route.params.orgId ?? '');
  if (org instanceof ApiProblem) return org;
  if (!isOrgMember(request.principal.roles, org.id)) {
    return problems.forbidden(`this resource needs Organization Member or higher on organization ${org.id}`);
  }
  return org;
}

/**
 * An event as encoded JSON with its `self` link (`base` + id) and, when given, its `raw` document.
 * Without `raw`, the bytes are kept on the event for the last `base` it was served under: clients
 * read the same events through the same prefix again and again, and encoding every page anew would
 * dominate the cost of a request.
 */
function eventJson(
  event: StoredEvent,
  base: string,
  raw: Readonly<Record<string, unknown>> | undefined,
): Buffer {
  if (raw === undefined && event.served?.base === base) return event.served.json;
  const body = JSON.stringify(event.body);
  const href = JSON.stringify(base + encodeURIComponent(event.id));
  const rawPart = raw === undefined ? '' : `"raw":${JSON.stringify(raw)},`;
  const json = Buffer.from(`${body.slice(0, -1)},${rawPart}"links":[{"href":${href},"rel":"self"}]}`);
  if (raw === undefined) event.served = { base, json };
  return json;
}

function matches(event: StoredEvent, filters: EventFilters): boolean {
  return (
    (filters.eventTypes === undefined || filters.eventTypes.has(event.eventTypeName)) &&
    (filters.excludedEventTypes === undefined || !filters.excludedEventTypes.has(event.eventTypeName)) &&
    (filters.clusterNames === undefined ||
      (event.clusterName !== undefined && filters.clusterNames.has(event.clusterName)))
  );
}

/**
 * Atlas answers 400 for an `eventType` or `excludedEventType` it does not know for the scope (a
 * project type asked of an organization, a misspelt name). Known: the types of the official catalog
 * for that scope, and any type the simulator itself holds in the scope's log (tests seed their own).
 */
function checkEventTypes(
  filters: EventFilters,
  scope: 'project' | 'organization',
  log: EventLog,
): ApiProblem | undefined {
  for (const [name, values] of [
    ['eventType', filters.eventTypes],
    ['excludedEventType', filters.excludedEventTypes],
  ] as const) {
    for (const value of values ?? []) {
      if (!isKnownEventType(value, scope) && !log.hasType(value)) {
        return problems.invalidEventType(name, value, scope);
      }
    }
  }
  return undefined;
}

interface EventScopeView {
  readonly log: EventLog;
  /** `/groups/{id}/events` or `/orgs/{id}/events`, below the prefix. */
  readonly eventsPath: string;
  readonly orgName: string | undefined;
  readonly projectName: string | undefined;
}

function listEvents(request: ApiRequest, scope: EventScopeView, projectFilters: boolean): ApiReply {
  const page = parsePageParams(request.query);
  if (page instanceof ApiProblem) return page;
  const filters = parseEventFilters(request.query, { projectFilters });
  if (filters instanceof ApiProblem) return filters;
  const unknownType = checkEventTypes(filters, projectFilters ? 'project' : 'organization', scope.log);
  if (unknownType !== undefined) return unknownType;
  const includeRaw = parseBooleanParam(request.query, 'includeRaw', false);
  if (includeRaw instanceof ApiProblem) return includeRaw;
  const { start, end } = scope.log.window(filters.minMs, filters.maxMs);
  const offset = (page.pageNum - 1) * page.itemsPerPage;
  const selected: StoredEvent[] = [];
  let total: number;
  if (
    filters.eventTypes === undefined &&
    filters.excludedEventTypes === undefined &&
    filters.clusterNames === undefined
  ) {
    total = end - start;
    const last = Math.min(end, start + offset + page.itemsPerPage);
    for (let i = start + offset; i < last; i++) selected.push(scope.log.at(i) as StoredEvent);
  } else {
    total = 0;
    for (let i = start; i < end; i++) {
      const event = scope.log.at(i) as StoredEvent;
      if (!matches(event, filters)) continue;
      if (total >= offset && total < offset + page.itemsPerPage) selected.push(event);
      total++;
    }
  }
  const base = `${request.origin}${request.prefix}${scope.eventsPath}/`;
  const results = selected.map((event) =>
    eventJson(event, base, includeRaw ? rawDocument(event, scope) : undefined),
  );
  return listJson(request, page, results, total);
}

/** One resource as a 200 answer. */
function jsonReply(body: Record<string, unknown>): ApiSuccess {
  return { status: 200, body: Buffer.from(JSON.stringify(body)), list: false };
}

function getEvent(request: ApiRequest, scope: EventScopeView): ApiReply {
  const includeRaw = parseBooleanParam(request.query, 'includeRaw', false);
  if (includeRaw instanceof ApiProblem) return includeRaw;
  const eventId = request.route.params.eventId ?? '';
  const event = scope.log.get(eventId);
  if (event === undefined) return problems.resourceNotFound(request.pathname);
  const base = `${request.origin}${request.prefix}${scope.eventsPath}/`;
  return {
    status: 200,
    body: eventJson(event, base, includeRaw ? rawDocument(event, scope) : undefined),
    list: false,
  };
}

function projectScope(request: ApiRequest, project: ProjectRecord): EventScopeView {
  return {
    log: project.log,
    eventsPath: `/groups/${project.id}/events`,
    orgName: request.data.orgs.get(project.orgId)?.name,
    projectName: project.name,
  };
}

function orgScope(org: OrgRecord): EventScopeView {
  return { log: org.log, eventsPath: `/orgs/${org.id}/events`, orgName: org.name, projectName: undefined };
}

/**
 * Masks a private key as Atlas does: asterisks, dashes kept, only the last four characters shown.
 *
 * @example
 * ```ts
 * maskPrivateKey('abcd-efgh-ijkl'); // '****-****-ijkl'
 * ```
 */
export function maskPrivateKey(privateKey: string): string {
  const visibleFrom = privateKey.length - 4;
  return [...privateKey].map((ch, i) => (ch === '-' || i >= visibleFrom ? ch : '*')).join('');
}

/**
 * Answers an authenticated request on one of the simulator's routes: checks ids, existence and the
 * caller's roles in that order, then reads the data. Never throws for bad input: every problem is an
 * `ApiProblem` answer.
 *
 * @example
 * ```ts
 * const reply = handleApiRequest(request);
 * ```
 */
export function handleApiRequest(request: ApiRequest): ApiReply {
  const { data, route } = request;
  switch (route.name) {
    case 'listProjectEvents':
    case 'getProjectEvent': {
      const project = readableProject(request);
      if (project instanceof ApiProblem) return project;
      const scope = projectScope(request, project);
      return route.name === 'listProjectEvents' ? listEvents(request, scope, true) : getEvent(request, scope);
    }
    case 'listOrgEvents':
    case 'getOrgEvent': {
      const org = memberOrg(request);
      if (org instanceof ApiProblem) return org;
      return route.name === 'listOrgEvents'
        ? listEvents(request, orgScope(org), false)
        : getEvent(request, orgScope(org));
    }
    case 'getOrg': {
      const org = memberOrg(request);
      if (org instanceof ApiProblem) return org;
      return jsonReply({
        id: org.id,
        isDeleted: false,
        links: selfLink(`${request.origin}${request.prefix}/orgs/${org.id}`),
        name: org.name,
        skipDefaultAlertsSettings: false,
      });
    }
    case 'getProject': {
      const project = readableProject(request);
      if (project instanceof ApiProblem) return project;
      return jsonReply(projectBody(request, project));
    }
    case 'getTeam': {
      const org = memberOrg(request);
      if (org instanceof ApiProblem) return org;
      const team = org.teams.get(route.params.teamId ?? '');
      if (team === undefined) return problems.resourceNotFound(request.pathname);
      return jsonReply({
        id: team.id,
        links: selfLink(`${request.origin}${request.prefix}/orgs/${org.id}/teams/${team.id}`),
        name: team.name,
      });
    }
    case 'getAlertConfig':
    case 'listAlertConfigs':
    case 'listIntegrations':
    case 'getIntegration':
      return alertSetup(request);
    case 'listEventTypes': {
      if (request.principal.roles.length === 0) {
        return problems.forbidden('this resource needs Organization Member or Project Read Only');
      }
      return paginate(request, listEventTypes(), (type) => type);
    }
    case 'listOrgProjects': {
      const org = memberOrg(request);
      if (org instanceof ApiProblem) return org;
      const visible = [...data.projects.values()].filter(
        (project) => project.orgId === org.id && canReadProject(request.principal.roles, project),
      );
      return paginate(request, visible, (project) => projectBody(request, project));
    }
    case 'listApiKeys': {
      const org = memberOrg(request);
      if (org instanceof ApiProblem) return org;
      return paginate(request, data.apiKeysOf(org.id), (key) => ({
        desc: key.desc,
        id: key.id,
        links: selfLink(`${request.origin}${request.prefix}/orgs/${org.id}/apiKeys/${key.id}`),
        privateKey: maskPrivateKey(key.secret),
        publicKey: key.name,
        roles: key.roles.map((role) => ({ ...role })),
      }));
    }
    case 'listAccessList': {
      const org = memberOrg(request);
      if (org instanceof ApiProblem) return org;
      const keyId = route.params.apiUserId ?? '';
      const key = data.apiKeysOf(org.id).find((candidate) => candidate.id === keyId);
      if (key === undefined) return problems.apiKeyNotFound(keyId);
      const base = `${request.origin}${request.prefix}/orgs/${org.id}/apiKeys/${key.id}/accessList/`;
      return paginate(request, key.accessList, (entry) => ({
        cidrBlock: entry.cidrBlock,
        count: entry.count,
        created: entry.created,
        ipAddress: entry.ipAddress,
        ...(entry.lastUsed === undefined ? {} : { lastUsed: entry.lastUsed }),
        ...(entry.lastUsedAddress === undefined ? {} : { lastUsedAddress: entry.lastUsedAddress }),
        links: selfLink(base + encodeURIComponent(entry.ipAddress ?? entry.cidrBlock)),
      }));
    }
    case 'listServiceAccounts': {
      const org = memberOrg(request);
      if (org instanceof ApiProblem) return org;
      return paginate(request, data.serviceAccountsOf(org.id), (account) => ({
        clientId: account.id,
        createdAt: account.createdAt,
        description: account.desc,
        name: account.displayName ?? account.id,
        roles: account.roles.flatMap((role) =>
          'orgId' in role && role.orgId === org.id ? [role.roleName] : [],
        ),
        // Atlas lists each secret with only its last characters; the simulator never serves them.
        secrets: [],
      }));
    }
    case 'listServiceAccountAccessList': {
      const org = memberOrg(request);
      if (org instanceof ApiProblem) return org;
      const clientId = route.params.clientId ?? '';
      const account = data.serviceAccountsOf(org.id).find((candidate) => candidate.id === clientId);
      if (account === undefined) return problems.serviceAccountNotFound(clientId);
      return paginate(request, account.accessList, (entry) => ({
        cidrBlock: entry.cidrBlock,
        createdAt: entry.created,
        ipAddress: entry.ipAddress,
        ...(entry.lastUsed === undefined ? {} : { lastUsedAt: entry.lastUsed }),
        ...(entry.lastUsedAddress === undefined ? {} : { lastUsedAddress: entry.lastUsedAddress }),
        requestCount: entry.count,
      }));
    }
    case 'listClusters': {
      const project = readableProject(request);
      if (project instanceof ApiProblem) return project;
      return paginate(request, [...project.clusters.values()], (cluster) =>
        clusterBody(request, project, cluster),
      );
    }
    case 'getClusterAccessHistory':
    case 'getProcessAccessHistory':
      return accessHistory(request);
    case 'listProjectAccessList': {
      const project = readableProject(request);
      if (project instanceof ApiProblem) return project;
      const base = `${request.origin}${request.prefix}/groups/${project.id}/accessList/`;
      return paginate(request, project.accessList, (entry) => ({
        ...projectEntryAddress(entry),
        comment: entry.comment ?? '',
        groupId: project.id,
        links: selfLink(
          base + encodeURIComponent(entry.awsSecurityGroup ?? entry.cidrBlock ?? entry.ipAddress ?? ''),
        ),
      }));
    }
  }
}

/** The alert configuration and integration routes, answered by `alert-setup-handlers.ts`. */
function alertSetup(request: ApiRequest): ApiReply {
  const { route } = request;
  const project = findProject(request.data, route.params.groupId ?? '');
  if (project instanceof ApiProblem) return project;
  const setup = {
    data: request.data,
    roles: request.principal.roles,
    method: request.method,
    body: request.body,
    project,
    pathname: request.pathname,
    alertConfigId: route.params.alertConfigId,
    integrationType: route.params.integrationType,
    base: `${request.origin}${request.prefix}`,
    now: request.now,
  };
  const reply: SetupReply =
    route.name === 'getAlertConfig' || route.name === 'listAlertConfigs'
      ? handleAlertConfigs(setup)
      : handleIntegrations(setup);
  if (reply instanceof ApiProblem || reply.status === 204) {
    return reply instanceof ApiProblem ? reply : { status: 204, body: Buffer.alloc(0), list: false };
  }
  if (reply.list) return paginate(request, reply.json as readonly unknown[], (item) => item);
  return jsonReply(reply.json as Record<string, unknown>);
}

/**
 * The first v2 version of the clusters resource that describes a cluster by `replicationSpecs` with
 * `regionConfigs` (`PaginatedAdvancedClusterDescriptionView`); 2023-01-01 has `providerSettings`.
 */
const ADVANCED_CLUSTERS_VERSION = '2023-02-01';

/**
 * A cluster as `GET /groups/{groupId}/clusters` lists it, in the shape of the API and version asked:
 * Ops Manager's (`clusterName`, `typeName`), Atlas v1.0's and v2 2023-01-01's (`providerSettings`),
 * or v2 2023-02-01's and 2024-08-05's (`replicationSpecs[].regionConfigs[]`).
 */
function clusterBody(
  request: ApiRequest,
  project: ProjectRecord,
  cluster: ClusterRecord,
): Record<string, unknown> {
  const links = selfLink(
    `${request.origin}${request.prefix}/groups/${project.id}/clusters/${encodeURIComponent(cluster.name)}`,
  );
  if (request.generation === 'ops-manager') {
    return {
      clusterName: cluster.name,
      groupId: project.id,
      id: cluster.id,
      lastHeartbeat: formatAtlasDate(request.now),
      links,
      replicaSetName: cluster.name,
      typeName: cluster.clusterType === 'REPLICASET' ? 'REPLICA_SET' : 'SHARDED_REPLICA_SET',
    };
  }
  const settings = cluster.providerSettings;
  const connectionStrings = {
    standard: `mongodb://${cluster.hosts.map((host) => `${host}:27017`).join(',')}/?ssl=true&authSource=admin`,
    standardSrv: `mongodb+srv://${cluster.srvHost}`,
  };
  const common = {
    clusterType: cluster.clusterType,
    connectionStrings,
    createDate: cluster.created,
    groupId: project.id,
    id: cluster.id,
    links,
    name: cluster.name,
    paused: false,
    stateName: 'IDLE',
  };
  if (request.version === undefined || request.version < ADVANCED_CLUSTERS_VERSION) {
    return {
      ...common,
      mongoURI: `mongodb://${cluster.hosts.map((host) => `${host}:27017`).join(',')}`,
      providerSettings: { ...settings },
      srvAddress: connectionStrings.standardSrv,
    };
  }
  const region = {
    ...('backingProviderName' in settings ? { backingProviderName: settings.backingProviderName } : {}),
    electableSpecs: { instanceSize: settings.instanceSizeName, nodeCount: 3 },
    priority: 7,
    providerName: settings.providerName,
    ...(settings.regionName === undefined ? {} : { regionName: settings.regionName }),
  };
  return { ...common, replicationSpecs: [{ id: cluster.id, regionConfigs: [region], zoneName: 'Zone 1' }] };
}

/**
 * `GET /groups/{groupId}/dbAccessHistory/clusters/{clusterName}` and `.../processes/{hostname}`: the
 * project, the caller's roles, the cluster (or the host's cluster) and its tier, then the query, then
 * `{"accessLogs": [...]}`, newest first, at most `nLogs`, within the seven days Atlas keeps.
 */
function accessHistory(request: ApiRequest): ApiReply {
  const { route } = request;
  const project = findProject(request.data, route.params.groupId ?? '');
  if (project instanceof ApiProblem) return project;
  if (!canReadAccessHistory(request.principal.roles, project)) {
    return problems.forbidden(
      `database access history needs Project Cluster Log Viewer, Project Database Access Admin or Project Owner on project ${project.id}`,
    );
  }
  let cluster: ClusterRecord | undefined;
  let hostname: string | undefined;
  if (route.name === 'getClusterAccessHistory') {
    const name = route.params.clusterName ?? '';
    if (!CLUSTER_NAME.test(name)) {
      return problems.invalidAttribute(
        'clusterName',
        'must start with a letter or digit and hold only letters, digits and hyphens',
      );
    }
    cluster = project.clusters.get(name);
    if (cluster === undefined) return problems.clusterNotFound(name, project.id);
  } else {
    hostname = route.params.hostname ?? '';
    cluster = [...project.clusters.values()].find((candidate) =>
      candidate.hosts.includes(hostname as string),
    );
    if (cluster === undefined) return problems.resourceNotFound(request.pathname);
  }
  if (!keepsAccessHistory(cluster)) {
    return problems.tenantClusterUnsupported(cluster.name, cluster.providerSettings.instanceSizeName);
  }
  const params = parseAccessHistoryParams(request.query, MAX_ACCESS_LOG_LINES);
  if (params instanceof ApiProblem) return params;
  const kept = request.now - ACCESS_HISTORY_RETENTION_MS;
  const lines = cluster.accessHistory.query({
    minMs: Math.max(kept, params.window?.startMs ?? kept),
    maxMs: params.window?.endMs ?? Number.POSITIVE_INFINITY,
    nLogs: params.nLogs,
    authResult: params.authResult,
    ipAddress: params.ipAddress,
    hostname,
  });
  return accessLogsReply(lines);
}

const ACCESS_LOGS_OPEN = Buffer.from('{"accessLogs":[');
const ACCESS_LOGS_CLOSE = Buffer.from(']}');

function accessLogsReply(lines: readonly StoredAccessLog[]): ApiSuccess {
  const parts: Buffer[] = [ACCESS_LOGS_OPEN];
  lines.forEach((line, index) => {
    if (index > 0) parts.push(COMMA);
    parts.push(line.json);
  });
  parts.push(ACCESS_LOGS_CLOSE);
  return { status: 200, body: Buffer.concat(parts), list: false };
}

/** A project entry's address fields as Atlas lists them: an address also shows as its /32 or /128. */
function projectEntryAddress(entry: SeedProjectAccessListEntry): Record<string, string> {
  if (entry.awsSecurityGroup !== undefined) return { awsSecurityGroup: entry.awsSecurityGroup };
  if (entry.ipAddress !== undefined) {
    return {
      cidrBlock: `${entry.ipAddress}/${entry.ipAddress.includes(':') ? 128 : 32}`,
      ipAddress: entry.ipAddress,
    };
  }
  return { cidrBlock: entry.cidrBlock ?? '' };
}
