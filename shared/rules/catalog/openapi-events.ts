/**
 * Reads event types and the fields their event views declare out of an OpenAPI document such as the
 * Atlas Admin API v2 one. Only what is needed is read: the two event type enums, the two event view
 * unions, and the schemas they reach through `$ref`, `allOf`, `oneOf`, `anyOf`, `properties` and
 * `items`. The document is untrusted text: every value is narrowed, `$ref` cycles and depth are bounded.
 */

/** Where an event type can occur: a project's events or an organization's. */
export type EventScope = 'project' | 'organization';

export const EVENT_SCOPES: readonly EventScope[] = ['project', 'organization'];

/** The schema names the walker starts from, per scope. */
export interface OpenApiEventRoots {
  /** The enum of every event type name, such as `EventTypeForNdsGroup`. */
  readonly typeEnum: string;
  /** The union of event views, such as `EventViewForNdsGroup`. */
  readonly viewUnion: string;
  /**
   * The union of alert views, such as `AlertViewForNdsGroup`: an Atlas alert (Alerts API, alert
   * webhook) names the event type that raised it in `eventTypeName` too, and rules may read one.
   */
  readonly alertUnion?: string | undefined;
}

/** The Atlas Admin API v2 roots. */
export const ATLAS_EVENT_ROOTS: Readonly<Record<EventScope, OpenApiEventRoots>> = {
  project: {
    typeEnum: 'EventTypeForNdsGroup',
    viewUnion: 'EventViewForNdsGroup',
    alertUnion: 'AlertViewForNdsGroup',
  },
  organization: { typeEnum: 'EventTypeForOrg', viewUnion: 'EventViewForOrg' },
};

/** One event type of one scope, and the field paths the views that list it declare. */
export interface OpenApiEventType {
  readonly name: string;
  readonly scope: EventScope;
  /** The event view schemas that list the type; empty when only the type enum names it. */
  readonly views: readonly string[];
  /** Field paths in rule syntax (`currentValue.number`, `links[].href`), sorted; `x.*` is open below x. */
  readonly fields: readonly string[];
  /** The fields of the alert views that list the type, sorted; empty when none does. */
  readonly alertFields: readonly string[];
}

export interface ReadOpenApiEventsOptions {
  /** The parsed document (JSON or YAML). */
  readonly document: unknown;
  /** Defaults to {@link ATLAS_EVENT_ROOTS}. */
  readonly roots?: Readonly<Record<EventScope, OpenApiEventRoots>> | undefined;
  /**
   * Fields whose content is open (any path below is known). `raw` by default: its list of fields "may
   * change", as the Atlas document itself says.
   */
  readonly openFields?: readonly string[] | undefined;
}

/** The document does not hold what the walker needs. */
export class OpenApiEventsError extends Error {
  readonly code = 'OPENAPI_EVENTS_UNREADABLE';
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'OpenApiEventsError';
  }
}

/** Deeper than any real event view; bounds a hostile document. */
const MAX_DEPTH = 12;
const SCHEMA_REF_PREFIX = '#/components/schemas/';

type Schema = Record<string, unknown>;

/**
 * The event types of each scope with the fields their views declare. A type the enum names but no
 * view lists gets the fields of the scope's views that list no types of their own, and failing that
 * none (only `views` tells it apart). A type a view lists but the enum lacks is kept too.
 *
 * @throws {OpenApiEventsError} when a root schema is missing or is not an enum or a union.
 * @example
 * ```ts
 * const types = readOpenApiEvents({ document: parse(await readFile('openapi-v2.yaml', 'utf8')) });
 * types.find((type) => type.name === 'GROUP_DELETED')?.fields; // ['created', 'eventTypeName', ...]
 * ```
 */
