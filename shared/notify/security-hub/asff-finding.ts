import { hash } from 'node:crypto';
import type { AwsSecurityFinding, Resource } from '@aws-sdk/client-securityhub';
import type { AtlasEvent } from '../../atlas/types.js';
import {
  cleanLineWithin,
  cleanMultiline,
  removeInvisible,
  sliceCodePoints,
  truncateText,
} from '../../text-cleaning.js';
import type { Alert } from '../alert.js';
import { describeAlert } from '../alert-facts.js';
import { alertFinding } from '../alert-finding.js';
import { NotifyConfigError } from '../errors.js';
import { eventLinks } from '../event-links.js';
import { consoleOf, type FormatContext } from '../format-context.js';
import { parseEventTime } from '../relative-time.js';
import {
  ASFF_SCHEMA_VERSION,
  MAX_DESCRIPTION_LENGTH,
  MAX_FINDING_ID_LENGTH,
  MAX_GENERATOR_ID_LENGTH,
  MAX_OTHER_DETAIL_VALUE_LENGTH,
  MAX_PRODUCT_FIELD_VALUE_LENGTH,
  MAX_RECOMMENDATION_TEXT_LENGTH,
  MAX_RESOURCE_ID_LENGTH,
  MAX_RESOURCES,
  MAX_SEVERITY_ORIGINAL_LENGTH,
  MAX_SOURCE_URL_LENGTH,
  MAX_TITLE_LENGTH,
  type SeverityLabel,
} from './asff-limits.js';
import { findingTypes } from './finding-types.js';

/** The Security Hub that findings are imported into: the account's own `default` product. */
export interface SecurityHubTarget {
  /** The AWS account the findings belong to and are imported from: 12 digits. */
  accountId: string;
  /** The Region of the Security Hub the findings go to: the Region the client calls. */
  region: string;
  /** The account's partition: `aws` (default), `aws-cn`, `aws-us-gov`... */
  partition?: string;
}

export interface AsffFindingOptions extends SecurityHubTarget {
  /** Where console links point (`SourceUrl`); `now` stands in for an alert without a valid `raisedAt`. */
  context?: FormatContext;
}

/** The product name findings carry: a custom integration may set it (`AwsSecurityFinding.ProductName`). */
export const PRODUCT_NAME = 'atlas-audit-alerts';

/** What every finding `Id` starts with, so that no other integration's findings can collide with ours. */
const ID_PREFIX = 'atlas-audit-alerts';

const SEVERITY_LABEL: Readonly<Record<string, SeverityLabel>> = {
  info: 'INFORMATIONAL',
  low: 'LOW',
  medium: 'MEDIUM',
  high: 'HIGH',
  critical: 'CRITICAL',
};

const ACCOUNT_ID = /^\d{12}$/;
const REGION = /^[a-z]{2}(-[a-z0-9]+)+-\d+$/;
const PARTITION = /^aws(-[a-z]+)*$/;
/** Printable ASCII without spaces: what an `Id` holds as it is. */
const PLAIN_ID = /^[\x21-\x7E]+$/;
/** The largest time `toISOString` writes with a four-digit year: 9999-12-31T23:59:59.999Z. */
const LAST_ISO_TIME = 253_402_300_799_999;
/** The most bytes the `Resources` take; with every other field at its cap, a finding stays under 240 KB. */
const MAX_RESOURCES_BYTES = 120_000;
/** Each id or name in a resource's `Id` or details, in characters. */
const MAX_RESOURCE_PART_LENGTH = 200;

/**
 * The ARN of the account's `default` product, the one a custom integration imports into:
 * `arn:<partition>:securityhub:<region>:<account>:product/<account>/default`.
 *
 * @throws {NotifyConfigError} when the account id, Region or partition is not one.
 * @example
 * ```ts
 * defaultProductArn({ accountId: '123456789012', region: 'eu-west-1' });
 * // 'arn:aws:securityhub:eu-west-1:123456789012:product/123456789012/default'
 * ```
 */
