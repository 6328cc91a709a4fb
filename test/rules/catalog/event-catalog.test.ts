import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { generateEventCatalog } from '../../../shared/rules/catalog/catalog-generation.js';
import {
  createEventCatalog,
  EVENT_CATALOG_FILE,
  EventCatalogError,
  loadEventCatalog,
} from '../../../shared/rules/catalog/event-catalog.js';
import { buildEventCatalogData } from '../../../shared/rules/catalog/event-catalog-data.js';
import { ACCESS_HISTORY_EVENT_TYPES, INVENTORY_EVENT_TYPES } from '../../../shared/rules/index.js';

const OPENAPI = fileURLToPath(new URL('../../../../shared/atlas/openapi-v2.yaml', import.meta.url));
const SPEC = fileURLToPath(new URL('../../../../shared/spec/000_954ac6e2b5d2ed21.txt', import.meta.url));
const inputsPresent = existsSync(OPENAPI) && existsSync(SPEC);

/** A catalog of two types, built as the script builds it. */
function smallCatalog() {
  return createEventCatalog(
    buildEventCatalogData({
      openApi: [
        {
          name: 'GROUP_DELETED',
          scope: 'project',
          views: ['V'],
          fields: [
            'groupId',
            'username',
            'links',
            'links[]',
            'links[].href',
            'raw',
            'raw.*',
            'currentValue',
            'currentValue.number',
          ],
          alertFields: ['status'],
        },
        { name: 'ORG_CREATED', scope: 'organization', views: ['W'], fields: ['orgId'], alertFields: [] },
      ],
      spec: { eventTypes: ['DATA_EXPLORER'], common: ['hostname'], byType: { DATA_EXPLORER: ['opType'] } },
      inventory: { INVENTORY_KEY_ADDED: ['roles', 'roles[]', 'roles[].roleName'] },
      accessHistory: { DB_AUTH_FAILED: ['username', 'failureReason'] },
      sources: ['test'],
    }),
  );
}

describe('the committed event catalog', () => {
  it.skipIf(!inputsPresent)(
    'is what npm run catalog generates from ../shared/atlas/openapi-v2.yaml (skipped when that file is absent)',
    async () => {
      const generated = await generateEventCatalog({ openApiPath: OPENAPI, specPath: SPEC });

      expect(readFileSync(EVENT_CATALOG_FILE, 'utf8')).toBe(generated);
    },
    // Parsing the 4 MB document takes seconds, more on a busy machine.
    180_000,
  );

  it('knows every Atlas v2 event type of both scopes, every inventory and every access-history event type', () => {
    const catalog = loadEventCatalog();
    const counts = { project: 0, organization: 0 };
    for (const type of catalog.types.values()) {
      if (type.origins.includes('openapi')) for (const scope of type.scopes) counts[scope]++;
    }

    expect(counts).toEqual({ project: 710, organization: 298 });
    for (const type of Object.values(INVENTORY_EVENT_TYPES)) {
      expect(catalog.types.get(type)).toMatchObject({ scopes: ['organization'], origins: ['inventory'] });
    }
    for (const type of Object.values(ACCESS_HISTORY_EVENT_TYPES)) {
      expect(catalog.types.get(type)).toMatchObject({ scopes: ['project'], origins: ['access-history'] });
    }
  });

  it('knows the fields of the access-history events, and no log line', () => {
    const catalog = loadEventCatalog();
    const types = Object.values(ACCESS_HISTORY_EVENT_TYPES);

    for (const field of [
      'username',
      'remoteAddress',
      'authSource',
      'hostname',
      'clusterName',
      'groupId',
      'source',
    ]) {
      expect(catalog.knowsPath(field, types), field).toBe(true);
    }
    expect(catalog.knowsPath('failureReason', ['DB_AUTH_FAILED'])).toBe(true);
    expect(catalog.knowsPath('failureReason', ['DB_AUTH_SUCCEEDED'])).toBe(false);
    expect(catalog.knowsPath('logLine', types)).toBe(false);
    expect(catalog.knowsPath('ipAddress', types)).toBe(false);
  });

  it('gives a type the fields of its view, of the implemented API document and of its alerts', () => {
    const catalog = loadEventCatalog();

    expect(catalog.knowsPath('whitelistEntry', ['API_KEY_ACCESS_LIST_ENTRY_ADDED'])).toBe(true);
    expect(catalog.knowsPath('accessListEntry', ['API_KEY_ACCESS_LIST_ENTRY_ADDED'])).toBe(true);
    expect(
      catalog.knowsPath('diffs[].priviileges[].resource.db', ['AUTOMATION_CONFIG_PUBLISHED_AUDIT']),
    ).toBe(true);
    expect(catalog.knowsPath('hostnameAndPort', ['OUTSIDE_METRIC_THRESHOLD'])).toBe(true);
    expect(catalog.knowsPath('diffs[].type', ['GROUP_DELETED'])).toBe(false);
    expect(catalog.knowsPath('whitelistEntry', ['SERVICE_ACCOUNT_ACCESS_LIST_ENTRY_ADDED'])).toBe(false);
  });
});

