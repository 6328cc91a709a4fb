/**
 * Narrowing of Atlas's JSON (parsed into `unknown`) to the shapes the client hands out. Each reader
 * returns the value, or a short description of what is wrong for the error message.
 */
import type {
  AtlasAccessListEntry,
  AtlasAccessLogLine,
  AtlasAlertConfig,
  AtlasApiKey,
  AtlasCluster,
  AtlasClusterTier,
  AtlasEvent,
  AtlasLink,
  AtlasOrganization,
  AtlasProject,
  AtlasServiceAccount,
  AtlasTeam,
} from './types.js';

/**
 * A reader's verdict: the value, or what was wrong with the body. `dropped` counts the parts of the
 * value a reader left out because they could not be read (a role that is not an object), keeping the
 * rest.
 */
export type Shape<T> = { ok: true; value: T; dropped?: number } | { ok: false; problem: string };

/** One list page, before its items are read. */
export interface RawListPage {
  results: unknown[];
  links: AtlasLink[];
  totalCount: number | undefined;
}

/**
 * Undoes `envelope=true`: a single result comes as `{ status, content }`; a list keeps its fields and
 * gains `status`. Bodies without an envelope come back unchanged, with no status.
 *
 * @example
 * ```ts
 * unwrapEnvelope({ status: 200, content: { id: 'x' } }); // { status: 200, body: { id: 'x' } }
 * unwrapEnvelope({ id: 'x' }); // { status: undefined, body: { id: 'x' } }
 * ```
 */
export function unwrapEnvelope(body: unknown): { status: number | undefined; body: unknown } {
  if (!isRecord(body) || typeof body.status !== 'number' || !Number.isInteger(body.status)) {
    return { status: undefined, body };
  }
  const keys = Object.keys(body);
  if (isRecord(body.content) && keys.every((key) => key === 'status' || key === 'content')) {
    return { status: body.status, body: body.content };
  }
  if (Array.isArray(body.results)) {
    const { status, ...rest } = body;
    return { status, body: rest };
  }
  return { status: undefined, body };
}

/**
 * Reads a list page: `results` must be an array; `links` and `totalCount` are optional.
 *
 * @example
 * ```ts
 * readListPage({ results: [], links: [{ rel: 'self', href: '...' }], totalCount: 0 });
 * ```
 */
export function readListPage(body: unknown): Shape<RawListPage> {
  if (!isRecord(body) || !Array.isArray(body.results)) {
    return { ok: false, problem: 'a list page without a results array' };
  }
  const links = Array.isArray(body.links)
    ? body.links.filter(
        (link): link is AtlasLink =>
          isRecord(link) && typeof link.href === 'string' && typeof link.rel === 'string',
      )
    : [];
  const totalCount = typeof body.totalCount === 'number' ? body.totalCount : undefined;
  return { ok: true, value: { results: body.results, links, totalCount } };
}

/**
 * Reads an event: any JSON object; all fields optional, unknown fields kept.
 *
 * @example
 * ```ts
 * readEvent({ id: '5f...', eventTypeName: 'API_KEY_CREATED' });
 * ```
 */
export function readEvent(value: unknown): Shape<AtlasEvent> {
  return isRecord(value)
    ? { ok: true, value: value as AtlasEvent }
    : { ok: false, problem: 'an event that is not an object' };
}

/**
 * Reads an API key: an object with a string `id`. `privateKey` is masked here, whatever the server
 * sent. Roles that are not objects (`null`, a string) are left out and counted in `dropped`, as is a
 * `roles` that is not a list: the key and its other roles are still compared, and one bad role never
 * fails the organization's inventory.
 *
 * @example
 * ```ts
 * readApiKey({ id: 'k', privateKey: 'fake-private-key-for-tests' }); // privateKey '********ests'
 * readApiKey({ id: 'k', roles: [null, { roleName: 'ORG_OWNER' }] }); // one role, dropped: 1
 * ```
 */