export function defaultProductArn(target: SecurityHubTarget): string {
  assertSecurityHubTarget(target);
  const partition = target.partition ?? 'aws';
  return `arn:${partition}:securityhub:${target.region}:${target.accountId}:product/${target.accountId}/default`;
}

/**
 * Checks where findings are imported into.
 *
 * @throws {NotifyConfigError} when the account id is not 12 digits, or the Region or partition is not
 *   one.
 * @example
 * ```ts
 * assertSecurityHubTarget({ accountId: '123456789012', region: 'eu-west-1' });
 * ```
 */
export function assertSecurityHubTarget(target: SecurityHubTarget): void {
  if (typeof target.accountId !== 'string' || !ACCOUNT_ID.test(target.accountId)) {
    throw new NotifyConfigError(
      `Security Hub account id "${String(target.accountId).slice(0, 40)}" is not 12 digits: pass the id of the account the findings are imported into, such as 123456789012`,
    );
  }
  if (typeof target.region !== 'string' || !REGION.test(target.region)) {
    throw new NotifyConfigError(
      `Security Hub Region "${String(target.region).slice(0, 40)}" is not a Region: pass the Region of the Security Hub client, such as eu-west-1`,
    );
  }
  const partition = target.partition ?? 'aws';
  if (typeof partition !== 'string' || !PARTITION.test(partition)) {
    throw new NotifyConfigError(
      `Security Hub partition "${String(partition).slice(0, 40)}" is not a partition: pass aws, aws-cn or aws-us-gov`,
    );
  }
}

/**
 * The finding `Id` of an alert: stable, so that importing it again updates the same finding.
 *
 * - An alert about a posture finding (see `alertFinding`) is named by that finding's id,
 *   `atlas-audit-alerts/posture/<id>`: the alert that opens it, the one that says it is resolved and
 *   the one that reopens it all update one finding.
 * - Any other alert is named by its fingerprint, `atlas-audit-alerts/alert/<fingerprint>`.
 *
 * An id or fingerprint that is not printable ASCII, or would make the `Id` longer than 512
 * characters, is named by its SHA-256 instead, with a readable prefix:
 * `atlas-audit-alerts/alert-sha256/<32 hex>/<prefix>`.
 *
 * @example
 * ```ts
 * findingId(alert); // 'atlas-audit-alerts/alert/network-access-open-to-internet:6740f1c9a3b2c1d0e9f81234'
 * ```
 */
export function findingId(alert: Pick<Alert, 'events' | 'fingerprint'>): string {
  const posture = alertFinding(alert);
  const kind = posture === undefined ? 'alert' : 'posture';
  const key = posture?.id ?? String(alert.fingerprint);
  const plain = `${ID_PREFIX}/${kind}/${key}`;
  if (plain.length <= MAX_FINDING_ID_LENGTH && PLAIN_ID.test(key)) return plain;
  const digest = hash('sha256', key, 'hex').slice(0, 32);
  const readable = sliceCodePoints(key, 200).replace(/[^\x21-\x7E]/g, '_');
  return `${ID_PREFIX}/${kind}-sha256/${digest}/${readable}`;
}

