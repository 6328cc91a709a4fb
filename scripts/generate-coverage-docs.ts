/**
 * Regenerates what the docs say the built-in pack covers: the table by area between the
 * coverage-table markers of README.md, and docs/coverage.md. Run it after changing rules/*.yaml or the
 * security-relevant list: `npm run coverage-docs`. `--check` writes nothing and exits 1 when either is
 * out of date.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import {
  renderCoveragePage,
  renderCoverageTable,
  replaceBetweenMarkers,
} from '../shared/rules/catalog/coverage-docs.js';
import { loadEventCatalog, loadSecurityEventTypes, ruleCoverage } from '../shared/rules/lint/index.js';
import { loadRulePack } from '../shared/rules/loader.js';

const root = new URL('../', import.meta.url);
const readmeFile = fileURLToPath(new URL('README.md', root));
const pageFile = fileURLToPath(new URL('docs/coverage.md', root));
const { values } = parseArgs({ options: { check: { type: 'boolean', default: false } } });

try {
  const pack = await loadRulePack({ paths: [fileURLToPath(new URL('rules/', root))] });
  const catalog = loadEventCatalog();
  const security = loadSecurityEventTypes();
  const options = { coverage: ruleCoverage(pack, catalog, security), catalog, security };
  const readme = await readFile(readmeFile, 'utf8');
  const outputs = [
    { file: readmeFile, current: readme, text: replaceBetweenMarkers(readme, renderCoverageTable(options)) },
    {
      file: pageFile,
      current: await readFile(pageFile, 'utf8').catch(() => undefined),
      text: renderCoveragePage(options),
    },
  ];
  for (const { file, current, text } of outputs) {
    if (current === text) {
      process.stdout.write(`${file} is up to date\n`);
    } else if (values.check) {
      process.stderr.write(`${file} is out of date: run npm run coverage-docs and commit the result\n`);
      process.exitCode = 1;
    } else {
      await writeFile(file, text);
      process.stdout.write(`wrote ${file}\n`);
    }
  }
} catch (error) {
  process.stderr.write(
    `cannot generate the coverage docs: ${error instanceof Error ? error.message : String(error)}\n`,
  );
  process.exitCode = 1;
}
