import type { AtlasEvent } from '../atlas/types.js';
import type { Alert } from './alert.js';
import { type AlertContext, displayName, type NamedThing, shortId } from './alert-context.js';
import { FINDING_RESOLVED_EVENT_TYPE } from './alert-finding.js';
import { formatUtc, parseEventTime } from './relative-time.js';

/**
 * The facts of an alert that a person reads first, taken from its events: when, who, where, what it
 * is about and what changed, each said once. Values are raw event text (not cleaned, not escaped, not
 * cut): each formatter prepares them for its channel. Every field of an event may be missing or of the
 * wrong type; such fields are skipped.
 */

/** One labelled value. */
export interface Fact {
  label: string;
  value: string;
}

/** Where an alert is, as a headline says it. */
export interface Place {
  /** `payments-prod`, or `project 64b5ca17f1a3d40012ab3d11` when the name is not known. */
  text: string;
  /** The same in fewer characters, for an e-mail subject: the name, or `project 64b5…d11`. */
  short: string;
  /** What a title that names the place holds: its name and its id. */
  names: string[];
  /** A project's organization: what a headline names when the title names the project already. */
  parent?: Place;
}

/** What an alert raised on inventory events says instead of an actor: how and when it was found. */
export interface FindingFacts {
  /** A baseline finding: the first inventory found it, so it predates the deployment. */
  preExisting: boolean;
  /** When the snapshot the change was measured against was taken, in milliseconds. */
  previousSnapshotAt?: number;
  /** When the thing found was created, as Atlas records it, in milliseconds. */
  existsSince?: number;
  /** A posture problem an earlier snapshot held, gone from the latest one (`INVENTORY_FINDING_RESOLVED`). */
  resolved?: true;
  /** Of a resolved problem: since when it had been open, in words that say how it is known. */
  opened?: string;
}

export interface AlertFacts {
  /** `created` of the oldest and newest event, in milliseconds; absent when no event has a valid one. */
  firstEventAt?: number;
  lastEventAt?: number;
  eventCount: number;
  /** Distinct event type names, in order of first appearance. */
  eventTypes: string[];
  /** Distinct actors (`alice@example.com from 203.0.113.9`), at most {@link MAX_ACTORS}. */
  actors: string[];
  /** The same actors without their addresses (`alice@example.com`): what a headline names. */
  actorNames: string[];
  /** How many distinct actors were left out of `actors`. */
  moreActors: number;
  /** Set when every event comes from the inventory: found by comparing snapshots, with no actor. */
  finding?: FindingFacts;
  /**
   * Organization, project, cluster, host, namespace of the newest event; the organization and project
   * by name (`payments-prod (64b5…d11)`) when the alert's context knows it.
   */
  where: Fact[];
  /** The project, else the organization, as a headline names it: its name alone, or its id. */
  place?: Place;
  /** The API key or service account the alert is about: what it is and its current roles. */
  credential: Fact[];
  /** What the event changed, in words a person reads; nothing another fact already says. */
  changes: Fact[];
  /** Id of the newest event, when it has one. */
  eventId?: string;
}

export const MAX_ACTORS = 5;
const MAX_DIFFS = 10;
const MAX_OTHER_FIELDS = 10;

/** The `source` inventory events carry (see `shared/rules/inventory-events.ts`); Atlas events have none. */
const INVENTORY_SOURCE = 'inventory';

/** Fields shown elsewhere in the message, or never useful as text. */
const SHOWN_ELSEWHERE = new Set([
  'id',
  'created',
  'eventTypeName',
  'groupId',
  'orgId',
  'links',
  'username',
  'publicKey',
  'userId',
  'apiKeyId',
  'remoteAddress',
  'isGlobalAdmin',
  'clusterName',
  'clusterId',
  'replicaSetName',
  'shardName',
  'hostname',
  'port',
  'Port',
  'database',
  'collection',
  'raw',
  'diffs',
  'currentValue',
]);

/**
 * Fields of inventory events that the message says otherwise: how it was found (the `Found` line),
 * the entry again under its API field names, the key's details (the key line), and the roles it holds
 * now (`Current roles`).
 */
