import type { AwsSecurityFinding } from '@aws-sdk/client-securityhub';
import { beforeAll, describe, expect, it } from 'vitest';
import { generateAlertMix } from '../../../bench/support/alert-mix.js';
import type { AtlasEvent } from '../../../shared/atlas/types.js';
import type { Alert } from '../../../shared/notify/alert.js';
import type { FormatContext } from '../../../shared/notify/format-context.js';
import { toAsffFinding } from '../../../shared/notify/security-hub/asff-finding.js';
import { validateAsffFinding } from '../../../shared/notify/security-hub/validate-asff-finding.js';
import {
  ATLAS_CONTEXT,
  accessListEvent,
  apiKeyCreatedEvent,
  automationConfigEvent,
  dataExplorerEvent,
  HOSTILE_VALUES,
  INVENTORY_CONTEXT,
  inventoryEntryEvent,
  makeAlert,
  NOW,
} from '../support/alerts.js';
import { demoAlerts } from '../support/demo-alerts.js';
import { POSTURE, postureOpeningAlerts, postureResolvedAlert, SNAPSHOTS } from '../support/posture-alerts.js';
import { variedAlerts } from '../support/varied-alerts.js';

/**
 * What AWS documents for each field a finding of ours carries, written down once, independently of the
 * code under test. Sources (AWS Security Hub documentation):
 *
 * - API Reference, "AwsSecurityFinding" (API_AwsSecurityFinding): lengths of `Id`, `GeneratorId`,
 *   `ProductArn`, `ProductName`, `Title`, `Description`, `AwsAccountId`; `Types` at most 50;
 *   `Resources` 1 to 32; `ProductFields` 50 pairs, keys up to 128 and values up to 2,048 characters;
 *   every string holding a character that is not white space (pattern `.*\S.*`).
 * - API Reference, "Severity", "FindingProviderSeverity" (`Original` 1 to 64), "Recommendation" (`Text`
 *   1 to 512), "Workflow", "Compliance", "Resource" (`Type` 1 to 256), "Welcome#timestamps"
 *   (RFC 3339, at most nine fraction digits).
 * - User Guide, "Required top-level ASFF attributes" (asff-required-attributes): the required fields;
 *   "UpdatedAt": equal to `CreatedAt` when a finding is created; the default product ARN's form.
 * - User Guide, "Other" (asff-resourcedetails-other): `Details.Other` 50 pairs, keys fewer than 128
 *   characters, values fewer than 1,024.
 * - User Guide, "Types taxonomy for ASFF": `namespace/category/classifier`, the five namespaces, a
 *   partial path allowed.
 * - User Guide, "BatchImportFindings for finding providers": 240 KB a finding.
 */
type Requirement =
  | { kind: 'string'; min?: number; max?: number; pattern?: RegExp; oneOf?: readonly string[] }
  | { kind: 'timestamp' }
  | { kind: 'array'; min?: number; max: number }
  | { kind: 'object' }
  | { kind: 'map'; maxPairs: number; maxKey: number; maxValue: number };

const NAMESPACES = [
  'Software and Configuration Checks',
  'TTPs',
  'Effects',
  'Unusual Behaviors',
  'Sensitive Data Identifications',
];
const TYPE = new RegExp(`^(${NAMESPACES.join('|')})(/[^/]*[^/\\s][^/]*){0,2}$`);
const LABELS = ['INFORMATIONAL', 'LOW', 'MEDIUM', 'HIGH', 'CRITICAL'];
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}(:?\d{2})?)$/;