/**
 * Maps an alert to one AWS Security Finding Format finding for `BatchImportFindings` into the account's
 * `default` product. The fields, and why each is as it is:
 *
 * - `Id` ({@link findingId}): the posture finding's id or the alert's fingerprint. `GeneratorId`: the
 *   rule id. `ProductName`: `atlas-audit-alerts` (a custom integration may set it).
 * - `Title` and `Description`: the alert's title and summary as plain text, control and invisible
 *   characters removed, cut to 256 and 1,024 characters without splitting a surrogate pair;
 *   `Remediation.Recommendation.Text`: the runbook, cut to 512.
 * - `Severity.Label` from ours (info gives INFORMATIONAL ... critical gives CRITICAL), `Severity.Original`
 *   ours; `Types` from the rule's tags (see `findingTypes`). Both are also in `FindingProviderFields`:
 *   the documented way a finding provider updates them, which leaves a customer's own changes to the
 *   top-level fields in place.
 * - Times: `FirstObservedAt` the oldest event's `created`; `LastObservedAt`, `CreatedAt` and
 *   `UpdatedAt` the newest's (each no later than `raisedAt`; `raisedAt` where no event has a valid
 *   time). A finding is created with `CreatedAt` equal to `UpdatedAt`, and an update must carry an
 *   `UpdatedAt` later than every earlier one ("UpdatedAt", asff-required-attributes): Security Hub
 *   ignores an update of an existing `Id` whose `UpdatedAt` is earlier than the stored one
 *   ("Determining whether to create or update a finding", finding-update-batchimportfindings; both
 *   in the Security Hub User Guide). The snapshot that resolves or reopens a posture finding is taken
 *   after the one that opened it, so each state change lands; importing the same alert again changes
 *   nothing.
 * - `Resources`: the organization, project, API key or service account and cluster the alert is about,
 *   from its context and events, as `Other` resources with ids and names in `Details.Other`; at most 32.
 *   An alert that names none gets its connection as the one resource (ASFF needs at least one).
 * - `SourceUrl`: the console page of the newest event, where there is one. `ProductFields`: the
 *   connection, fingerprint, rule name and pack, event types and ids, actors, the Admin API link.
 * - Lifecycle: an open finding is `RecordState: ACTIVE`, `Workflow.Status: NEW`; a posture finding also
 *   carries `Compliance.Status: FAILED`. A resolved posture finding is `RecordState: ARCHIVED` with
 *   `Compliance.Status: PASSED` and `Workflow.Status: RESOLVED`. `BatchImportFindings` takes
 *   `Workflow` only when it creates a finding and ignores it on an update ("Restricted fields for
 *   BatchImportFindings", same page; the API reference of `BatchImportFindings` says the same), so
 *   the resolution of an existing finding is its `RecordState` and `Compliance.Status`; a reopened
 *   one goes back to `ACTIVE`, and Security Hub resets its workflow to `NEW` when `RecordState` goes
 *   from `ARCHIVED` to `ACTIVE` or `Compliance.Status` from `PASSED` to `FAILED` ("Setting the workflow
 *   status of findings", findings-workflow-status; the `Workflow` API reference).
 *
 * Every value taken from an event or a name is hostile: the finding stays within every ASFF limit (see
 * `asff-limits.ts`) and 240 KB whatever the alert holds. Never throws for an alert's content.
 *
 * @throws {NotifyConfigError} when the account id, Region or partition is not one.
 * @example
 * ```ts
 * const finding = toAsffFinding(alert, { accountId: '123456789012', region: 'eu-west-1', context });
 * await client.send(new BatchImportFindingsCommand({ Findings: [finding] }));
 * ```
 */