const INVENTORY_FIELDS = new Set([
  'source',
  'preExisting',
  'finding',
  'previousSnapshotAt',
  'existsSince',
  'cidrBlock',
  'ipAddress',
  'awsSecurityGroup',
  'apiKeyDescription',
  'serviceAccountName',
  'serviceAccountDescription',
  'holdsOwnerRole',
  'rolesAfter',
  // A posture finding's id and words: the title and summary say them.
  'postureFinding',
  'resolvedFindingType',
  'problem',
  'resolution',
  'openSince',
  'opened',
]);

/** Fields that say what an event changed, with how a person calls them, in the order they are shown. */
const CHANGE_FIELDS: ReadonlyArray<readonly [key: string, label: string]> = [
  ['whitelistEntry', 'Access list entry'],
  ['accessListEntry', 'Access list entry'],
  ['comment', 'Comment'],
  ['targetPublicKey', 'API key'],
  ['targetClientId', 'Service account'],
  ['serviceAccountClientId', 'Service account'],
  ['targetUsername', 'User'],
  ['dbUserUsername', 'Database user'],
  ['teamId', 'Team'],
  ['opType', 'Operation'],
  ['metricName', 'Metric'],
  ['alertId', 'Alert'],
  ['alertConfigId', 'Alert configuration'],
  ['employeeIdentifier', 'MongoDB employee'],
  ['resourcePolicyId', 'Resource policy'],
];

/** Role lists of inventory events, with how a message calls them. */
const ROLE_FIELDS: ReadonlyArray<readonly [key: string, label: string]> = [
  ['rolesAdded', 'Roles added'],
  ['rolesRemoved', 'Roles removed'],
  ['rolesBefore', 'Roles it held'],
  ['roles', 'Roles'],
];

const CHANGE_KEYS = new Set([...CHANGE_FIELDS, ...ROLE_FIELDS].map(([key]) => key));

const INTERNET_WIDE = new Set(['0.0.0.0/0', '::/0', '0.0.0.0']);

/**
 * The facts of an alert. Never throws, whatever its events hold.
 *
 * @example
 * ```ts
 * describeAlert(alert).actors; // ['j.doe@example.com from 203.0.113.22']
 * ```
 */
export function describeAlert(alert: Pick<Alert, 'events' | 'context'>): AlertFacts {
  const events = Array.isArray(alert.events) ? alert.events.filter(isEvent) : [];
  const times = events.map((event) => parseEventTime(event.created)).filter((ms) => ms !== undefined);
  const fromInventory = events.length > 0 && events.every((event) => event.source === INVENTORY_SOURCE);
  const found = fromInventory ? [] : events.map(describeActorParts).filter((actor) => actor !== undefined);
  const actors = distinctBy(found, (actor) => actor.full);
  const newest = events.at(-1);
  const context = alert.context;
  const credential = describeCredential(context);
  const where = newest === undefined ? [] : describeWhere(newest, context);
  const facts: AlertFacts = {
    eventCount: events.length,
    eventTypes: distinct(
      events.map((event) => text(event.eventTypeName)).filter((name) => name !== undefined),
    ),
    actors: actors.slice(0, MAX_ACTORS).map((actor) => actor.full),
    actorNames: distinct(actors.slice(0, MAX_ACTORS).map((actor) => actor.name)),
    moreActors: Math.max(0, actors.length - MAX_ACTORS),
    where,
    credential,
    changes: newest === undefined ? [] : describeChanges(newest, context, [...where, ...credential]),
  };
  if (fromInventory && newest !== undefined) facts.finding = describeFinding(newest);
  const place = newest === undefined ? undefined : describePlace(newest, context);
  if (place !== undefined) facts.place = place;
  if (times.length > 0) {
    facts.firstEventAt = times.reduce((a, b) => Math.min(a, b));
    facts.lastEventAt = times.reduce((a, b) => Math.max(a, b));
  }
  const eventId = newest === undefined ? undefined : text(newest.id);
  if (eventId !== undefined) facts.eventId = eventId;
  return facts;
}

/** What the "Who" line says when no event names a user. */
export const NO_ACTOR = 'no user recorded (Atlas or an automated process)';
/** What the "Who" line of an inventory finding says: snapshots show what exists, not who changed it. */
export const INVENTORY_ACTOR = 'not known: the inventory sees what exists, not who changed it';