/** Every field path a finding of ours may hold (`[]` an array's items), and what AWS requires of it. */
const ASFF: Readonly<Record<string, Requirement>> = {
  SchemaVersion: { kind: 'string', oneOf: ['2018-10-08'] },
  Id: { kind: 'string', min: 1, max: 512 },
  ProductArn: {
    kind: 'string',
    min: 12,
    max: 2_048,
    pattern: /^arn:aws(-[a-z]+)*:securityhub:[a-z0-9-]+:\d{12}:product\/\d{12}\/default$/,
  },
  ProductName: { kind: 'string', min: 1, max: 128 },
  GeneratorId: { kind: 'string', min: 1, max: 512 },
  AwsAccountId: { kind: 'string', pattern: /^\d{12}$/ },
  Types: { kind: 'array', min: 1, max: 50 },
  'Types[]': { kind: 'string', pattern: TYPE },
  FirstObservedAt: { kind: 'timestamp' },
  LastObservedAt: { kind: 'timestamp' },
  CreatedAt: { kind: 'timestamp' },
  UpdatedAt: { kind: 'timestamp' },
  Severity: { kind: 'object' },
  'Severity.Label': { kind: 'string', oneOf: LABELS },
  'Severity.Original': { kind: 'string', min: 1, max: 64 },
  Title: { kind: 'string', min: 1, max: 256 },
  Description: { kind: 'string', min: 1, max: 1_024 },
  Remediation: { kind: 'object' },
  'Remediation.Recommendation': { kind: 'object' },
  'Remediation.Recommendation.Text': { kind: 'string', min: 1, max: 512 },
  SourceUrl: { kind: 'string', pattern: /^https?:\/\/\S+$/ },
  ProductFields: { kind: 'map', maxPairs: 50, maxKey: 128, maxValue: 2_048 },
  Resources: { kind: 'array', min: 1, max: 32 },
  'Resources[]': { kind: 'object' },
  'Resources[].Type': { kind: 'string', min: 1, max: 256 },
  'Resources[].Id': { kind: 'string', min: 1 },
  'Resources[].Details': { kind: 'object' },
  'Resources[].Details.Other': { kind: 'map', maxPairs: 50, maxKey: 127, maxValue: 1_023 },
  Compliance: { kind: 'object' },
  'Compliance.Status': { kind: 'string', oneOf: ['PASSED', 'WARNING', 'FAILED', 'NOT_AVAILABLE'] },
  Workflow: { kind: 'object' },
  'Workflow.Status': { kind: 'string', oneOf: ['NEW', 'NOTIFIED', 'RESOLVED', 'SUPPRESSED'] },
  RecordState: { kind: 'string', oneOf: ['ACTIVE', 'ARCHIVED'] },
  FindingProviderFields: { kind: 'object' },
  'FindingProviderFields.Severity': { kind: 'object' },
  'FindingProviderFields.Severity.Label': { kind: 'string', oneOf: LABELS },
  'FindingProviderFields.Severity.Original': { kind: 'string', min: 1, max: 64 },
  'FindingProviderFields.Types': { kind: 'array', min: 1, max: 50 },
  'FindingProviderFields.Types[]': { kind: 'string', pattern: TYPE },
};

/** "Required top-level ASFF attributes". */
const REQUIRED = [
  'AwsAccountId',
  'CreatedAt',
  'Description',
  'GeneratorId',
  'Id',
  'ProductArn',
  'Resources',
  'SchemaVersion',
  'Severity',
  'Title',
  'Types',
  'UpdatedAt',
];
/** "240 Kb" a finding, read as the smaller 240,000 bytes. */
const MAX_FINDING_BYTES = 240_000;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Every requirement `finding` breaks, one sentence each, with the path of the field. */
function asffProblems(finding: AwsSecurityFinding): string[] {
  const problems: string[] = [];
  const record = finding as unknown as Record<string, unknown>;
  for (const name of REQUIRED) if (record[name] === undefined) problems.push(`${name} is required`);
  const walk = (value: unknown, path: string): void => {
    const requirement = ASFF[path];
    if (requirement === undefined) {
      problems.push(`${path} is a field no requirement covers`);
      return;
    }
    problems.push(...fieldProblems(path, value, requirement));
    if (requirement.kind === 'array' && Array.isArray(value)) {
      for (const item of value) walk(item, `${path}[]`);
    } else if (requirement.kind === 'object' && typeof value === 'object' && value !== null) {
      for (const [key, child] of Object.entries(value)) {
        walk(child, `${path}.${key}`);
      }
    }
  };
  for (const [key, value] of Object.entries(record)) walk(value, key);
  for (const name of ['CreatedAt', 'UpdatedAt', 'FirstObservedAt', 'LastObservedAt'] as const) {
    if (Number.isNaN(Date.parse(String(record[name])))) problems.push(`${name} is not a date`);
  }
  if (record.CreatedAt !== record.UpdatedAt) problems.push('CreatedAt and UpdatedAt differ on a new record');
  if (Date.parse(String(record.FirstObservedAt)) > Date.parse(String(record.LastObservedAt))) {
    problems.push('FirstObservedAt is after LastObservedAt');
  }
  const bytes = Buffer.byteLength(JSON.stringify(finding));
  if (bytes > MAX_FINDING_BYTES) problems.push(`the finding takes ${bytes} bytes`);
  return problems;
}

