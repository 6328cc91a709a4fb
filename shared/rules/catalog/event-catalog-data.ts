import { EVENT_SCOPES, type EventScope, type OpenApiEventType } from './openapi-events.js';
import type { SpecEventFields } from './spec-event-fields.js';

/** Identifies the catalog file; `version` changes when its format does. */
export const EVENT_CATALOG_FORMAT = 'atlas-audit-alerts.event-catalog';

/** Where a type or a set of fields comes from. */
export type CatalogOrigin =
  | 'openapi'
  | 'openapi-alert'
  | 'spec'
  | 'inventory'
  | 'access-history'
  | 'audit-log';

export const CATALOG_ORIGINS: readonly CatalogOrigin[] = [
  'openapi',
  'openapi-alert',
  'spec',
  'inventory',
  'access-history',
  'audit-log',
];

/** The catalog as stored: field sets are shared, since most event types declare the same fields. */
export interface EventCatalogData {
  readonly format: typeof EVENT_CATALOG_FORMAT;
  readonly version: 1;
  /** What the catalog was generated from, for people reading the file. */
  readonly sources: readonly string[];
  readonly fieldSets: readonly { readonly origin: CatalogOrigin; readonly fields: readonly string[] }[];
  readonly types: Readonly<
    Record<
      string,
      {
        readonly scopes: readonly EventScope[];
        readonly origins: readonly CatalogOrigin[];
        /** Indexes into `fieldSets`; the type's fields are their union. */
        readonly fieldSets: readonly number[];
      }
    >
  >;
}

export interface BuildEventCatalogDataOptions {
  readonly openApi: readonly OpenApiEventType[];
  readonly spec: SpecEventFields;
  /** Field paths of each synthetic inventory event type (always organization scope). */
  readonly inventory: Readonly<Record<string, readonly string[]>>;
  /** Field paths of each event type of database access history (always project scope). */
  readonly accessHistory: Readonly<Record<string, readonly string[]>>;
  /** Field paths of each event type of database audit logs (always project scope). Default: none. */
  readonly auditLog?: Readonly<Record<string, readonly string[]>> | undefined;
  readonly sources: readonly string[];
}

/**
 * Puts the sources together. An OpenAPI type gets the fields of its event views, of the alert
 * views that list it (an Atlas alert names the type that raised it), plus those the
 * implemented document gives every event (and its own, where the document names the type); a type the
 * document alone names is a project event (its event list is per project); inventory types
 * (organization scope) and database access types (project scope) carry their own fields only.
 *
 * @example
 * ```ts
 * const data = buildEventCatalogData({
 *   openApi, spec, inventory: inventoryEventFields(), accessHistory: accessHistoryEventFields(), sources,
 * });
 * await writeFile(path, formatEventCatalogData(data));
 * ```
 */
export function buildEventCatalogData(options: BuildEventCatalogDataOptions): EventCatalogData {
  const fieldSets: { origin: CatalogOrigin; fields: readonly string[] }[] = [];
  const setIndexes = new Map<string, number>();
  const setOf = (origin: CatalogOrigin, fields: readonly string[]): number => {
    const sorted = [...new Set(fields)].sort();
    const key = `${origin}\u0000${sorted.join('\u0000')}`;
    let index = setIndexes.get(key);
    if (index === undefined) {
      index = fieldSets.length;
      fieldSets.push({ origin, fields: sorted });
      setIndexes.set(key, index);
    }
    return index;
  };
  const types = new Map<
    string,
    { scopes: Set<EventScope>; origins: Set<CatalogOrigin>; fieldSets: Set<number> }
  >();
  const entry = (name: string) => {
    let found = types.get(name);
    if (found === undefined) {
      found = { scopes: new Set(), origins: new Set(), fieldSets: new Set() };
      types.set(name, found);
    }
    return found;
  };
  for (const type of options.openApi) {
    const found = entry(type.name);
    found.scopes.add(type.scope);
    found.origins.add('openapi');
    found.fieldSets.add(setOf('openapi', type.fields));
    if (type.alertFields.length > 0) found.fieldSets.add(setOf('openapi-alert', type.alertFields));
  }
  const common = setOf('spec', options.spec.common);
  for (const name of options.spec.eventTypes) {
    const found = entry(name);
    found.origins.add('spec');
    if (!found.origins.has('openapi')) found.scopes.add('project');
  }
  for (const [name, found] of types) {
    found.fieldSets.add(common);
    const own = options.spec.byType[name];
    if (own !== undefined) found.fieldSets.add(setOf('spec', own));
  }
  for (const [name, fields] of Object.entries(options.inventory)) {
    const found = entry(name);
    found.scopes.add('organization');
    found.origins.add('inventory');
    found.fieldSets.add(setOf('inventory', fields));
  }
  for (const [name, fields] of Object.entries(options.accessHistory)) {
    const found = entry(name);
    found.scopes.add('project');
    found.origins.add('access-history');
    found.fieldSets.add(setOf('access-history', fields));
  }
  for (const [name, fields] of Object.entries(options.auditLog ?? {})) {
    const found = entry(name);
    found.scopes.add('project');
    found.origins.add('audit-log');
    found.fieldSets.add(setOf('audit-log', fields));
  }
  const names = [...types.keys()].sort();
  return {
    format: EVENT_CATALOG_FORMAT,
    version: 1,
    sources: [...options.sources],
    fieldSets,
    types: Object.fromEntries(
      names.map((name) => {
        const found = types.get(name) as NonNullable<ReturnType<typeof types.get>>;
        return [
          name,
          {
            scopes: EVENT_SCOPES.filter((scope) => found.scopes.has(scope)),
            origins: (['openapi', 'spec', 'inventory', 'access-history', 'audit-log'] as const).filter(
              (origin) => found.origins.has(origin),
            ),
            fieldSets: [...found.fieldSets].sort((a, b) => a - b),
          },
        ];
      }),
    ),
  };
}

/**
 * The catalog as the committed file holds it: one line per field set and per type, so a refresh
 * shows in a diff as the types and fields Atlas added.
 *
 * @example
 * ```ts
 * await writeFile('shared/rules/catalog/event-catalog.json', formatEventCatalogData(data));
 * ```
 */
export function formatEventCatalogData(data: EventCatalogData): string {
  const lines = [
    '{',
    `"format": ${JSON.stringify(data.format)},`,
    `"version": ${JSON.stringify(data.version)},`,
    `"sources": ${JSON.stringify(data.sources)},`,
    '"fieldSets": [',
    data.fieldSets.map((set) => JSON.stringify(set)).join(',\n'),
    '],',
    '"types": {',
    Object.entries(data.types)
      .map(([name, type]) => `${JSON.stringify(name)}: ${JSON.stringify(type)}`)
      .join(',\n'),
    '}',
    '}',
  ];
  return `${lines.join('\n')}\n`;
}
