import { existsSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  docPage,
  docPages,
  headingAnchors,
  type MarkdownLink,
  markdownLinks,
  REPO_ROOT,
} from './support/markdown.js';

/** What is wrong with one relative link, or undefined when it resolves. */
function brokenLink(link: MarkdownLink): string | undefined {
  if (/^[a-z][a-z0-9+.-]*:/i.test(link.target)) return undefined;
  const [path = '', anchor] = link.target.split('#', 2);
  const file = path === '' ? link.page : normalize(join(dirname(link.page), decodeURIComponent(path)));
  if (file.startsWith('..')) return `${link.target} leaves the repository`;
  const absolute = join(REPO_ROOT, file);
  if (!existsSync(absolute)) return `${link.target}: no file ${file}`;
  if (anchor === undefined) return undefined;
  if (!file.endsWith('.md') || statSync(absolute).isDirectory())
    return `${link.target}: an anchor into a file that is not Markdown`;
  const anchors = headingAnchors(docPage(relative(REPO_ROOT, absolute)));
  return anchors.has(anchor)
    ? undefined
    : `${link.target}: ${file} has no heading with the anchor #${anchor}`;
}

describe('the links of the README and docs/', () => {
  it('resolve: every relative link names a file that exists, and every anchor a heading of its page', () => {
    const links = docPages().flatMap(markdownLinks);

    const broken = links.flatMap((link) => {
      const problem = brokenLink(link);
      return problem === undefined ? [] : [`${link.page}:${link.line}: ${problem}`];
    });

    expect(links.length).toBeGreaterThan(20);
    expect(broken).toEqual([]);
  });

  it('tells a link to a missing anchor from one that resolves', () => {
    const page = 'docs/rules.md';

    expect(brokenLink({ page, target: '#the-rule-format', line: 1 })).toBeUndefined();
    expect(brokenLink({ page, target: '#the-rule-formats', line: 1 })).toMatch(/no heading with the anchor/);
    expect(brokenLink({ page, target: 'deploy.md#4-deploy', line: 1 })).toBeUndefined();
    expect(brokenLink({ page, target: 'nowhere.md', line: 1 })).toMatch(/no file docs\/nowhere\.md/);
  });
});