export function readOpenApiEvents(options: ReadOpenApiEventsOptions): OpenApiEventType[] {
  const schemas = componentSchemas(options.document);
  const roots = options.roots ?? ATLAS_EVENT_ROOTS;
  const openFields = new Set(options.openFields ?? ['raw']);
  const result: OpenApiEventType[] = [];
  for (const scope of EVENT_SCOPES) {
    const { typeEnum, viewUnion } = roots[scope];
    const enumSchema = schemas[typeEnum];
    if (!isSchema(enumSchema)) {
      throw new OpenApiEventsError(`the document has no schema ${typeEnum}: pass the Atlas Admin API v2 one`);
    }
    const enumNames = enumValues(enumSchema, schemas);
    if (enumNames.size === 0) {
      throw new OpenApiEventsError(
        `schema ${typeEnum} lists no event type names: pass the Atlas Admin API v2 one`,
      );
    }
    const views = walkUnion(viewUnion, schemas, openFields);
    if (views === undefined) {
      throw new OpenApiEventsError(
        `schema ${viewUnion} is not a oneOf of event views: pass the Atlas Admin API v2 one`,
      );
    }
    const { alertUnion } = roots[scope];
    const alerts = alertUnion === undefined ? undefined : walkUnion(alertUnion, schemas, openFields);
    const byType = views.byType;
    const untypedFields = views.untypedFields;
    for (const name of new Set([...enumNames, ...byType.keys()])) {
      const entry = byType.get(name);
      result.push({
        name,
        scope,
        views: entry === undefined ? [] : [...entry.views].sort(),
        fields: [...(entry?.fields ?? untypedFields)].sort(),
        alertFields: [...(alerts?.byType.get(name)?.fields ?? [])].sort(),
      });
    }
  }
  return result.sort((a, b) => compareText(a.name, b.name) || compareText(a.scope, b.scope));
}

interface UnionFields {
  readonly byType: Map<string, { views: Set<string>; fields: Set<string> }>;
  /** The fields of members that list no event type of their own. */
  readonly untypedFields: Set<string>;
}

/** The fields of each member of a union of views, by the event types its `eventTypeName` lists. */
function walkUnion(
  unionName: string,
  schemas: Record<string, unknown>,
  openFields: ReadonlySet<string>,
): UnionFields | undefined {
  const union = schemas[unionName];
  const members = isSchema(union) ? [union.oneOf, union.anyOf].find(Array.isArray) : undefined;
  if (members === undefined) return undefined;
  const byType: UnionFields['byType'] = new Map();
  const untypedFields = new Set<string>();
  members.forEach((member: unknown, index: number) => {
    const viewName = refName(member) ?? `${unionName}.oneOf[${index}]`;
    const view = resolve(member, schemas, new Set());
    if (view === undefined) return;
    const fields = new Set<string>();
    collectFields(view.schema, '', fields, schemas, view.seen, 0, openFields);
    const typeSchema = propertySchema(view.schema, 'eventTypeName', schemas);
    const names = typeSchema === undefined ? new Set<string>() : enumValues(typeSchema, schemas);
    if (names.size === 0) for (const field of fields) untypedFields.add(field);
    for (const name of names) {
      const entry = byType.get(name) ?? { views: new Set(), fields: new Set() };
      entry.views.add(viewName);
      for (const field of fields) entry.fields.add(field);
      byType.set(name, entry);
    }
  });
  return { byType, untypedFields };
}

function componentSchemas(document: unknown): Record<string, unknown> {
  const components = isSchema(document) ? document.components : undefined;
  const schemas = isSchema(components) ? components.schemas : undefined;
  if (!isSchema(schemas)) {
    throw new OpenApiEventsError('the document has no components.schemas: pass an OpenAPI 3 document');
  }
  return schemas;
}

function isSchema(value: unknown): value is Schema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function refName(value: unknown): string | undefined {
  const ref = isSchema(value) ? value.$ref : undefined;
  return typeof ref === 'string' && ref.startsWith(SCHEMA_REF_PREFIX)
    ? ref.slice(SCHEMA_REF_PREFIX.length)
    : undefined;
}

