import { loadEventCatalog } from '../shared/rules/catalog/event-catalog.js';

let byScope: { project: ReadonlySet<string>; organization: ReadonlySet<string> } | undefined;

/**
 * Whether Atlas knows `eventTypeName` as an event type of the scope, by the event catalog generated
 * from the official OpenAPI document and the API document this project implements (the synthetic
 * `INVENTORY_*` types are not Atlas's). Loaded once, on the first filtered request.
 *
 * @example
 * ```ts
 * isKnownEventType('API_KEY_CREATED', 'organization'); // true
 * isKnownEventType('CLUSTER_CREATED', 'organization'); // false: a project event
 * ```
 */
export function isKnownEventType(eventTypeName: string, scope: 'project' | 'organization'): boolean {
  if (byScope === undefined) {
    const project = new Set<string>();
    const organization = new Set<string>();
    for (const type of loadEventCatalog().types.values()) {
      if (type.origins.every((origin) => origin === 'inventory')) continue;
      if (type.scopes.includes('project')) project.add(type.name);
      if (type.scopes.includes('organization')) organization.add(type.name);
    }
    byScope = { project, organization };
  }
  return byScope[scope].has(eventTypeName);
}