export function toAsffFinding(alert: Alert, options: AsffFindingOptions): AwsSecurityFinding {
  const productArn = defaultProductArn(options);
  const events = Array.isArray(alert.events) ? alert.events.filter(isEvent) : [];
  const newest = events.at(-1);
  const facts = describeAlert({ events, ...(alert.context === undefined ? {} : { context: alert.context }) });
  const times = findingTimes(events, alert.raisedAt, options.context?.now);
  const posture = alertFinding({ events });
  // A severity not ours (the type forbids one; an alert made by hand may hold one) reads MEDIUM:
  // neither hidden among the informational findings nor paging anyone as critical.
  const label = SEVERITY_LABEL[String(alert.severity)] ?? 'MEDIUM';
  const original = lineWithin(alert.severity, MAX_SEVERITY_ORIGINAL_LENGTH) ?? 'unknown';
  const types = findingTypes(alert.tags);
  const title =
    lineWithin(alert.title, MAX_TITLE_LENGTH) ??
    lineWithin(alert.ruleName, MAX_TITLE_LENGTH) ??
    lineWithin(alert.ruleId, MAX_TITLE_LENGTH) ??
    'Atlas audit alert';
  const description = multilineWithin(alert.summary, MAX_DESCRIPTION_LENGTH) ?? title;
  const runbook = multilineWithin(alert.runbook, MAX_RECOMMENDATION_TEXT_LENGTH);
  const sourceUrl = consoleLink(newest, options.context, alert);
  const resolved = posture?.state === 'resolved';

  const finding: AwsSecurityFinding = {
    SchemaVersion: ASFF_SCHEMA_VERSION,
    Id: findingId({ events, fingerprint: alert.fingerprint }),
    ProductArn: productArn,
    ProductName: PRODUCT_NAME,
    GeneratorId: lineWithin(alert.ruleId, MAX_GENERATOR_ID_LENGTH) ?? PRODUCT_NAME,
    AwsAccountId: options.accountId,
    Types: types,
    FirstObservedAt: iso(times.first),
    LastObservedAt: iso(times.last),
    CreatedAt: iso(times.last),
    UpdatedAt: iso(times.last),
    Severity: { Label: label, Original: original },
    Title: title,
    Description: description,
    ...(runbook === undefined ? {} : { Remediation: { Recommendation: { Text: runbook } } }),
    ...(sourceUrl === undefined ? {} : { SourceUrl: sourceUrl }),
    ProductFields: productFields(alert, events, facts.actors, facts.moreActors, posture),
    Resources: findingResources(alert, events),
    ...(posture === undefined ? {} : { Compliance: { Status: resolved ? 'PASSED' : 'FAILED' } }),
    Workflow: { Status: resolved ? 'RESOLVED' : 'NEW' },
    RecordState: resolved ? 'ARCHIVED' : 'ACTIVE',
    FindingProviderFields: { Severity: { Label: label, Original: original }, Types: types },
  };
  return finding;
}

interface FindingTimes {
  first: number;
  last: number;
}

/**
 * The oldest and newest valid event time, each no later than `raisedAt` (an event stamped ahead of our
 * clock must not hold a finding's `UpdatedAt` in the future, where no later update could pass it).
 */
function findingTimes(events: readonly AtlasEvent[], raisedAt: unknown, now: unknown): FindingTimes {
  const raised = validTime(raisedAt) ?? validTime(now) ?? 0;
  let first: number | undefined;
  let last: number | undefined;
  for (const event of events) {
    const time = validTime(parseEventTime(event.created));
    if (time === undefined) continue;
    const at = Math.min(time, raised);
    first = first === undefined ? at : Math.min(first, at);
    last = last === undefined ? at : Math.max(last, at);
  }
  return { first: first ?? raised, last: last ?? raised };
}

function validTime(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 && value <= LAST_ISO_TIME
    ? value
    : undefined;
}

/** `2026-11-22T06:12:41.000Z`: RFC 3339, as Security Hub's timestamps take. */
function iso(time: number): string {
  return new Date(time).toISOString();
}

function consoleLink(
  event: AtlasEvent | undefined,
  context: FormatContext | undefined,
  alert: Alert,
): string | undefined {
  if (event === undefined || context === undefined) return undefined;
  const link = eventLinks(event, consoleOf(context, alert)).find((candidate) => candidate.kind === 'console');
  return link !== undefined && link.url.length <= MAX_SOURCE_URL_LENGTH ? link.url : undefined;
}

function apiLink(event: AtlasEvent | undefined): string | undefined {
  if (event === undefined) return undefined;
  const link = eventLinks(event).find((candidate) => candidate.kind === 'api');
  return link !== undefined && link.url.length <= MAX_PRODUCT_FIELD_VALUE_LENGTH ? link.url : undefined;
}

/**
 * Solution-specific details, each a string of at most 2,048 characters. A dozen keys at most, well
 * under the 50 ASFF allows: Security Hub adds keys of its own (`aws/securityhub/...`) to the same map.
 */
