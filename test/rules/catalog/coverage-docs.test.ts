import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  COVERAGE_TABLE_END,
  COVERAGE_TABLE_START,
  CoverageDocsError,
  renderCoveragePage,
  renderCoverageTable,
  replaceBetweenMarkers,
} from '../../../shared/rules/catalog/coverage-docs.js';
import { loadEventCatalog, loadSecurityEventTypes, ruleCoverage } from '../../../shared/rules/lint/index.js';
import { loadRulePack } from '../../../shared/rules/loader.js';

const root = new URL('../../../', import.meta.url);
const pack = await loadRulePack({ paths: [fileURLToPath(new URL('rules/', root))] });
const catalog = loadEventCatalog();
const security = loadSecurityEventTypes();
const options = { coverage: ruleCoverage(pack, catalog, security), catalog, security };

describe('the coverage docs', () => {
  it('are what the README shows between its coverage-table markers (npm run coverage-docs)', () => {
    const readme = readFileSync(new URL('README.md', root), 'utf8');

    expect(replaceBetweenMarkers(readme, renderCoverageTable(options))).toBe(readme);
  });

  it('are what docs/coverage.md holds (npm run coverage-docs)', () => {
    const page = readFileSync(new URL('docs/coverage.md', root), 'utf8');

    expect(renderCoveragePage(options)).toBe(page);
  });

  it('give one row per area and a total that matches rules coverage', () => {
    const table = renderCoverageTable(options).split('\n');

    expect(table).toHaveLength(security.areas.length + 3);
    expect(table.at(-1)).toBe(
      `| **all** | **${security.types.size} of ${security.types.size}** | ${options.coverage.rules.length} enabled | |`,
    );
  });

  it('name a listed type no rule covers as such, and count it out of its area', () => {
    const withoutGroupRules = {
      ...options,
      coverage: ruleCoverage(
        {
          ...pack,
          rules: pack.rules.filter(
            ({ spec }) => spec.id !== 'project-deleted' && spec.id !== 'destruction-spree',
          ),
        },
        catalog,
        security,
      ),
    };

    const page = renderCoveragePage(withoutGroupRules);
    const table = renderCoverageTable(withoutGroupRules);

    expect(page).toMatch(/^\| `GROUP_DELETED` \| project, organization \| poll-only \| \*\*none\*\* \| /m);
    expect(page).toMatch(/^\| `NETWORK_PERMISSION_ENTRY_ADDED` \| project \| webhook \| `network-access/m);
    const area = security.types.get('GROUP_DELETED')?.area ?? '';
    const size = security.areas.find((entry) => entry.area === area)?.types.length ?? 0;
    expect(table).toContain(`| ${area} | ${size - 1} of ${size} |`);
  });

  it('replace only what lies between the markers', () => {
    const text = `before\n${COVERAGE_TABLE_START}\nold\n${COVERAGE_TABLE_END}\nafter\n`;

    expect(replaceBetweenMarkers(text, 'new')).toBe(
      `before\n${COVERAGE_TABLE_START}\nnew\n${COVERAGE_TABLE_END}\nafter\n`,
    );
  });

  it('refuse text without the markers, or with them out of order', () => {
    expect(() => replaceBetweenMarkers('no markers', 'x')).toThrow(CoverageDocsError);
    expect(() => replaceBetweenMarkers(`${COVERAGE_TABLE_END}\n${COVERAGE_TABLE_START}`, 'x')).toThrow(
      /needs <!-- coverage-table:start --> and then <!-- coverage-table:end -->/,
    );
  });
});
