import { describe, expect, it } from 'vitest';
import {
  readSpecEventFields,
  SpecEventFieldsError,
} from '../../../shared/rules/catalog/spec-event-fields.js';

const DOCUMENT = `# API

### Link object

| Field | Type | Meaning |
|---|---|---|
| href | string | Absolute URL. |

### Event (element of \`results\`)

| Field | Type | Meaning |
|---|---|---|
| id | string | Identifier. |
| database | string | Present when \`eventTypeName\` is \`DATA_EXPLORER\`. |
| collection | string | Same condition as \`database\`. |
| units | string | Allowed values: \`RAW\`, \`BITS\`. |
| raw | document | Extra information. |
| links | array of link | Includes \`self\`. |
| diffs | array of diff | Seen on events of type \`AUTOMATION_CONFIG_PUBLISHED_AUDIT\`. |

Shape of an element of \`diffs\`:

| Field | Type | Meaning |
|---|---|---|
| type | string | Kind. |
| params | array | Elements have \`display\` (string) and \`actions\` (array of string). \`display\` is an object with \`db\` or \`cluster\`. |

## Events

2. Values of \`eventTypeName\` seen: \`AUTOMATION_CONFIG_PUBLISHED_AUDIT\`, \`DATA_EXPLORER\`.
`;

describe('readSpecEventFields', () => {
  it('reads the event table, nested tables and element shapes, and which types a row belongs to', () => {
    const fields = readSpecEventFields(DOCUMENT);

    expect(fields).toEqual({
      eventTypes: ['AUTOMATION_CONFIG_PUBLISHED_AUDIT', 'DATA_EXPLORER'],
      common: ['id', 'links', 'links[]', 'links[].href', 'raw', 'raw.*', 'units'],
      byType: {
        AUTOMATION_CONFIG_PUBLISHED_AUDIT: [
          'diffs',
          'diffs[]',
          'diffs[].params',
          'diffs[].params[]',
          'diffs[].params[].actions',
          'diffs[].params[].actions[]',
          'diffs[].params[].display',
          'diffs[].params[].display.cluster',
          'diffs[].params[].display.db',
          'diffs[].type',
        ],
        DATA_EXPLORER: ['collection', 'database'],
      },
    });
  });

  it('says what is missing from a document without events', () => {
    expect(() => readSpecEventFields('# nothing here')).toThrow(SpecEventFieldsError);
    expect(() => readSpecEventFields('Values of `eventTypeName` seen: `A`.')).toThrow(
      'no "### Event" section',
    );
  });
});