function productFields(
  alert: Alert,
  events: readonly AtlasEvent[],
  actors: readonly string[],
  moreActors: number,
  posture: ReturnType<typeof alertFinding>,
): Record<string, string> {
  const fields: Record<string, string> = { ProviderName: PRODUCT_NAME };
  const put = (key: string, value: unknown): void => {
    const text = lineWithin(value, MAX_PRODUCT_FIELD_VALUE_LENGTH);
    if (text !== undefined) fields[key] = text;
  };
  put('ProviderVersion', alert.rulePack?.version);
  put('RuleName', alert.ruleName);
  if (Array.isArray(alert.rulePack?.layers)) put('RuleLayers', alert.rulePack.layers.join(', '));
  put('Connection', alert.context?.connection ?? 'default');
  put('Fingerprint', alert.fingerprint);
  put('EventTypes', joinWithin(distinctTexts(events.map((event) => event.eventTypeName))));
  put('EventIds', joinWithin(events.map((event) => event.id)));
  put('EventCount', String(events.length));
  if (actors.length > 0)
    put('Actors', `${actors.join('; ')}${moreActors > 0 ? ` and ${moreActors} more` : ''}`);
  put('AdminApiLink', apiLink(events.at(-1)));
  if (posture !== undefined) {
    put('PostureFinding', posture.id);
    put('PostureFindingState', posture.state);
  }
  return fields;
}

/** Texts joined by `, ` up to the ProductFields value limit, without building a longer string first. */
function joinWithin(values: readonly unknown[]): string | undefined {
  let joined = '';
  for (const value of values) {
    const text = lineWithin(value, MAX_RESOURCE_PART_LENGTH);
    if (text === undefined) continue;
    const next = joined === '' ? text : `${joined}, ${text}`;
    if (next.length > MAX_PRODUCT_FIELD_VALUE_LENGTH)
      return `${truncateText(next, MAX_PRODUCT_FIELD_VALUE_LENGTH)}`;
    joined = next;
  }
  return joined === '' ? undefined : joined;
}

function distinctTexts(values: readonly unknown[]): string[] {
  return [...new Set(values.filter((value): value is string => typeof value === 'string'))];
}

/** A resource being collected: its `Id` and the pairs of its `Details.Other`. */
interface ResourceDraft {
  id: string;
  details: Record<string, string>;
}

/**
 * The Atlas things an alert is about as `Other` resources, in order: organizations, projects, the API
 * key or service account, clusters. Ids come from the alert's context and from every event (a
 * threshold alert's events may name several projects); names from the context, for the ids it names.
 */
