import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { findExcessiveNesting } from '../../shared/rules/yaml-nesting.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

describe('findExcessiveNesting', () => {
  it('passes every rule file of the default pack and the example deploy configuration', async () => {
    // Prepare
    const rules = (await readdir(join(ROOT, 'rules'))).filter((name) => name.endsWith('.yaml'));
    const files = [
      ...rules.map((name) => join(ROOT, 'rules', name)),
      join(ROOT, 'infra/examples/config.example.yaml'),
    ];

    // Act
    const found = await Promise.all(
      files.map(async (file) => findExcessiveNesting(await readFile(file, 'utf8'))),
    );

    // Assess
    expect(found.every((problem) => problem === undefined)).toBe(true);
  });

  it('finds the first bracket past the limit', () => {
    expect(findExcessiveNesting(`a: ${'['.repeat(500)}`)).toEqual({ offset: 103, depth: 101 });
  });

  it('counts block sequences opened on one line and indentation', () => {
    expect(findExcessiveNesting(`${'- '.repeat(150)}x`, 100)?.depth).toBe(101);
    expect(findExcessiveNesting(`a:\n${' '.repeat(120)}b: 1`, 100)?.offset).toBe(103);
  });

  it('ignores brackets inside quotes and comments', () => {
    const text = [
      `a: "${'['.repeat(300)}"`,
      `b: '${'{'.repeat(300)}'`,
      `# ${'['.repeat(300)}`,
      "c: it's [ok]",
    ].join('\n');

    expect(findExcessiveNesting(text)).toBeUndefined();
  });
});
