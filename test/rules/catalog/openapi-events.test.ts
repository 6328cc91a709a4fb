import { describe, expect, it } from 'vitest';
import { OpenApiEventsError, readOpenApiEvents } from '../../../shared/rules/catalog/openapi-events.js';

/** A small document in the shape of the Atlas one: enums `type: object` over string members. */
function documentWith(schemas: Record<string, unknown>): unknown {
  return {
    openapi: '3.0.1',
    components: {
      schemas: {
        EventTypeForNdsGroup: {
          oneOf: [
            { enum: ['GROUP_CREATED', 'GROUP_DELETED'], title: 'Group Audit Types', type: 'string' },
            { enum: ['ORPHAN_TYPE'], type: 'string' },
          ],
          type: 'object',
        },
        EventTypeForOrg: { oneOf: [{ enum: ['ORG_CREATED'], type: 'string' }], type: 'object' },
        EventViewForNdsGroup: { oneOf: [{ $ref: '#/components/schemas/GroupView' }], type: 'object' },
        EventViewForOrg: { oneOf: [{ $ref: '#/components/schemas/OrgView' }], type: 'object' },
        GroupTypes: { enum: ['GROUP_CREATED', 'GROUP_DELETED'], type: 'string' },
        Link: { properties: { href: { type: 'string' }, rel: { type: 'string' } }, type: 'object' },
        GroupView: {
          properties: {
            eventTypeName: { $ref: '#/components/schemas/GroupTypes' },
            groupId: { type: 'string' },
            links: { items: { $ref: '#/components/schemas/Link' }, type: 'array' },
            currentValue: { allOf: [{ properties: { number: { type: 'number' } } }] },
            raw: { properties: { _t: { type: 'string' } }, type: 'object' },
            labels: { additionalProperties: { type: 'string' }, type: 'object' },
            'not a segment': { type: 'string' },
          },
          type: 'object',
        },
        OrgView: {
          allOf: [
            { properties: { eventTypeName: { oneOf: [{ enum: ['ORG_CREATED', 'ORG_EXTRA'] }] } } },
            { properties: { orgId: { type: 'string' } } },
          ],
        },
        ...schemas,
      },
    },
  };
}

describe('readOpenApiEvents', () => {
  it('reads event type names from enums declared as objects, with their scope', () => {
    const types = readOpenApiEvents({ document: documentWith({}) });

    expect(types.map((type) => `${type.scope}:${type.name}`)).toEqual([
      'project:GROUP_CREATED',
      'project:GROUP_DELETED',
      'organization:ORG_CREATED',
      'organization:ORG_EXTRA',
      'project:ORPHAN_TYPE',
    ]);
  });

  it('walks properties, $ref, allOf and array items into field paths, raw and maps left open', () => {
    const types = readOpenApiEvents({ document: documentWith({}) });

    expect(types.find((type) => type.name === 'GROUP_DELETED')).toEqual({
      name: 'GROUP_DELETED',
      scope: 'project',
      views: ['GroupView'],
      fields: [
        'currentValue',
        'currentValue.number',
        'eventTypeName',
        'groupId',
        'labels',
        'labels.*',
        'links',
        'links[]',
        'links[].href',
        'links[].rel',
        'raw',
        'raw.*',
      ],
      alertFields: [],
    });
    expect(types.find((type) => type.name === 'ORG_EXTRA')?.fields).toEqual(['eventTypeName', 'orgId']);
  });

  it('gives a type no view lists the fields of views that list no types, or none', () => {
    const types = readOpenApiEvents({ document: documentWith({}) });

    expect(types.find((type) => type.name === 'ORPHAN_TYPE')).toMatchObject({ views: [], fields: [] });
  });

  it('adds the fields of the alert views that list a type', () => {
    const document = documentWith({
      AlertViewForNdsGroup: { oneOf: [{ $ref: '#/components/schemas/GroupAlert' }] },
      GroupAlert: {
        properties: { eventTypeName: { enum: ['GROUP_DELETED'] }, status: { type: 'string' } },
      },
    });

    const types = readOpenApiEvents({ document });

    expect(types.find((type) => type.name === 'GROUP_DELETED')?.alertFields).toEqual([
      'eventTypeName',
      'status',
    ]);
    expect(types.find((type) => type.name === 'GROUP_CREATED')?.alertFields).toEqual([]);
  });

  it('ends on $ref cycles and dangling references', () => {
    const document = documentWith({
      GroupView: {
        properties: {
          eventTypeName: { $ref: '#/components/schemas/GroupTypes' },
          parent: { $ref: '#/components/schemas/GroupView' },
          missing: { $ref: '#/components/schemas/Nowhere' },
        },
      },
    });

    const types = readOpenApiEvents({ document });

    expect(types.find((type) => type.name === 'GROUP_CREATED')?.fields).toEqual([
      'eventTypeName',
      'missing',
      'parent',
    ]);
  });

  it('says what is missing from a document that is not the Atlas one', () => {
    expect(() => readOpenApiEvents({ document: { openapi: '3.0.1' } })).toThrow(
      new OpenApiEventsError('the document has no components.schemas: pass an OpenAPI 3 document'),
    );
    expect(() => readOpenApiEvents({ document: { components: { schemas: {} } } })).toThrow(
      /no schema EventTypeForNdsGroup: pass the Atlas Admin API v2 one/,
    );
  });
});