function findingResources(alert: Alert, events: readonly AtlasEvent[]): Resource[] {
  const context = alert.context;
  const drafts = new Map<string, ResourceDraft>();
  // A thing named twice (the key of the context and of the event) is one resource with what both say.
  const add = (id: string | undefined, details: Record<string, string | undefined>): void => {
    if (id === undefined || id.length > MAX_RESOURCE_ID_LENGTH) return;
    const draft = drafts.get(id) ?? { id, details: {} };
    for (const [key, value] of Object.entries(details)) {
      if (value !== undefined && draft.details[key] === undefined) draft.details[key] = value;
    }
    drafts.set(id, draft);
  };
  const connection = part(context?.connection);

  for (const orgId of distinctParts([context?.orgId, ...events.map((event) => event.orgId)])) {
    add(`atlas:organization/${orgId}`, {
      Kind: 'organization',
      OrgId: orgId,
      OrgName: orgId === part(context?.orgId) ? part(context?.orgName) : undefined,
      Connection: connection,
    });
  }
  for (const groupId of distinctParts([context?.projectId, ...events.map((event) => event.groupId)])) {
    const known = groupId === part(context?.projectId);
    add(`atlas:project/${groupId}`, {
      Kind: 'project',
      ProjectId: groupId,
      ProjectName: known ? part(context?.projectName) : undefined,
      OrgId: known ? part(context?.orgId) : undefined,
      Connection: connection,
    });
  }
  const credential = context?.credential;
  if (credential !== undefined && typeof credential === 'object') {
    const id = part(credential.id);
    const roles = Array.isArray(credential.roles)
      ? lineWithin(credential.roles.join('; '), MAX_OTHER_DETAIL_VALUE_LENGTH)
      : undefined;
    if (credential.kind === 'service-account') {
      add(id === undefined ? undefined : `atlas:service-account/${id}`, {
        Kind: 'service-account',
        ClientId: id,
        Name: part(credential.name),
        Description: part(credential.description),
        Roles: roles,
      });
    } else {
      add(id === undefined ? undefined : `atlas:api-key/${id}`, {
        Kind: 'api-key',
        PublicKey: id,
        Description: part(credential.description),
        Roles: roles,
      });
    }
  }
  for (const event of events) {
    const publicKey = part(event.targetPublicKey);
    if (publicKey !== undefined) {
      add(`atlas:api-key/${publicKey}`, {
        Kind: 'api-key',
        PublicKey: publicKey,
        ApiKeyId: part(event.apiKeyId),
        Description: part(event.apiKeyDescription),
      });
    }
    const clientId = part(event.serviceAccountClientId) ?? part(event.targetClientId);
    if (clientId !== undefined) {
      add(`atlas:service-account/${clientId}`, {
        Kind: 'service-account',
        ClientId: clientId,
        Name: part(event.serviceAccountName),
      });
    }
    if (drafts.size >= MAX_RESOURCES) break;
  }
  for (const event of events) {
    const cluster = part(event.clusterName);
    if (cluster === undefined) continue;
    const groupId = part(event.groupId);
    add(groupId === undefined ? `atlas:cluster/${cluster}` : `atlas:project/${groupId}/cluster/${cluster}`, {
      Kind: 'cluster',
      ClusterName: cluster,
      ProjectId: groupId,
    });
    if (drafts.size >= MAX_RESOURCES) break;
  }
  if (drafts.size === 0) {
    const name = connection ?? 'default';
    add(`atlas:connection/${name}`, { Kind: 'connection', Connection: name });
  }

  const resources: Resource[] = [];
  let bytes = 0;
  for (const draft of drafts.values()) {
    const resource: Resource = { Type: 'Other', Id: draft.id, Details: { Other: draft.details } };
    bytes += Buffer.byteLength(JSON.stringify(resource));
    if (resources.length > 0 && (resources.length >= MAX_RESOURCES || bytes > MAX_RESOURCES_BYTES)) break;
    resources.push(resource);
  }
  return resources;
}

/** An id or a name as a resource holds it: one clean line of at most 200 characters, or nothing. */
function part(value: unknown): string | undefined {
  return lineWithin(value, MAX_RESOURCE_PART_LENGTH);
}

function distinctParts(values: readonly unknown[]): string[] {
  const parts = new Set<string>();
  for (const value of values) {
    if (parts.size >= MAX_RESOURCES) break;
    const text = part(value);
    if (text !== undefined) parts.add(text);
  }
  return [...parts];
}

/**
 * One line of text within `max` characters: line breaks and tabs made spaces, control characters
 * made U+FFFD, bidi controls, invisible characters and lone surrogates removed or replaced, cut
 * without splitting a surrogate pair. `undefined` for anything but a string holding a visible
 * character. Numbers and booleans are written as text.
 */
function lineWithin(value: unknown, max: number): string | undefined {
  const text = typeof value === 'number' || typeof value === 'boolean' ? String(value) : value;
  if (typeof text !== 'string') return undefined;
  const line = removeInvisible(cleanLineWithin(text, max)).trim();
  return line === '' ? undefined : line;
}

/** Like {@link lineWithin}, keeping line breaks (as `\n`): a summary or a runbook. */
function multilineWithin(value: unknown, max: number): string | undefined {
  if (typeof value !== 'string') return undefined;
  // Cleaning never lengthens text: a head of twice the room is enough, and a huge value is never
  // cleaned whole.
  const head = sliceCodePoints(value, max * 2 + 8);
  const cleaned = removeInvisible(cleanMultiline(head)).trim();
  if (cleaned === '') return undefined;
  if (head.length < value.length && cleaned.length <= max) {
    return `${sliceCodePoints(cleaned, max - 1)}\u2026`;
  }
  return truncateText(cleaned, max);
}

function isEvent(value: unknown): value is AtlasEvent {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
