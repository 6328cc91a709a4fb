import { afterEach, describe, expect, it, vi } from 'vitest';
import { RuleSources } from '../../../shared/rules/lint/rule-sources.js';

/** A file of `count` rules with a `lint-allow` comment, so that each rule's text is read. */
function ruleFile(count: number): string {
  const rules = Array.from(
    { length: count },
    (_, index) =>
      `  - id: rule-${index}\n    name: Rule ${index}\n    severity: low\n    match: { eventTypeName: GROUP_DELETED }\n    title: rule ${index}\n`,
  );
  return `# lint-allow UNTESTED_RULE\nlists:\n  admins: [root]\nrules:\n${rules.join('')}`;
}

describe('RuleSources', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it("gives each rule's text, scanning the file once however many rules ask", () => {
    // Prepare: a count of the scans of the file's whole text (the work that made validate quadratic).
    const text = ruleFile(500);
    const sources = new RuleSources([{ file: 'many.yaml', text }]);
    const includes = String.prototype.includes;
    let scans = 0;
    vi.spyOn(String.prototype, 'includes').mockImplementation(function (this: string, ...args) {
      if (this.length === text.length) scans += 1;
      return includes.apply(this, args);
    });

    // Act
    const texts = Array.from({ length: 500 }, (_, index) => sources.ruleText('many.yaml', index));
    const lists = Array.from({ length: 500 }, () => sources.listFile('admins', ['many.yaml']));

    // Assess
    expect(texts[0]).toContain('id: rule-0');
    expect(texts[499]).toContain('id: rule-499');
    expect(new Set(lists)).toEqual(new Set(['many.yaml']));
    expect(scans).toBeLessThanOrEqual(2);
  });
});