/**
 * The facts both formatters show first, in order: when (or, for an inventory finding, when it was
 * found and since when it exists), who, where, and the key the alert is about. Values are raw text:
 * each formatter prepares them for its channel.
 *
 * @example
 * ```ts
 * headerFacts(facts, alert.raisedAt);
 * // [{ label: 'When', value: '2026-11-22 06:12:41 UTC' }, { label: 'Who', value: 'j.doe@example.com from 203.0.113.22' }, ...]
 * ```
 */
export function headerFacts(facts: AlertFacts, raisedAt: number): Fact[] {
  return [...timeAndActorFacts(facts, raisedAt), ...facts.where, ...facts.credential];
}

/**
 * When and who: `When` and `Who` for Atlas events; `Found`, `Since` (when known) and `Who` for an
 * inventory finding, which names no actor; `Found`, `Open since` and `Who` for a resolved one.
 *
 * @example
 * ```ts
 * timeAndActorFacts(facts, alert.raisedAt).map((fact) => fact.label); // ['When', 'Who']
 * ```
 */
export function timeAndActorFacts(facts: AlertFacts, raisedAt: number): Fact[] {
  if (facts.finding === undefined) {
    return [
      { label: 'When', value: describeWhen(facts, raisedAt) },
      { label: 'Who', value: describeWho(facts, (actor) => actor) },
    ];
  }
  const lines: Fact[] = [{ label: 'Found', value: describeFound(facts, facts.finding, raisedAt) }];
  if (facts.finding.resolved === true) {
    if (facts.finding.opened !== undefined) lines.push({ label: 'Open since', value: facts.finding.opened });
  } else if (facts.finding.existsSince !== undefined)
    lines.push({ label: 'Since', value: `${formatUtc(facts.finding.existsSince)}, as Atlas records it` });
  lines.push({ label: 'Who', value: INVENTORY_ACTOR });
  return lines;
}

/**
 * When the alert's events happened, as both formatters say it: UTC to the second, a time that reads
 * the same whenever the message is read; a span for several events; the time the alert was raised
 * when no event has a valid `created`.
 *
 * @example
 * ```ts
 * describeWhen(describeAlert(alert), alert.raisedAt); // '2026-11-22 06:12:41 UTC'
 * ```
 */
export function describeWhen(facts: AlertFacts, raisedAt: number): string {
  const last = facts.lastEventAt ?? raisedAt;
  const first = facts.firstEventAt ?? last;
  if (first === last) return formatUtc(last);
  return `${formatUtc(first)} to ${formatUtc(last)}`;
}

/**
 * When and how an inventory finding was found: by the first inventory (it predates the deployment),
 * or between two snapshots; for a resolved one, when it was found gone.
 *
 * @example
 * ```ts
 * describeFound(facts, { preExisting: true }, raisedAt);
 * // '2026-11-22 06:12:41 UTC, by the first inventory: there before this deployment'
 * ```
 */
export function describeFound(facts: AlertFacts, finding: FindingFacts, raisedAt: number): string {
  const at = formatUtc(facts.lastEventAt ?? raisedAt);
  if (finding.resolved === true) {
    return finding.previousSnapshotAt === undefined
      ? `${at}, by the inventory: gone`
      : `${at}, by the inventory: gone; still there at ${formatUtc(finding.previousSnapshotAt)}`;
  }
  if (finding.preExisting) return `${at}, by the first inventory: there before this deployment`;
  if (finding.previousSnapshotAt !== undefined)
    return `${at}, by the inventory; not there at ${formatUtc(finding.previousSnapshotAt)}`;
  return `${at}, by the inventory`;
}

/**
 * Who did it, as both formatters say it, each actor prepared for the channel by `value`.
 *
 * @example
 * ```ts
 * describeWho(describeAlert(alert), (text) => text); // 'j.doe@example.com from 203.0.113.22'
 * ```
 */
export function describeWho(facts: AlertFacts, value: (text: string) => string): string {
  if (facts.finding !== undefined) return INVENTORY_ACTOR;
  if (facts.actors.length === 0) return NO_ACTOR;
  const more = facts.moreActors > 0 ? ` and ${facts.moreActors} more` : '';
  return `${facts.actors.map(value).join(', ')}${more}`;
}

