import * as z from 'zod';
import { ruleFileSchema } from './schema.js';

/**
 * The JSON Schema of a rule file, generated from the schema the loader validates with, for editors
 * (`# yaml-language-server: $schema=./rule-file.schema.json`). Draft-07, which editors support best.
 *
 * @example
 * ```ts
 * process.stdout.write(`${JSON.stringify(ruleFileJsonSchema(), null, 2)}\n`);
 * ```
 */
export function ruleFileJsonSchema(): Record<string, unknown> {
  return z.toJSONSchema(ruleFileSchema, { target: 'draft-7', io: 'input' }) as Record<string, unknown>;
}
