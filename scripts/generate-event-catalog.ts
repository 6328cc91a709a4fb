/**
 * Regenerates the event catalog (`shared/rules/catalog/event-catalog.json`) from the official Atlas
 * Admin API v2 OpenAPI document, the API document this project implements and the inventory events.
 * Run it when Atlas adds event types: `npm run catalog`, or with other inputs
 * `npm run catalog -- --openapi path/to/openapi-v2.yaml --spec path/to/spec.txt`. `--check` writes
 * nothing and exits 1 when the committed catalog is out of date.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { generateEventCatalog } from '../shared/rules/catalog/catalog-generation.js';
import { EVENT_CATALOG_FILE } from '../shared/rules/catalog/event-catalog.js';

const root = new URL('../', import.meta.url);
const { values } = parseArgs({
  options: {
    openapi: { type: 'string', default: fileURLToPath(new URL('../shared/atlas/openapi-v2.yaml', root)) },
    spec: {
      type: 'string',
      default: fileURLToPath(new URL('../shared/spec/000_954ac6e2b5d2ed21.txt', root)),
    },
    out: { type: 'string', default: EVENT_CATALOG_FILE },
    check: { type: 'boolean', default: false },
  },
});

try {
  const text = await generateEventCatalog({ openApiPath: values.openapi, specPath: values.spec });
  const current = await readFile(values.out, 'utf8').catch(() => undefined);
  const types = (text.match(/^"[A-Z0-9_]+": \{/gm) ?? []).length;
  if (values.check) {
    if (current !== text) {
      process.stderr.write(`${values.out} is out of date: run npm run catalog and commit the result\n`);
      process.exitCode = 1;
    } else {
      process.stdout.write(`${values.out} is up to date (${types} event types)\n`);
    }
  } else if (current === text) {
    process.stdout.write(`${values.out} unchanged (${types} event types)\n`);
  } else {
    await writeFile(values.out, text);
    process.stdout.write(`wrote ${values.out} (${types} event types, ${Buffer.byteLength(text)} bytes)\n`);
  }
} catch (error) {
  process.stderr.write(
    `cannot generate the event catalog: ${error instanceof Error ? error.message : String(error)}\n`,
  );
  process.exitCode = 1;
}