/**
 * Who did it: user name or API public key, the address they came from, and whether they are a global
 * admin (MongoDB staff on Atlas). `undefined` when the event names nobody (Atlas itself did it).
 *
 * @example
 * ```ts
 * describeActor({ username: 'j.doe@example.com', remoteAddress: '203.0.113.22' }); // 'j.doe@example.com from 203.0.113.22'
 * ```
 */
export function describeActor(event: AtlasEvent): string | undefined {
  return describeActorParts(event)?.full;
}

function describeActorParts(event: AtlasEvent): { name: string; full: string } | undefined {
  const username = text(event.username);
  const publicKey = text(event.publicKey);
  const userId = text(event.userId);
  const apiKeyId = text(event.apiKeyId);
  const who =
    username ??
    (publicKey !== undefined ? `API key ${publicKey}` : undefined) ??
    (userId !== undefined ? `user id ${userId}` : undefined) ??
    (apiKeyId !== undefined ? `API key id ${apiKeyId}` : undefined);
  if (who === undefined) return undefined;
  const from = text(event.remoteAddress);
  const admin = event.isGlobalAdmin === true ? ' (global admin)' : '';
  return { name: who, full: `${who}${from === undefined ? '' : ` from ${from}`}${admin}` };
}

function describeFinding(event: AtlasEvent): FindingFacts {
  const finding: FindingFacts = { preExisting: event.preExisting === true };
  const previous = parseEventTime(event.previousSnapshotAt);
  if (previous !== undefined) finding.previousSnapshotAt = previous;
  const since = parseEventTime(event.existsSince);
  if (since !== undefined) finding.existsSince = since;
  if (event.eventTypeName === FINDING_RESOLVED_EVENT_TYPE) {
    finding.resolved = true;
    const opened = text(event.opened);
    if (opened !== undefined) finding.opened = opened;
  }
  return finding;
}

function describeWhere(event: AtlasEvent, context: AlertContext | undefined): Fact[] {
  const facts: Fact[] = [];
  push(facts, 'Organization', eventOrContextId(text(event.orgId), context?.orgId, context?.orgName));
  push(facts, 'Project', eventOrContextId(text(event.groupId), context?.projectId, context?.projectName));
  push(facts, 'Cluster', text(event.clusterName) ?? text(event.clusterId));
  push(facts, 'Replica set', text(event.replicaSetName));
  push(facts, 'Shard', text(event.shardName));
  const hostname = text(event.hostname);
  const port = text(event.port) ?? text(event.Port);
  push(
    facts,
    'Host',
    hostname === undefined ? undefined : port === undefined ? hostname : `${hostname}:${port}`,
  );
  const database = text(event.database);
  const collection = text(event.collection);
  push(
    facts,
    'Namespace',
    database === undefined ? collection : collection ? `${database}.${collection}` : database,
  );
  return facts;
}

/**
 * The event's id by name when the context names that very id; the context's own id (and name) when
 * the event names none, as an inventory finding of a project does not name its organization.
 */
function eventOrContextId(
  id: string | undefined,
  knownId: string | undefined,
  name: string | undefined,
): string | undefined {
  if (id === undefined) return knownId === undefined ? undefined : displayName(knownId, name);
  return id === knownId ? displayName(id, name) : id;
}

/**
 * The project, else the organization, by name alone: what a headline says. The event's own ids come
 * first; the context's stand in only for an event that names neither.
 */
function describePlace(event: AtlasEvent, context: AlertContext | undefined): Place | undefined {
  const eventGroupId = text(event.groupId);
  const eventOrgId = text(event.orgId);
  const none = eventGroupId === undefined && eventOrgId === undefined;
  const orgId = none || eventOrgId === undefined ? context?.orgId : eventOrgId;
  const org =
    orgId === undefined
      ? undefined
      : placeOf('organization', orgId, orgId === context?.orgId ? context.orgName : undefined);
  const groupId = none ? context?.projectId : eventGroupId;
  if (groupId === undefined) return org;
  const project = placeOf(
    'project',
    groupId,
    groupId === context?.projectId ? context.projectName : undefined,
  );
  return org === undefined ? project : { ...project, parent: org };
}