export function readApiKey(value: unknown): Shape<AtlasApiKey> {
  if (!isRecord(value) || typeof value.id !== 'string') {
    return { ok: false, problem: 'an API key without a string id' };
  }
  const { roles: sentRoles, ...rest } = value;
  const key = { ...rest, id: value.id } as AtlasApiKey;
  if ('privateKey' in key) {
    key.privateKey = typeof key.privateKey === 'string' ? maskPrivateKey(key.privateKey) : '********';
  }
  let dropped = 0;
  if (Array.isArray(sentRoles)) {
    key.roles = sentRoles.filter(isRecord);
    dropped = sentRoles.length - key.roles.length;
  } else if (sentRoles !== undefined) {
    dropped = 1;
  }
  return dropped === 0 ? { ok: true, value: key } : { ok: true, value: key, dropped };
}

/**
 * Reads an access-list entry: any JSON object.
 *
 * @example
 * ```ts
 * readAccessListEntry({ cidrBlock: '203.0.113.0/24' });
 * ```
 */
export function readAccessListEntry(value: unknown): Shape<AtlasAccessListEntry> {
  return isRecord(value)
    ? { ok: true, value: value as AtlasAccessListEntry }
    : { ok: false, problem: 'an access-list entry that is not an object' };
}

/**
 * Reads a service account: an object with a string `clientId`. Its `secrets` are dropped here, and
 * roles that are not strings (or `roles` that is not a list) are left out and counted in `dropped`.
 *
 * @example
 * ```ts
 * readServiceAccount({ clientId: 'mdb_sa_id_…', roles: ['ORG_OWNER'], secrets: [{}] }); // no secrets
 * ```
 */
export function readServiceAccount(value: unknown): Shape<AtlasServiceAccount> {
  if (!isRecord(value) || typeof value.clientId !== 'string') {
    return { ok: false, problem: 'a service account without a string clientId' };
  }
  // `roles` that is not a list is dropped like the non-text roles in one: the type promises a list.
  const { secrets: _secrets, roles: sentRoles, ...account } = value;
  const roles = Array.isArray(sentRoles)
    ? sentRoles.filter((role): role is string => typeof role === 'string')
    : undefined;
  const dropped = Array.isArray(sentRoles)
    ? sentRoles.length - (roles?.length ?? 0)
    : sentRoles === undefined
      ? 0
      : 1;
  const read = { ...account, clientId: value.clientId, ...(roles === undefined ? {} : { roles }) };
  return dropped === 0 ? { ok: true, value: read } : { ok: true, value: read, dropped };
}

/**
 * Reads a project: an object with a string `id`.
 *
 * @example
 * ```ts
 * readProject({ id: '5f...', name: 'prod' });
 * ```
 */
export function readProject(value: unknown): Shape<AtlasProject> {
  return isRecord(value) && typeof value.id === 'string'
    ? { ok: true, value: value as AtlasProject }
    : { ok: false, problem: 'a project without a string id' };
}

/**
 * Reads an organization: an object with a string `id`.
 *
 * @example
 * ```ts
 * readOrganization({ id: '5f...', name: 'Acme Corp' });
 * ```
 */
export function readOrganization(value: unknown): Shape<AtlasOrganization> {
  return isRecord(value) && typeof value.id === 'string'
    ? { ok: true, value: value as AtlasOrganization }
    : { ok: false, problem: 'an organization without a string id' };
}

/**
 * Reads a team: an object with a string `id`.
 *
 * @example
 * ```ts
 * readTeam({ id: '5f...', name: 'platform' });
 * ```
 */
export function readTeam(value: unknown): Shape<AtlasTeam> {
  return isRecord(value) && typeof value.id === 'string'
    ? { ok: true, value: value as AtlasTeam }
    : { ok: false, problem: 'a team without a string id' };
}

/**
 * Reads an alert configuration: an object with a string `id`.
 *
 * @example
 * ```ts
 * readAlertConfig({ id: '5f...', eventTypeName: 'OUTSIDE_METRIC_THRESHOLD' });
 * ```
 */
