/**
 * Writes the JSON Schemas of the EventBridge details this project puts on a bus, from the schemas the
 * entries are built and tested against: `schemas/alert-detail.v1.schema.json` and
 * `schemas/source-health.v1.schema.json`. Run it after changing `shared/notify/alert-detail.ts`:
 * `npm run schemas`. `--check` writes nothing and exits 1 when a file is out of date.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { detailJsonSchemas } from '../shared/notify/alert-detail.js';

/** Where each schema is written, relative to the project root. */
export const DETAIL_SCHEMA_FILES = {
  alert: 'schemas/alert-detail.v1.schema.json',
  sourceHealth: 'schemas/source-health.v1.schema.json',
} as const;

const { values } = parseArgs({ options: { check: { type: 'boolean', default: false } } });
const schemas = detailJsonSchemas();
let stale = 0;
for (const [kind, path] of Object.entries(DETAIL_SCHEMA_FILES)) {
  const file = fileURLToPath(new URL(`../${path}`, import.meta.url));
  const text = `${JSON.stringify(schemas[kind as keyof typeof schemas], null, 2)}\n`;
  const current = await readFile(file, 'utf8').catch(() => '');
  if (sameJson(current, text)) continue;
  if (values.check) {
    process.stderr.write(`${path} is out of date: run npm run schemas\n`);
    stale += 1;
  } else {
    await writeFile(file, text);
    process.stdout.write(`wrote ${path}\n`);
  }
}
process.exitCode = stale === 0 ? 0 : 1;

/** Whether two texts hold the same JSON value, however each is laid out (the formatter lays out ours). */
function sameJson(a: string, b: string): boolean {
  try {
    return JSON.stringify(JSON.parse(a)) === JSON.stringify(JSON.parse(b));
  } catch {
    return false;
  }
}