function placeOf(kind: 'project' | 'organization', id: string, name: string | undefined): Place {
  return name === undefined
    ? { text: `${kind} ${id}`, short: `${kind} ${shortId(id)}`, names: [id] }
    : { text: name, short: name, names: [name, id] };
}

/**
 * `API key: abcdefgh: terraform CI` (or `Service account: terraform (mdb_sa_id_…): description`) and
 * its current roles, from the alert's context.
 */
function describeCredential(context: AlertContext | undefined): Fact[] {
  const credential = context?.credential;
  if (credential === undefined || typeof credential.id !== 'string') return [];
  const description = text(credential.description);
  const roles = Array.isArray(credential.roles)
    ? credential.roles.filter((role) => text(role) !== undefined)
    : [];
  let label = 'API key';
  let subject = credential.id;
  if (credential.kind === 'service-account') {
    label = 'Service account';
    const name = text(credential.name);
    if (name !== undefined) subject = `${name} (${credential.id})`;
  }
  return [
    { label, value: description === undefined ? subject : `${subject}: ${description}` },
    { label: 'Current roles', value: roles.length === 0 ? '(none)' : roles.join('; ') },
  ];
}

function describeChanges(
  event: AtlasEvent,
  context: AlertContext | undefined,
  shown: readonly Fact[],
): Fact[] {
  const facts: Fact[] = [];
  const credential = context?.credential;
  for (const [key, label] of CHANGE_FIELDS) {
    const value = text(event[key]);
    if (value === undefined) continue;
    // The key line names the key or account already.
    if ((label === 'API key' || label === 'Service account') && value === credential?.id) continue;
    if (key === 'teamId') facts.push({ label, value: named(value, context?.team) });
    else if (key === 'alertConfigId') facts.push({ label, value: named(value, context?.alertConfig) });
    else {
      const note =
        label === 'Access list entry' && INTERNET_WIDE.has(value.trim()) ? ' (the whole internet)' : '';
      facts.push({ label, value: `${value}${note}` });
    }
  }
  const current = event.currentValue;
  if (typeof current === 'object' && current !== null) {
    const number = text(current.number);
    const units = text(current.units);
    if (number !== undefined)
      push(facts, 'Current value', units === undefined ? number : `${number} ${units}`);
  }
  // A change lists the roles added and removed; what the key holds now is on its own line.
  const roleChange = Array.isArray(event.rolesAdded) || Array.isArray(event.rolesRemoved);
  for (const [key, label] of ROLE_FIELDS) {
    const value = event[key];
    if (key === 'roles' && credential !== undefined) continue;
    if (key === 'rolesBefore' && roleChange) continue;
    if (key !== 'roles' && Array.isArray(value) && value.length === 0) continue;
    push(facts, label, describeRoles(value, context));
  }
  if (Array.isArray(event.diffs)) {
    const diffs: unknown[] = event.diffs;
    diffs.slice(0, MAX_DIFFS).forEach((diff, index) => {
      push(facts, `Change ${index + 1}`, describeDiff(diff));
    });
    if (diffs.length > MAX_DIFFS)
      facts.push({ label: 'More changes', value: `${diffs.length - MAX_DIFFS} more` });
  }
  const inventory = event.source === INVENTORY_SOURCE;
  const said = new Set([...shown, ...facts].map((fact) => fact.value));
  let others = 0;
  for (const [key, raw] of Object.entries(event)) {
    if (SHOWN_ELSEWHERE.has(key) || CHANGE_KEYS.has(key) || (inventory && INVENTORY_FIELDS.has(key)))
      continue;
    const value = text(raw);
    if (value === undefined || said.has(value)) continue;
    if (++others > MAX_OTHER_FIELDS) break;
    facts.push({ label: fieldLabel(key), value });
  }
  return facts;
}

/** `CONNECTIONS above 500 (64b5…003)` for an id the context names, else the id. */
function named(id: string, thing: NamedThing | undefined): string {
  const name = thing?.id === id ? text(thing.name) : undefined;
  return name === undefined ? id : `${name} (${shortId(id)})`;
}

