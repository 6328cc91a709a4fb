import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { ruleFileJsonSchema } from '../../shared/rules/json-schema.js';

const committed = new URL('../../rules/rule-file.schema.json', import.meta.url);

describe('ruleFileJsonSchema', () => {
  it('equals the schema committed next to the rule files (regenerate: atlas-audit-alerts rules schema)', async () => {
    const onDisk: unknown = JSON.parse(await readFile(committed, 'utf8'));

    expect(onDisk).toEqual(ruleFileJsonSchema());
  });

  it('describes strict rule objects and the recursive match', () => {
    const schema = ruleFileJsonSchema() as { definitions: Record<string, Record<string, unknown>> };

    expect(schema.definitions.Rule?.additionalProperties).toBe(false);
    expect(schema.definitions.Match?.additionalProperties).toEqual({ $ref: '#/definitions/FieldCondition' });
    expect(Object.keys((schema.definitions.Operators?.properties as object) ?? {})).toContain(
      'cidr_at_least_as_wide_as',
    );
  });
});
