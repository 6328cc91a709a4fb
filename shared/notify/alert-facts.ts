import type { AtlasEvent } from '../atlas/types.js';
import type { Alert } from './alert.js';
import { type AlertContext, displayName } from './alert-context.js';
import { formatAgo, formatUtc, parseEventTime } from './relative-time.js';

/**
 * The facts of an alert that a person reads first, taken from its events: when, who, where, and what
 * changed. Values are raw event text (not cleaned, not escaped, not cut): each formatter prepares them
 * for its channel. Every field of an event may be missing or of the wrong type; such fields are skipped.
 */

/** One labelled value. */
export interface Fact {
  label: string;
  value: string;
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
  /** How many distinct actors were left out of `actors`. */
  moreActors: number;
  /**
   * Organization, project, cluster, host, namespace of the newest event; the organization and project
   * by name (`payments-prod (64b5…d11)`) when the alert's context knows it.
   */
  where: Fact[];
  /** The API key or service account the alert is about: what it is for and its current roles. */
  credential: Fact[];
  /** The fields that say what changed, for the newest event's type. */
  changes: Fact[];
  /** Id of the newest event, when it has one. */
  eventId?: string;
}

export const MAX_ACTORS = 5;
const MAX_DIFFS = 10;
const MAX_OTHER_FIELDS = 10;

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

/** Fields that say what an event changed, with how a person calls them, in the order they are shown. */
const CHANGE_FIELDS: ReadonlyArray<readonly [key: string, label: string]> = [
  ['whitelistEntry', 'Access list entry'],
  ['accessListEntry', 'Access list entry'],
  ['targetPublicKey', 'API key'],
  ['targetUsername', 'User'],
  ['dbUserUsername', 'Database user'],
  ['teamId', 'Team'],
  ['opType', 'Operation'],
  ['metricName', 'Metric'],
  ['alertId', 'Alert'],
  ['alertConfigId', 'Alert configuration'],
];

const CHANGE_KEYS = new Set(CHANGE_FIELDS.map(([key]) => key));

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
  const actors = distinct(events.map(describeActor).filter((actor) => actor !== undefined));
  const newest = events.at(-1);
  const facts: AlertFacts = {
    eventCount: events.length,
    eventTypes: distinct(
      events.map((event) => text(event.eventTypeName)).filter((name) => name !== undefined),
    ),
    actors: actors.slice(0, MAX_ACTORS),
    moreActors: Math.max(0, actors.length - MAX_ACTORS),
    where: newest === undefined ? [] : describeWhere(newest, alert.context),
    credential: describeCredential(alert.context),
    changes: newest === undefined ? [] : describeChanges(newest),
  };
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

/**
 * When the alert's events happened, as both formatters say it: UTC to the second and how long before
 * `now`; a span for several events; the time the alert was raised when no event has a valid `created`.
 *
 * @example
 * ```ts
 * describeWhen(describeAlert(alert), alert.raisedAt, now); // '2026-11-22 06:12:41 UTC (4 minutes ago)'
 * ```
 */
export function describeWhen(facts: AlertFacts, raisedAt: number, now: number): string {
  const last = facts.lastEventAt ?? raisedAt;
  const first = facts.firstEventAt ?? last;
  const ago = formatAgo(last, now);
  if (first === last) return `${formatUtc(last)} (${ago})`;
  return `${formatUtc(first)} to ${formatUtc(last)} (last ${ago})`;
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
  return `${who}${from === undefined ? '' : ` from ${from}`}${admin}`;
}

function describeWhere(event: AtlasEvent, context: AlertContext | undefined): Fact[] {
  const facts: Fact[] = [];
  push(facts, 'Organization', named(text(event.orgId), context?.orgId, context?.orgName));
  push(facts, 'Project', named(text(event.groupId), context?.projectId, context?.projectName));
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

/** An id by name when the context names that very id. */
function named(
  id: string | undefined,
  knownId: string | undefined,
  name: string | undefined,
): string | undefined {
  return id !== undefined && id === knownId ? displayName(id, name) : id;
}

/** `API key: abcdefgh: terraform CI` and `Key roles: ORG_OWNER`, from the alert's context. */
function describeCredential(context: AlertContext | undefined): Fact[] {
  const credential = context?.credential;
  if (credential === undefined || typeof credential.id !== 'string') return [];
  const label = credential.kind === 'service-account' ? 'Service account' : 'API key';
  const description = text(credential.description);
  const roles = Array.isArray(credential.roles)
    ? credential.roles.filter((role) => text(role) !== undefined)
    : [];
  return [
    { label, value: description === undefined ? credential.id : `${credential.id}: ${description}` },
    { label: 'Current roles', value: roles.length === 0 ? '(none)' : roles.join(', ') },
  ];
}

function describeChanges(event: AtlasEvent): Fact[] {
  const facts: Fact[] = [];
  for (const [key, label] of CHANGE_FIELDS) {
    const value = text(event[key]);
    if (value === undefined) continue;
    const note =
      label === 'Access list entry' && INTERNET_WIDE.has(value.trim()) ? ' (the whole internet)' : '';
    facts.push({ label, value: `${value}${note}` });
  }
  const current = event.currentValue;
  if (typeof current === 'object' && current !== null) {
    const number = text(current.number);
    const units = text(current.units);
    if (number !== undefined)
      push(facts, 'Current value', units === undefined ? number : `${number} ${units}`);
  }
  if (Array.isArray(event.diffs)) {
    const diffs: unknown[] = event.diffs;
    diffs.slice(0, MAX_DIFFS).forEach((diff, index) => {
      push(facts, `Change ${index + 1}`, describeDiff(diff));
    });
    if (diffs.length > MAX_DIFFS)
      facts.push({ label: 'More changes', value: `${diffs.length - MAX_DIFFS} more` });
  }
  let others = 0;
  for (const [key, raw] of Object.entries(event)) {
    if (SHOWN_ELSEWHERE.has(key) || CHANGE_KEYS.has(key)) continue;
    const value = text(raw);
    if (value === undefined) continue;
    if (++others > MAX_OTHER_FIELDS) break;
    facts.push({ label: key, value });
  }
  return facts;
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
