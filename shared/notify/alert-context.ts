import { cleanLineWithin, removeInvisible } from '../text-cleaning.js';

/**
 * What the poller knows about an alert beyond its events: the names of its organization and project,
 * and the details of the API key or service account it is about. Every text is Atlas-controlled and
 * stored cleaned and bounded (see {@link cleanAtlasName}); each formatter still escapes it for its
 * channel. Ids stay as they are: message attributes and the raw event carry them unchanged.
 */
export interface AlertContext {
  orgId?: string;
  /** Absent when the name could not be resolved: the id stands alone. */
  orgName?: string;
  projectId?: string;
  projectName?: string;
  /** The API key or service account the event is about, from the organization's latest inventory snapshot. */
  credential?: CredentialDetails;
  /** The team the event is about (`teamId`), by name when Atlas gave it. */
  team?: NamedThing;
  /** The alert configuration the event is about (`alertConfigId`): what it alerts on, when Atlas said. */
  alertConfig?: NamedThing;
  /** The connection the event was read through, when it is not `default` (the top-level settings). */
  connection?: string;
}

/** Something an event names by id, with the words a person knows it by when they are known. */
export interface NamedThing {
  id: string;
  /** A team's name, or what an alert configuration alerts on; absent when unknown. */
  name?: string;
}

/** An API key or service account as the latest inventory snapshot knows it: never a secret. */
export interface CredentialDetails {
  kind: 'api-key' | 'service-account';
  /** The public key, or the service account's client id. */
  id: string;
  /** The service account's name; API keys have none. */
  name?: string;
  /** The key's or the account's description, when it has one. */
  description?: string;
  /**
   * Its current roles grouped by where they hold (`ORG_MEMBER, ORG_OWNER in Acme Corp (64b5…c01)`,
   * `GROUP_READ_ONLY in payments-prod (64b5…d11)`), those in the alert's organization first; at most
   * {@link MAX_CREDENTIAL_ROLES} roles in all.
   */
  roles: string[];
  /** When the snapshot that holds it was taken, in milliseconds since the epoch. */
  snapshotTakenAt: number;
}

/** The longest name or description kept, in characters (Atlas allows 64 for a name, 250 for a key description). */
export const MAX_NAME_LENGTH = 128;
/** Roles listed for a key, at most. */
export const MAX_CREDENTIAL_ROLES = 20;

/** Ids this long or shorter are shown whole. */
const SHORT_ID_LENGTH = 10;
const SURROGATE = /[\uD800-\uDFFF]/;

/**
 * An id shortened for a title or a chat line: its first four and last three characters around an
 * ellipsis, enough to tell ids apart at a glance and to find the whole one in the raw event or the
 * console link. Ids of ten characters or fewer are shown whole.
 *
 * @example
 * ```ts
 * shortId('64b5ca17f1a3d40012ab3d11'); // '64b5…d11'
 * ```
 */
export function shortId(id: string): string {
  if (id.length <= SHORT_ID_LENGTH) return id;
  // Without surrogates, characters are code units: no need to split the id into an array.
  if (!SURROGATE.test(id)) return `${id.slice(0, 4)}\u2026${id.slice(-3)}`;
  const chars = [...id];
  if (chars.length <= SHORT_ID_LENGTH) return id;
  return `${chars.slice(0, 4).join('')}\u2026${chars.slice(-3).join('')}`;
}

/**
 * How an organization or project is named to a person: `payments-prod (64b5…d11)` when its name is
 * known, else its whole id.
 *
 * @example
 * ```ts
 * displayName('64b5ca17f1a3d40012ab3d11', 'payments-prod'); // 'payments-prod (64b5…d11)'
 * displayName('64b5ca17f1a3d40012ab3d11', undefined); // '64b5ca17f1a3d40012ab3d11'
 * ```
 */
export function displayName(id: string, name: string | undefined): string {
  return name === undefined || name === '' ? id : `${name} (${shortId(id)})`;
}

/**
 * Atlas-controlled text (a name, a key description) made safe to keep and show: control characters,
 * line breaks, bidi overrides and invisible characters (zero-width spaces, the byte-order mark…) removed, cut to {@link MAX_NAME_LENGTH} characters. `undefined` for
 * anything that is not a non-blank string.
 *
 * @example
 * ```ts
 * cleanAtlasName('payments\u202Eprod\u200B\n'); // 'paymentsprod'
 * cleanAtlasName(42); // undefined
 * ```
 */
export function cleanAtlasName(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const cleaned = removeInvisible(cleanLineWithin(value, MAX_NAME_LENGTH)).trim();
  return cleaned === '' ? undefined : cleaned;
}

/**
 * What `{{context.<field>}}` reads in a rule's title and summary: `org` and `project` (the name with
 * the short id, or the id alone), `orgName`, `orgId`, `projectName`, `projectId`; for an alert about a
 * key `keyDescription` and `keyRoles` (`ORG_OWNER in Acme Corp (64b5…c01); GROUP_READ_ONLY in
 * payments-prod (64b5…d11)`), and `serviceAccountName` for a service
 * account; `teamName` for a team and `alertConfig` (what it alerts on) for an alert configuration. A
 * field the context lacks is absent, so a template's fallbacks apply: `{{context.projectName | groupId}}`.
 *
 * @example
 * ```ts
 * templateValues({ projectId: '64b5ca17f1a3d40012ab3d11', projectName: 'payments-prod' }).project;
 * // 'payments-prod (64b5…d11)'
 * ```
 */
export function templateValues(context: AlertContext | undefined): Record<string, string> {
  const values: Record<string, string> = {};
  if (context === undefined) return values;
  if (context.orgId !== undefined) {
    values.orgId = context.orgId;
    values.org = displayName(context.orgId, context.orgName);
  }
  if (context.orgName !== undefined) values.orgName = context.orgName;
  if (context.projectId !== undefined) {
    values.projectId = context.projectId;
    values.project = displayName(context.projectId, context.projectName);
  }
  if (context.projectName !== undefined) values.projectName = context.projectName;
  const credential = context.credential;
  if (credential !== undefined) {
    if (credential.description !== undefined) values.keyDescription = credential.description;
    if (credential.roles.length > 0) values.keyRoles = credential.roles.join('; ');
    if (credential.kind === 'service-account' && credential.name !== undefined)
      values.serviceAccountName = credential.name;
  }
  if (context.team?.name !== undefined) values.teamName = context.team.name;
  if (context.alertConfig?.name !== undefined) values.alertConfig = context.alertConfig.name;
  return values;
}

/**
 * The event fields a title shows by name: `{{orgId}}` and `{{groupId}}` read as
 * `payments-prod (64b5…d11)` when the event's id is the one whose name the context knows.
 *
 * @example
 * ```ts
 * namedIds({ projectId: 'p1', projectName: 'prod' }); // { groupId: { id: 'p1', shown: 'prod (p1)' } }
 * ```
 */
export function namedIds(context: AlertContext | undefined): Record<string, { id: string; shown: string }> {
  const named: Record<string, { id: string; shown: string }> = {};
  if (context?.orgId !== undefined && context.orgName !== undefined)
    named.orgId = { id: context.orgId, shown: displayName(context.orgId, context.orgName) };
  if (context?.projectId !== undefined && context.projectName !== undefined)
    named.groupId = { id: context.projectId, shown: displayName(context.projectId, context.projectName) };
  return named;
}