export function readAlertConfig(value: unknown): Shape<AtlasAlertConfig> {
  return isRecord(value) && typeof value.id === 'string'
    ? { ok: true, value: value as AtlasAlertConfig }
    : { ok: false, problem: 'an alert configuration without a string id' };
}

/** What each `providerName` says about a cluster's tier; AWS, Azure and GCP are dedicated. */
const PROVIDER_TIERS: Readonly<Record<string, AtlasClusterTier>> = {
  AWS: 'dedicated',
  AZURE: 'dedicated',
  GCP: 'dedicated',
  TENANT: 'shared',
  FLEX: 'flex',
  SERVERLESS: 'serverless',
};

/** The provider names a cluster states: `providerSettings` (v1.0, v2 2023-01-01) or its region configs (later v2). */
function providerNames(cluster: Record<string, unknown>): string[] {
  const names: string[] = [];
  const settings = cluster.providerSettings;
  if (isRecord(settings) && typeof settings.providerName === 'string') names.push(settings.providerName);
  if (Array.isArray(cluster.replicationSpecs)) {
    for (const spec of cluster.replicationSpecs.slice(0, 100)) {
      if (!isRecord(spec) || !Array.isArray(spec.regionConfigs)) continue;
      for (const region of spec.regionConfigs.slice(0, 100)) {
        if (isRecord(region) && typeof region.providerName === 'string') names.push(region.providerName);
      }
    }
  }
  return names;
}

/** The instance size a cluster states, where its provider names are written. */
function instanceSize(cluster: Record<string, unknown>): string | undefined {
  const settings = cluster.providerSettings;
  if (isRecord(settings) && typeof settings.instanceSizeName === 'string') return settings.instanceSizeName;
  const spec = Array.isArray(cluster.replicationSpecs) ? cluster.replicationSpecs[0] : undefined;
  const region = isRecord(spec) && Array.isArray(spec.regionConfigs) ? spec.regionConfigs[0] : undefined;
  const electable = isRecord(region) ? region.electableSpecs : undefined;
  return isRecord(electable) && typeof electable.instanceSize === 'string'
    ? electable.instanceSize
    : undefined;
}

/**
 * Reads a cluster of `GET /groups/{groupId}/clusters` and says whether it keeps database access
 * history. Atlas names it `name` and states its provider in `providerSettings.providerName` (v1.0, v2
 * 2023-01-01) or in `replicationSpecs[].regionConfigs[].providerName` (v2 2023-02-01 and 2024-08-05):
 * `TENANT` is a shared tier (M0, M2, M5), `FLEX` a Flex cluster, AWS, Azure and GCP dedicated. Ops
 * Manager names it `clusterName` and keeps no access history. A cluster whose provider the client
 * does not recognise is `unknown`, and its access history is read: Atlas says if there is none.
 *
 * @example
 * ```ts
 * readCluster({ name: 'c0', providerSettings: { providerName: 'TENANT', instanceSizeName: 'M0' } }, 'atlas-v2');
 * // { ok: true, value: { name: 'c0', tier: 'shared', accessHistory: false, providerName: 'TENANT', instanceSize: 'M0' } }
 * ```
 */
export function readCluster(value: unknown, selfManaged: boolean): Shape<AtlasCluster> {
  if (!isRecord(value)) return { ok: false, problem: 'a cluster that is not an object' };
  const name = selfManaged && typeof value.clusterName === 'string' ? value.clusterName : value.name;
  if (typeof name !== 'string' || name === '') return { ok: false, problem: 'a cluster without a name' };
  const providers = providerNames(value);
  let tier: AtlasClusterTier;
  if (selfManaged) {
    tier = 'self-managed';
  } else {
    const tiers = new Set(providers.map((provider) => PROVIDER_TIERS[provider] ?? 'unknown'));
    // A shared, Flex or serverless region anywhere makes the whole cluster one; dedicated needs every region dedicated.
    tier =
      (['shared', 'flex', 'serverless', 'unknown'] as const).find((candidate) => tiers.has(candidate)) ??
      (tiers.has('dedicated') ? 'dedicated' : 'unknown');
  }
  const size = instanceSize(value);
  return {
    ok: true,
    value: {
      name,
      tier,
      accessHistory: tier === 'dedicated' || tier === 'unknown',
      ...(providers[0] === undefined ? {} : { providerName: providers[0] }),
      ...(size === undefined ? {} : { instanceSize: size }),
    },
  };
}

