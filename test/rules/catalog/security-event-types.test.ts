import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { AtlasEvent } from '../../../shared/atlas/types.js';
import type { EventCatalog } from '../../../shared/rules/catalog/event-catalog.js';
import {
  loadEventCatalog,
  loadSecurityEventTypes,
  parseSecurityEventTypes,
  ruleCoverage,
  SECURITY_EVENT_TYPES_FILE,
  SecurityEventTypesError,
} from '../../../shared/rules/lint/index.js';
import { loadRulePack } from '../../../shared/rules/loader.js';
import { collectRuleTests } from '../../../shared/rules/rule-tests.js';

const rulesDirectory = fileURLToPath(new URL('../../../rules/', import.meta.url));
const catalog = loadEventCatalog();
const security = loadSecurityEventTypes();
const pack = await loadRulePack({ paths: [rulesDirectory] });

/** Every field path of an event in rule syntax (`links[].href`, `raw.gn`), objects and arrays included. */
function eventPaths(value: unknown, prefix = ''): string[] {
  if (Array.isArray(value)) {
    const objects = value.filter((item) => typeof item === 'object' && item !== null);
    return objects.length === 0 ? [] : objects.flatMap((item) => eventPaths(item, `${prefix}[]`));
  }
  if (typeof value !== 'object' || value === null) return [];
  return Object.entries(value).flatMap(([key, inner]) => {
    const path = prefix === '' ? key : `${prefix}.${key}`;
    return [path, ...eventPaths(inner, path)];
  });
}

/**
 * What is wrong with an event body as Atlas v2 would send it for its type: fields the official
 * schema does not declare for the type, and a scope it does not have (a project type without
 * `groupId`, an organization type with one). Empty when the body has the official shape.
 */
function v2ShapeProblems(event: AtlasEvent, eventCatalog: EventCatalog): string[] {
  const type = eventCatalog.types.get(String(event.eventTypeName));
  if (type === undefined) return [`${String(event.eventTypeName)} is not in the catalog`];
  const declared = new Set(type.schemaFields);
  const open = type.schemaFields.filter((field) => field.endsWith('.*')).map((field) => field.slice(0, -1));
  const problems = eventPaths(event)
    .filter((path) => !declared.has(path) && !open.some((prefix) => path.startsWith(prefix)))
    .map((path) => `${path} is not declared for ${type.name}`);
  const project = type.scopes.includes('project');
  const organization = type.scopes.includes('organization');
  if (project && !organization && event.groupId === undefined)
    problems.push('a project event without groupId');
  if (organization && !project && event.groupId !== undefined)
    problems.push('an organization event with groupId');
  return problems;
}

describe('the list of security-relevant event types', () => {
  it('names only event types of the official Atlas v2 schema, each once', () => {
    const listed = security.areas.flatMap((area) => area.types.map((entry) => entry.type));

    const unknown = listed.filter((type) => !catalog.types.get(type)?.origins.includes('openapi'));

    expect(unknown).toEqual([]);
    expect(new Set(listed).size).toBe(listed.length);
    expect(listed.length).toBeGreaterThanOrEqual(200);
  });

  it('gives each type a one-line reason that ends a sentence', () => {
    const badReasons = [...security.types.values()].filter(
      ({ reason }) => reason.includes('\n') || !/[.)]$/.test(reason) || reason.length > 140,
    );

    expect(badReasons).toEqual([]);
  });

  it('refuses a type listed twice, naming both areas', () => {
    const text = `areas:
  - area: One
    types: [{ type: GROUP_DELETED, reason: Gone. }]
  - area: Two
    types: [{ type: GROUP_DELETED, reason: Gone again. }]
`;

    expect(() => parseSecurityEventTypes(text, 'list.yaml')).toThrow(
      new SecurityEventTypesError(
        'list.yaml: GROUP_DELETED is listed twice (in "One" and "Two"): keep one entry',
      ),
    );
  });

  it('refuses an entry without a reason, or with a key it does not know, naming where', () => {
    const noReason = 'areas:\n  - area: One\n    types: [{ type: GROUP_DELETED }]\n';
    const unknownKey = 'areas:\n  - area: One\n    types: [{ type: GROUP_DELETED, reason: Gone., why: x }]\n';

    expect(() => parseSecurityEventTypes(noReason, 'list.yaml')).toThrow(
      /^list\.yaml at areas\.0\.types\.0\.reason: /,
    );
    expect(() => parseSecurityEventTypes(unknownKey, 'list.yaml')).toThrow(
      /^list\.yaml at areas\.0\.types\.0: .*"why"/,
    );
  });

  it('refuses text that is not YAML with an error that names the file', () => {
    expect(() => parseSecurityEventTypes('areas: [', 'list.yaml')).toThrow(SecurityEventTypesError);
    expect(() => parseSecurityEventTypes('areas: [', 'list.yaml')).toThrow(/^list\.yaml is not valid YAML/);
  });

  it('is the committed file', () => {
    const again = parseSecurityEventTypes(readFileSync(SECURITY_EVENT_TYPES_FILE, 'utf8'), 'x');

    expect([...again.types.keys()]).toEqual([...security.types.keys()]);
  });
});

describe('the built-in pack over the security-relevant event types', () => {
  it('leaves no security-relevant type uncovered in rules coverage', () => {
    const coverage = ruleCoverage(pack, catalog, security);

    expect(coverage.security?.uncovered).toEqual([]);
    expect(coverage.security?.covered).toBe(security.types.size);
  });

  it('has, for every security-relevant type, an inline test whose event has the official shape and alerts', async () => {
    const shapedAlerts = new Set<string>();
    for (const test of collectRuleTests(pack)) {
      const spec = pack.tests.find((entry) => entry.ruleId === test.ruleId && entry.name === test.name)?.spec;
      if (spec === undefined || spec.expect.alert !== true) continue;
      const events = spec.events ?? (spec.event === undefined ? [] : [spec.event]);
      const wellShaped = events.every((event) => {
        const listed = security.types.get(String(event.eventTypeName));
        if (listed === undefined) return false;
        return listed.shape === 'api-document'
          ? eventPaths(event).every((path) => catalog.knowsPath(path, [listed.type]))
          : v2ShapeProblems(event, catalog).length === 0;
      });
      if (!wellShaped || events.length === 0 || !(await test.run()).passed) continue;
      for (const event of events) shapedAlerts.add(String(event.eventTypeName));
    }

    const missing = [...security.types.keys()].filter((type) => !shapedAlerts.has(type));

    expect(missing).toEqual([]);
  });

  it('judges a body with an undeclared field or the wrong scope as not of the official shape', () => {
    const good: AtlasEvent = {
      id: 'a',
      eventTypeName: 'CLUSTER_DELETED',
      groupId: 'g1',
      username: 'u',
      raw: { gn: 'x' },
    };

    expect(v2ShapeProblems(good, catalog)).toEqual([]);
    expect(v2ShapeProblems({ ...good, clusterName: 'prod' }, catalog)).toEqual([
      'clusterName is not declared for CLUSTER_DELETED',
    ]);
    expect(v2ShapeProblems({ id: 'b', eventTypeName: 'CLUSTER_DELETED' }, catalog)).toEqual([
      'a project event without groupId',
    ]);
    expect(
      v2ShapeProblems({ id: 'c', eventTypeName: 'ORG_USERS_WITHOUT_MFA', orgId: 'o', groupId: 'g' }, catalog),
    ).toEqual(['an organization event with groupId']);
  });
});