function fieldProblems(path: string, value: unknown, requirement: Requirement): string[] {
  const problems: string[] = [];
  switch (requirement.kind) {
    case 'string': {
      if (typeof value !== 'string') return [`${path} is not a string`];
      if (LONE_SURROGATE.test(value))
        problems.push(`${path} holds a lone surrogate: no UTF-8 body can carry it`);
      if (!/\S/.test(value)) problems.push(`${path} holds no character that is not white space`);
      if (requirement.min !== undefined && value.length < requirement.min)
        problems.push(`${path} is too short`);
      if (requirement.max !== undefined && value.length > requirement.max) {
        problems.push(`${path} has ${value.length} characters, more than ${requirement.max}`);
      }
      if (requirement.pattern !== undefined && !requirement.pattern.test(value)) {
        problems.push(`${path} "${value.slice(0, 80)}" does not match ${requirement.pattern}`);
      }
      if (requirement.oneOf !== undefined && !requirement.oneOf.includes(value)) {
        problems.push(`${path} "${value.slice(0, 80)}" is not one of ${requirement.oneOf.join(', ')}`);
      }
      return problems;
    }
    case 'timestamp':
      return typeof value === 'string' && TIMESTAMP.test(value) ? [] : [`${path} is not an RFC 3339 time`];
    case 'array':
      if (!Array.isArray(value)) return [`${path} is not an array`];
      return value.length < (requirement.min ?? 0) || value.length > requirement.max
        ? [`${path} holds ${value.length} items, not ${requirement.min ?? 0} to ${requirement.max}`]
        : [];
    case 'object':
      return typeof value === 'object' && value !== null && !Array.isArray(value)
        ? []
        : [`${path} is not an object`];
    case 'map': {
      if (typeof value !== 'object' || value === null || Array.isArray(value))
        return [`${path} is not a map`];
      const entries = Object.entries(value);
      if (entries.length > requirement.maxPairs) problems.push(`${path} holds ${entries.length} pairs`);
      for (const [key, item] of entries) {
        if (key.length === 0 || key.length > requirement.maxKey)
          problems.push(`${path} has a key of ${key.length}`);
        if (LONE_SURROGATE.test(key)) problems.push(`${path} has a key with a lone surrogate`);
        if (typeof item !== 'string') problems.push(`${path}.${key} is not a string`);
        else if (LONE_SURROGATE.test(item)) problems.push(`${path}.${key} holds a lone surrogate`);
        else if (item.length > requirement.maxValue)
          problems.push(`${path}.${key} has ${item.length} characters`);
      }
      return problems;
    }
  }
}

const TARGET = { accountId: '123456789012', region: 'eu-west-1' };

interface Case {
  name: string;
  alert: Alert;
  context: FormatContext;
}

