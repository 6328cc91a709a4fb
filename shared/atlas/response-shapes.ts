/**
 * Narrowing of Atlas's JSON (parsed into `unknown`) to the shapes the client hands out. Each reader
 * returns the value, or a short description of what is wrong for the error message.
 */
import type {
  AtlasAccessListEntry,
  AtlasAlertConfig,
  AtlasApiKey,
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