/**
 * An inventory event's roles, grouped by where they hold: `ORG_MEMBER, ORG_OWNER in Acme Corp
 * (64b5…c01); GROUP_READ_ONLY in project 64b5…d11`.
 */
function describeRoles(value: unknown, context: AlertContext | undefined): string | undefined {
  if (!Array.isArray(value)) return undefined;
  if (value.length === 0) return '(none)';
  const scopes = new Map<string, string[]>();
  for (const role of (value as unknown[]).slice(0, 20)) {
    if (typeof role !== 'object' || role === null) continue;
    const { roleName, orgId, groupId } = role as Record<string, unknown>;
    const name = text(roleName);
    if (name === undefined) continue;
    const org = text(orgId);
    const project = text(groupId);
    const scope =
      org !== undefined
        ? org === context?.orgId
          ? displayName(org, context.orgName)
          : `organization ${shortId(org)}`
        : project !== undefined
          ? project === context?.projectId
            ? displayName(project, context.projectName)
            : `project ${shortId(project)}`
          : '';
    scopes.set(scope, [...(scopes.get(scope) ?? []), name]);
  }
  if (scopes.size === 0) return undefined;
  return [...scopes]
    .map(([scope, names]) => (scope === '' ? names.join(', ') : `${names.join(', ')} in ${scope}`))
    .join('; ');
}

/** A field name as a label: `deskLocation` reads `Desk location`. */
function fieldLabel(key: string): string {
  const words = key
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/[_-]+/g, ' ')
    .trim()
    .toLowerCase();
  return words === '' ? key : `${words.charAt(0).toUpperCase()}${words.slice(1)}`;
}

/** One diff of `AUTOMATION_CONFIG_PUBLISHED_AUDIT`: `USERS NEW alice: readWrite@sales; password: (changed)`. */
function describeDiff(diff: unknown): string | undefined {
  if (typeof diff !== 'object' || diff === null) return undefined;
  const record = diff as Record<string, unknown>;
  const head = [text(record.type), text(record.status), text(record.name) ?? text(record.id)]
    .filter((part) => part !== undefined)
    .join(' ');
  const details: string[] = [];
  if (Array.isArray(record.roles)) {
    const roles = (record.roles as unknown[])
      .slice(0, 10)
      .map((role) => {
        if (typeof role !== 'object' || role === null) return undefined;
        const { role: name, db } = role as Record<string, unknown>;
        const roleName = text(name);
        const database = text(db);
        return roleName === undefined
          ? undefined
          : database === undefined
            ? roleName
            : `${roleName}@${database}`;
      })
      .filter((role) => role !== undefined);
    if (roles.length > 0) details.push(`roles ${roles.join(', ')}`);
  }
  if (Array.isArray(record.params)) {
    for (const param of (record.params as unknown[]).slice(0, 5)) {
      if (typeof param !== 'object' || param === null) continue;
      const fields = param as Record<string, unknown>;
      // The roles the diff gives: said once, above.
      if (text(fields.param) === 'roles' && details.length > 0) continue;
      const name = text(fields.display) ?? text(fields.param);
      if (name === undefined) continue;
      const before = text(fields.old) ?? '(none)';
      const after = text(fields.new) ?? '(none)';
      details.push(`${name} ${before} -> ${after}`);
    }
  }
  const line = details.length > 0 ? `${head}: ${details.join('; ')}` : head;
  return line === '' ? undefined : line;
}

function isEvent(value: unknown): value is AtlasEvent {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A scalar field as text; `undefined` for missing, empty, or non-scalar values. */
function text(value: unknown): string | undefined {
  if (typeof value === 'string') return value.trim() === '' ? undefined : value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value === 'boolean') return String(value);
  return undefined;
}

function push(facts: Fact[], label: string, value: string | undefined): void {
  if (value !== undefined) facts.push({ label, value });
}

function distinct(values: readonly string[]): string[] {
  return [...new Set(values)];
}

function distinctBy<T>(values: readonly T[], keyOf: (value: T) => string): T[] {
  const seen = new Set<string>();
  return values.filter((value) => {
    const key = keyOf(value);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
