import { readFileSync } from 'node:fs';
import { Ajv, type ValidateFunction } from 'ajv';

const root = new URL('../../../', import.meta.url);

function compile(path: string): ValidateFunction {
  const schema = JSON.parse(readFileSync(new URL(path, root), 'utf8')) as Record<string, unknown>;
  return new Ajv({ allErrors: true, strict: false }).compile(schema);
}

/**
 * Validators built from the JSON Schema files the docs publish (not from the zod schemas they are
 * generated from): what a consumer of the bus validates with.
 */
export const publishedSchemas = {
  alert: compile('schemas/alert-detail.v1.schema.json'),
  sourceHealth: compile('schemas/source-health.v1.schema.json'),
};

/** The errors of a detail against a published schema, as readable lines; `[]` when it is valid. */
export function schemaErrors(validate: ValidateFunction, detail: unknown): string[] {
  return validate(detail)
    ? []
    : (validate.errors ?? []).map((error) => `${error.instancePath} ${error.message ?? ''}`);
}