/** Alerts whose values take every hostile shape the formatters are tested with, named for failures. */
function hostileCases(): Case[] {
  const huge = 'x\u202E<!channel>\u0000\n😀'.repeat(150_000);
  const emojiEdge = `${'a'.repeat(255)}😀 and more`;
  const manyEvents: AtlasEvent[] = Array.from({ length: 200 }, (_, index) =>
    accessListEvent({
      id: `e-${index}`,
      orgId: `org-${index}`,
      groupId: `group-${index}`,
      clusterName: `cluster-${index}\u0007`,
      targetPublicKey: `key-${index}`,
    }),
  );
  const cases: Array<[string, Partial<Alert>]> = [
    ['a title and summary of a megabyte', { title: huge, summary: huge, runbook: huge, ruleName: huge }],
    ['a surrogate pair at the title cut', { title: emojiEdge, summary: `${'b'.repeat(1_023)}😀` }],
    ['a blank title and summary', { title: ' \u200B\n ', summary: '\u0000\u0007', runbook: '   ' }],
    [
      'lone surrogates everywhere',
      { title: 'a\uD800b', summary: '\uDC00', ruleId: 'r\uD800', fingerprint: 'f\uDFFF' },
    ],
    [
      'a huge fingerprint and rule id',
      { fingerprint: huge, ruleId: huge, tags: [huge, 'a/b/c', '', '\u0000'] },
    ],
    ['sixty tags', { tags: Array.from({ length: 60 }, (_, index) => `tag-${index}`) }],
    ['two hundred events naming different places', { events: manyEvents }],
    ['an event from the far future', { events: [accessListEvent({ created: '9999-12-31T23:59:59Z' })] }],
    ['an event before 1970', { events: [accessListEvent({ created: '0001-01-01T00:00:00Z' })] }],
    ['no events and no valid time', { events: [], raisedAt: Number.NaN }],
    ['events that are not objects', { events: [null, 'text', 42, []] as unknown as AtlasEvent[] }],
    ['a severity not ours', { severity: 'catastrophic' as Alert['severity'] }],
    [
      'every hostile value in every field',
      {
        events: HOSTILE_VALUES.map((value, index) =>
          accessListEvent({
            id: `${value}-${index}`,
            orgId: value,
            groupId: value,
            username: value,
            clusterName: value,
            eventTypeName: value,
            created: value,
            targetPublicKey: value,
            serviceAccountClientId: value,
            postureFinding: value,
          }),
        ),
        context: {
          orgId: HOSTILE_VALUES[0],
          orgName: HOSTILE_VALUES.join(''),
          connection: HOSTILE_VALUES[12],
          credential: {
            kind: 'service-account',
            id: HOSTILE_VALUES[13],
            name: HOSTILE_VALUES[14],
            roles: [...HOSTILE_VALUES],
            snapshotTakenAt: 0,
          },
        },
        rulePack: { version: HOSTILE_VALUES[12], layers: [...HOSTILE_VALUES] },
      },
    ],
  ];
  return cases.map(([name, overrides]) => ({ name, alert: makeAlert(overrides), context: ATLAS_CONTEXT }));
}

describe('ASFF findings of real and hostile alerts', () => {
  let cases: Case[];

  beforeAll(async () => {
    const demo = await demoAlerts();
    const mix = await generateAlertMix({ count: 300, seed: 11 });
    const opened = await postureOpeningAlerts(SNAPSHOTS.first);
    const reopened = await postureOpeningAlerts(SNAPSHOTS.third, SNAPSHOTS.second);
    const fixtures = [
      makeAlert(),
      makeAlert({ events: [apiKeyCreatedEvent()], tags: ['api-keys', 'persistence'] }),
      makeAlert({ events: [dataExplorerEvent()], tags: ['data-explorer', 'impact'] }),
      makeAlert({ events: [automationConfigEvent()], tags: [] }),
      makeAlert({ events: [inventoryEntryEvent()], context: INVENTORY_CONTEXT }),
      ...Object.values(POSTURE).map((finding) => postureResolvedAlert(finding, SNAPSHOTS.second)),
    ];
    cases = [
      ...[...demo, ...mix, ...opened, ...reopened, ...fixtures].map((alert, index) => ({
        name: `${alert.ruleId} #${index}`,
        alert,
        context: ATLAS_CONTEXT,
      })),
      ...variedAlerts(mix.slice(0, 150), { seed: 5, variants: 3, hugeEvery: 40, now: NOW }).map(
        ({ alert, context }, index) => ({
          name: `varied #${index} (${alert.ruleId.slice(0, 60)})`,
          alert,
          context,
        }),
      ),
      ...hostileCases(),
    ];
  }, 120_000);

  it('covers the demo, the built-in rules over the event mix, posture findings and hostile values', () => {
    expect(cases.length).toBeGreaterThan(900);
    const rules = new Set(cases.map(({ alert }) => alert.ruleId));
    expect(rules.size).toBeGreaterThan(60);
    expect(cases.some(({ alert }) => alert.ruleId === 'inventory-finding-resolved')).toBe(true);
  });

  it('meets every documented requirement for every field of every finding', () => {
    const failures: string[] = [];
    for (const { name, alert, context } of cases) {
      const problems = asffProblems(toAsffFinding(alert, { ...TARGET, context }));
      if (problems.length > 0) failures.push(`${name}: ${problems.join('; ')}`);
    }
    expect(failures.slice(0, 10)).toEqual([]);
  });

  it('passes the check the notifier runs before sending', () => {
    const refused = cases
      .map(({ name, alert, context }) => ({
        name,
        result: validateAsffFinding(toAsffFinding(alert, { ...TARGET, context })),
      }))
      .filter(({ result }) => !result.valid);
    expect(refused.slice(0, 5)).toEqual([]);
  });

  it('names each alert apart: distinct alerts give distinct ids, except alerts of one posture finding', () => {
    const byId = new Map<string, Set<string>>();
    for (const { alert } of cases) {
      const id = toAsffFinding(alert, { ...TARGET, context: ATLAS_CONTEXT }).Id as string;
      byId.set(id, (byId.get(id) ?? new Set()).add(alert.fingerprint));
    }
    const shared = [...byId].filter(
      ([id, fingerprints]) => fingerprints.size > 1 && !id.includes('/posture/'),
    );
    expect(shared).toEqual([]);
  });
});