/**
 * Reads the body of a database access history answer: `accessLogs` must be an array of at most
 * `nLogs` items (Atlas never sends more than asked: more is a server to refuse, not an array to take
 * in whole). The items are read by {@link readAccessLogLine}.
 *
 * @example
 * ```ts
 * readAccessLogs({ accessLogs: [] }, 100); // { ok: true, value: [] }
 * ```
 */
export function readAccessLogs(body: unknown, nLogs: number): Shape<unknown[]> {
  if (!isRecord(body) || !Array.isArray(body.accessLogs)) {
    return { ok: false, problem: 'an access history without an accessLogs array' };
  }
  if (body.accessLogs.length > nLogs) {
    return {
      ok: false,
      problem: `an access history of ${body.accessLogs.length} lines, more than the ${nLogs} asked for (nLogs)`,
    };
  }
  return { ok: true, value: body.accessLogs };
}

const ACCESS_LOG_TEXT_FIELDS = [
  'authSource',
  'hostname',
  'ipAddress',
  'logLine',
  'timestamp',
  'username',
] as const;

/**
 * Reads one line of database access history: an object with a boolean `authResult`, the text fields
 * `authSource`, `hostname`, `ipAddress`, `logLine`, `timestamp` (a time `Date.parse` reads: the ISO 8601
 * the OpenAPI document promises, or JavaScript's date text) and `username`, and a `failureReason`
 * that is text, null or absent. Anything else is refused: the caller skips the line.
 *
 * @example
 * ```ts
 * readAccessLogLine({ authResult: false, authSource: 'admin', failureReason: null, hostname: 'h', ipAddress: '192.0.2.1',
 *   logLine: '{}', timestamp: '2026-01-31T09:15:00.000Z', username: 'app' }); // ok, timestampMs 1769850900000
 * ```
 */
export function readAccessLogLine(value: unknown): Shape<AtlasAccessLogLine> {
  if (!isRecord(value)) return { ok: false, problem: 'a line that is not an object' };
  if (typeof value.authResult !== 'boolean')
    return { ok: false, problem: 'a line without a boolean authResult' };
  for (const field of ACCESS_LOG_TEXT_FIELDS) {
    if (typeof value[field] !== 'string') return { ok: false, problem: `a line without a text ${field}` };
  }
  const failureReason = value.failureReason ?? null;
  if (failureReason !== null && typeof failureReason !== 'string') {
    return { ok: false, problem: 'a line whose failureReason is not text' };
  }
  const timestampMs = Date.parse(value.timestamp as string);
  if (Number.isNaN(timestampMs)) return { ok: false, problem: 'a line whose timestamp is not a time' };
  return {
    ok: true,
    value: {
      authResult: value.authResult,
      authSource: value.authSource as string,
      failureReason,
      ...(typeof value.groupId === 'string' ? { groupId: value.groupId } : {}),
      hostname: value.hostname as string,
      ipAddress: value.ipAddress as string,
      logLine: value.logLine as string,
      timestamp: value.timestamp as string,
      timestampMs,
      username: value.username as string,
    },
  };
}

/**
 * Masks an API key's private key: eight asterisks, then its last four characters when it is long enough
 * (16 or more) for four to give nothing away. Atlas already masks it; this holds even for a server that
 * does not.
 *
 * @example
 * ```ts
 * maskPrivateKey('********-****-****-db2c132ca78d'); // '********a78d'
 * maskPrivateKey('short'); // '********'
 * ```
 */
export function maskPrivateKey(value: string): string {
  return value.length >= 16 ? `********${value.slice(-4)}` : '********';
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
