import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { loadRuleLayers } from '../../cli/rule-layers.js';
import { readRunConfigFile } from '../../cli/run-config-file.js';
import { resolveDeployConfig } from '../../infra/config-source.js';
import { collectRuleTests } from '../../shared/rules/index.js';
import { cdkJsonContext, PROJECT_ROOT } from '../infra/support/workspace.js';
import { type CodeBlock, codeBlocks, docPages } from './support/markdown.js';

/** What a YAML block of the docs is, from its top-level keys. */
type YamlKind = 'rule file' | 'run config' | 'deploy config' | 'fragment';

const RULE_FILE_KEYS = ['lists', 'rules', 'overrides', 'exceptions'];

function kindOf(block: CodeBlock, document: unknown): YamlKind {
  if (block.attributes.includes('fragment')) return 'fragment';
  const keys = document !== null && typeof document === 'object' ? Object.keys(document) : [];
  if (keys.includes('local')) return 'run config';
  const rules = (document as Record<string, unknown> | null)?.rules;
  const ruleFile =
    keys.length > 0 &&
    keys.every((key) => RULE_FILE_KEYS.includes(key)) &&
    !(rules !== undefined && !Array.isArray(rules));
  return ruleFile ? 'rule file' : 'deploy config';
}

const where = (block: CodeBlock) => `${block.page}:${block.line}`;
const yamlBlocks = docPages()
  .flatMap(codeBlocks)
  .filter((block) => block.lang === 'yaml' || block.lang === 'yml');
const jsonBlocks = docPages()
  .flatMap(codeBlocks)
  .filter((block) => block.lang === 'json');

const scratch = mkdtempSync(join(tmpdir(), 'atlas-audit-alerts-docs-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Writes a block into a folder of its own and returns the file's path. */
function writeBlock(block: CodeBlock, name: string): string {
  const directory = join(scratch, `${block.page.replace(/\W/g, '-')}-${block.line}`);
  mkdirSync(directory, { recursive: true });
  const file = join(directory, name);
  writeFileSync(file, block.code);
  return file;
}

/**
 * Loads a rule file of the docs as a layer over the built-in pack, as `rules validate builtin DIR`
 * does, and runs the inline tests it carries.
 */
async function ruleFileProblems(block: CodeBlock): Promise<string[]> {
  const file = writeBlock(block, 'rules.yaml');
  const layer = join(file, '..');
  try {
    const pack = await loadRuleLayers(['builtin', layer]);
    const results = await Promise.all(
      collectRuleTests(pack)
        .filter((test) => test.layer === layer)
        .map((test) => test.run()),
    );
    return results
      .filter((result) => !result.passed)
      .map((result) => `test "${result.name}": ${result.failures.join('; ')}`);
  } catch (error) {
    return [(error as Error).message];
  }
}

describe('the YAML examples of the README and docs/', () => {
  it('are found, of every kind', () => {
    const kinds = new Set(yamlBlocks.map((block) => kindOf(block, parseYaml(block.code))));

    expect([...kinds].sort()).toEqual(['deploy config', 'fragment', 'rule file', 'run config']);
  });

  it.each(yamlBlocks.map((block) => [where(block), block] as const))(
    '%s parses and validates as what it is',
    async (_, block) => {
      const document: unknown = parseYaml(block.code);
      const kind = kindOf(block, document);

      if (kind === 'rule file') {
        expect(await ruleFileProblems(block)).toEqual([]);
      } else if (kind === 'run config') {
        await expect(readRunConfigFile({ path: writeBlock(block, 'run.yaml') })).resolves.toBeDefined();
      } else if (kind === 'deploy config') {
        expect(() =>
          resolveDeployConfig({
            context: cdkJsonContext().atlasAuditAlerts,
            configFile: writeBlock(block, 'deploy.yaml'),
            projectRoot: PROJECT_ROOT,
          }),
        ).not.toThrow();
      } else {
        expect(document).toBeDefined();
      }
    },
  );
});

describe('the JSON examples of the README and docs/', () => {
  it.each(jsonBlocks.map((block) => [where(block), block] as const))('%s parses', (_, block) => {
    expect(() => JSON.parse(block.code)).not.toThrow();
  });
});

describe('the snippet checks', () => {
  const block = (code: string): CodeBlock => ({
    page: 'docs/x.md',
    lang: 'yaml',
    attributes: [],
    code,
    line: 1,
  });

  it('fail a rule whose inline test no longer holds', async () => {
    const stale = block(
      [
        'rules:',
        '  - id: doc-check',
        '    name: A rule',
        '    severity: low',
        '    match: { eventTypeName: API_KEY_CREATED }',
        '    title: created',
        '    tests:',
        '      - name: a key',
        '        event: { id: t1, eventTypeName: API_KEY_CREATED }',
        '        expect: { alert: true, severity: high }',
      ].join('\n'),
    );

    expect(await ruleFileProblems(stale)).toEqual([expect.stringMatching(/^test "a key": .*severity/)]);
  });

  it('fail a deploy setting the loader does not know', () => {
    const stale = block('alerts:\n  emailMinSeverty: high\n');

    expect(() =>
      resolveDeployConfig({
        context: cdkJsonContext().atlasAuditAlerts,
        configFile: writeBlock({ ...stale, line: 2 }, 'deploy.yaml'),
        projectRoot: PROJECT_ROOT,
      }),
    ).toThrow(/emailMinSeverty/);
  });
});