describe('createEventCatalog', () => {
  it('knows paths the types declare, their prefixes, and anything under an open field', () => {
    const catalog = smallCatalog();

    expect(catalog.knowsPath('groupId', ['GROUP_DELETED'])).toBe(true);
    expect(catalog.knowsPath('currentValue', ['GROUP_DELETED'])).toBe(true);
    expect(catalog.knowsPath('raw.anything.below', ['GROUP_DELETED'])).toBe(true);
    expect(catalog.knowsPath('status', ['GROUP_DELETED'])).toBe(true);
    expect(catalog.knowsPath('hostname', ['GROUP_DELETED'])).toBe(true);
    expect(catalog.knowsPath('groupId', ['ORG_CREATED'])).toBe(false);
    expect(catalog.knowsPath('opType', ['DATA_EXPLORER'])).toBe(true);
    expect(catalog.knowsPath('opType', ['GROUP_DELETED'])).toBe(false);
    expect(catalog.knowsPath('hostname', ['INVENTORY_KEY_ADDED'])).toBe(false);
    expect(catalog.knowsPath('groupId')).toBe(true);
  });

  it('needs the [] of an array before a nested field, and lets [] read a single object', () => {
    const catalog = smallCatalog();

    expect(catalog.knowsPath('links[].href', ['GROUP_DELETED'])).toBe(true);
    expect(catalog.knowsPath('links[]', ['GROUP_DELETED'])).toBe(true);
    expect(catalog.knowsPath('links', ['GROUP_DELETED'])).toBe(true);
    expect(catalog.knowsPath('links.href', ['GROUP_DELETED'])).toBe(false);
    expect(catalog.knowsPath('currentValue[].number', ['GROUP_DELETED'])).toBe(true);
  });

  it('suggests the closest path of the types, and the closest type', () => {
    const catalog = smallCatalog();

    expect(catalog.suggestPath('usernmae', ['GROUP_DELETED'])).toBe('username');
    expect(catalog.suggestPath('links.href', ['GROUP_DELETED'])).toBe('links[].href');
    expect(catalog.suggestPath('usernmae', ['ORG_CREATED'])).toBeUndefined();
    expect(catalog.suggestType('GROUP_DELETD')).toBe('GROUP_DELETED');
    expect(catalog.suggestType('SOMETHING_ELSE_ENTIRELY')).toBeUndefined();
  });

  it('refuses data that is not a catalog of this format, saying how to regenerate it', () => {
    expect(() => createEventCatalog({ format: 'other' })).toThrow(EventCatalogError);
    expect(() =>
      createEventCatalog({
        format: 'atlas-audit-alerts.event-catalog',
        version: 1,
        sources: [],
        fieldSets: [],
        types: { A: { scopes: ['project'], origins: ['openapi'], fieldSets: [3] } },
      }),
    ).toThrow('event type A names field set 3, which the catalog lacks: regenerate it with npm run catalog');
  });
});