describe('the ASFF requirements check', () => {
  const good = toAsffFinding(makeAlert(), { ...TARGET, context: ATLAS_CONTEXT });
  const broken = (change: (finding: Record<string, unknown>) => void): string[] => {
    const copy = structuredClone(good) as unknown as Record<string, unknown>;
    change(copy);
    return asffProblems(copy as unknown as AwsSecurityFinding);
  };

  it('passes a finding built from an ordinary alert', () => {
    expect(asffProblems(good)).toEqual([]);
  });

  it.each([
    ['a required field missing', (f: Record<string, unknown>) => delete f.Types, /Types is required/],
    ['a title too long', (f: Record<string, unknown>) => (f.Title = 't'.repeat(257)), /Title has 257/],
    ['a blank description', (f: Record<string, unknown>) => (f.Description = '  '), /white space/],
    ['a type outside the taxonomy', (f: Record<string, unknown>) => (f.Types = ['Atlas/x']), /Types\[\]/],
    ['a type of four segments', (f: Record<string, unknown>) => (f.Types = ['TTPs/a/b/c']), /Types\[\]/],
    [
      'a severity label of ours',
      (f: Record<string, unknown>) => (f.Severity = { Label: 'critical' }),
      /Label/,
    ],
    [
      'a time without a zone',
      (f: Record<string, unknown>) => (f.UpdatedAt = '2026-11-22T06:12:41'),
      /UpdatedAt/,
    ],
    [
      '33 resources',
      (f: Record<string, unknown>) => (f.Resources = Array(33).fill({ Type: 'Other', Id: 'x' })),
      /33 items/,
    ],
    [
      'a product field too long',
      (f: Record<string, unknown>) => (f.ProductFields = { Key: 'v'.repeat(2_049) }),
      /2049 characters/,
    ],
    [
      'a resource detail of 1,024 characters',
      (f: Record<string, unknown>) =>
        (f.Resources = [{ Type: 'Other', Id: 'x', Details: { Other: { K: 'v'.repeat(1_024) } } }]),
      /1024 characters/,
    ],
    [
      'a field nobody checks',
      (f: Record<string, unknown>) => (f.Note = { Text: 'x' }),
      /no requirement covers/,
    ],
    ['a lone surrogate', (f: Record<string, unknown>) => (f.Title = 'a\uD800'), /lone surrogate/],
    [
      'a finding of 300 KB',
      (f: Record<string, unknown>) =>
        (f.Resources = Array.from({ length: 30 }, (_, i) => ({
          Type: 'Other',
          Id: `${i}`,
          Details: {
            Other: Object.fromEntries(Array.from({ length: 20 }, (_, k) => [`k${k}`, 'é'.repeat(1_000)])),
          },
        }))),
      /bytes/,
    ],
  ])('fails %s', (_, change, expected) => {
    expect(broken(change).join('\n')).toMatch(expected);
  });
});