/** Follows `$ref` chains; `undefined` for a dangling or cyclic reference or a non-schema. */
function resolve(
  value: unknown,
  schemas: Record<string, unknown>,
  seen: ReadonlySet<string>,
): { schema: Schema; seen: ReadonlySet<string> } | undefined {
  let current = value;
  const path = new Set(seen);
  for (;;) {
    if (!isSchema(current)) return undefined;
    const name = refName(current);
    if (name === undefined)
      return typeof current.$ref === 'string' ? undefined : { schema: current, seen: path };
    if (path.has(name) || !Object.hasOwn(schemas, name)) return undefined;
    path.add(name);
    current = schemas[name];
  }
}

/** Every string an enum schema allows, across `enum`, `$ref`, `oneOf`, `anyOf` and `allOf`. */
function enumValues(schema: unknown, schemas: Record<string, unknown>, depth = 0): Set<string> {
  const values = new Set<string>();
  const visit = (value: unknown, seen: ReadonlySet<string>, level: number): void => {
    if (level > MAX_DEPTH) return;
    const resolved = resolve(value, schemas, seen);
    if (resolved === undefined) return;
    const { schema: current } = resolved;
    // Atlas declares these enums `type: object` over string members: read the values, not the type.
    if (Array.isArray(current.enum)) {
      for (const item of current.enum) if (typeof item === 'string' && item !== '') values.add(item);
    }
    for (const key of ['oneOf', 'anyOf', 'allOf']) {
      const members = current[key];
      if (Array.isArray(members)) for (const member of members) visit(member, resolved.seen, level + 1);
    }
  };
  visit(schema, new Set(), depth);
  return values;
}

/** The schema of a property, looked for in `properties` and in `allOf` / `oneOf` / `anyOf` members. */
function propertySchema(schema: Schema, name: string, schemas: Record<string, unknown>): unknown {
  const properties = schema.properties;
  if (isSchema(properties) && Object.hasOwn(properties, name)) return properties[name];
  for (const key of ['allOf', 'oneOf', 'anyOf']) {
    const members = schema[key];
    if (!Array.isArray(members)) continue;
    for (const member of members) {
      const resolved = resolve(member, schemas, new Set());
      const found = resolved === undefined ? undefined : propertySchema(resolved.schema, name, schemas);
      if (found !== undefined) return found;
    }
  }
  return undefined;
}

/** A property name a rule can write as a path segment (see field-path.ts). */
const SEGMENT_PATTERN = /^[A-Za-z0-9_$@-]+$/;

function collectFields(
  schema: Schema,
  prefix: string,
  fields: Set<string>,
  schemas: Record<string, unknown>,
  seen: ReadonlySet<string>,
  depth: number,
  openFields: ReadonlySet<string>,
): void {
  if (depth > MAX_DEPTH) return;
  const walk = (value: unknown, at: string): void => {
    const resolved = resolve(value, schemas, seen);
    if (resolved !== undefined) {
      collectFields(resolved.schema, at, fields, schemas, resolved.seen, depth + 1, openFields);
    }
  };
  for (const key of ['allOf', 'oneOf', 'anyOf']) {
    const members = schema[key];
    if (Array.isArray(members)) for (const member of members) walk(member, prefix);
  }
  if (schema.items !== undefined && prefix !== '') {
    const arrayPath = `${prefix}[]`;
    fields.add(arrayPath);
    walk(schema.items, arrayPath);
  }
  const properties = isSchema(schema.properties) ? schema.properties : undefined;
  if (properties !== undefined) {
    for (const [name, property] of Object.entries(properties)) {
      if (!SEGMENT_PATTERN.test(name)) continue;
      const path = prefix === '' ? name : `${prefix}.${name}`;
      fields.add(path);
      if (prefix === '' && openFields.has(name)) {
        fields.add(`${path}.*`);
        continue;
      }
      walk(property, path);
    }
  }
  const additional = schema.additionalProperties;
  const open =
    additional === true ||
    isSchema(additional) ||
    (schema.type === 'object' && properties === undefined && !hasMembers(schema));
  if (open && prefix !== '') fields.add(`${prefix}.*`);
}

function hasMembers(schema: Schema): boolean {
  return ['allOf', 'oneOf', 'anyOf', '$ref', 'enum'].some((key) => schema[key] !== undefined);
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
