import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root, where README.md lives. */
export const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** One Markdown page of the documentation, by its path from the repository root. */
export interface DocPage {
  path: string;
  text: string;
}

/** A fenced code block: its language, the words after it on the fence line, its text and first line. */
export interface CodeBlock {
  page: string;
  lang: string;
  attributes: readonly string[];
  code: string;
  /** The 1-based line of the opening fence. */
  line: number;
}

/** A link written `[text](target)` outside code, with the line it is on. */
export interface MarkdownLink {
  page: string;
  target: string;
  line: number;
}

/** An inline code span outside fenced blocks, such as `atlas-audit-alerts rules test`. */
export interface InlineCode {
  page: string;
  code: string;
  line: number;
}

/** README.md and every page under docs/, read from the working tree. */
export function docPages(): DocPage[] {
  const docs = readdirSync(join(REPO_ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => `docs/${name}`);
  return ['README.md', ...docs].map((path) => ({ path, text: readFileSync(join(REPO_ROOT, path), 'utf8') }));
}

/** The page at `path` (README.md or docs/NAME.md). */
export function docPage(path: string): DocPage {
  return { path, text: readFileSync(join(REPO_ROOT, path), 'utf8') };
}

const FENCE = /^(\s*)(```+|~~~+)\s*([^\s`]*)\s*(.*)$/;

/** Splits a page into its lines, each marked as inside a fenced block or not. */
function proseLines(text: string): { line: string; number: number }[] {
  const prose: { line: string; number: number }[] = [];
  let fence: string | undefined;
  text.split('\n').forEach((line, index) => {
    const opened = FENCE.exec(line);
    if (fence === undefined && opened) {
      fence = opened[2];
      return;
    }
    if (fence !== undefined) {
      if (line.trim().startsWith(fence) && line.trim().replace(/[`~]/g, '') === '') fence = undefined;
      return;
    }
    prose.push({ line, number: index + 1 });
  });
  return prose;
}

/** The fenced code blocks of a page, in order. */
export function codeBlocks(page: DocPage): CodeBlock[] {
  const blocks: CodeBlock[] = [];
  const lines = page.text.split('\n');
  let open: { fence: string; indent: number; lang: string; attributes: string[]; line: number } | undefined;
  let body: string[] = [];
  lines.forEach((line, index) => {
    if (open === undefined) {
      const opened = FENCE.exec(line);
      if (!opened) return;
      const [, indent = '', fence = '```', lang = '', rest = ''] = opened;
      open = {
        fence,
        indent: indent.length,
        lang,
        attributes: rest.split(/\s+/).filter(Boolean),
        line: index + 1,
      };
      body = [];
      return;
    }
    if (line.trim().startsWith(open.fence) && line.trim().replace(/[`~]/g, '') === '') {
      blocks.push({
        page: page.path,
        lang: open.lang,
        attributes: open.attributes,
        code: body.join('\n'),
        line: open.line,
      });
      open = undefined;
      return;
    }
    body.push(line.slice(Math.min(open.indent, line.length - line.trimStart().length)));
  });
  return blocks;
}

/**
 * The anchors GitHub gives a page's headings: lower case, punctuation but `-` and `_` dropped, spaces
 * turned into `-`, and `-1`, `-2`... after a repeated one.
 */
export function headingAnchors(page: DocPage): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const { line } of proseLines(page.text)) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    const slug = (heading[1] ?? '')
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/ /g, '-');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}

/** Removes inline code spans, so that a link shown as code is not taken for a link. */
function withoutInlineCode(line: string): string {
  return line.replace(/(`+)(?:(?!\1).)+\1/g, (span) => ' '.repeat(span.length));
}

/** The links of a page outside code: `[text](target)`, images included. */
export function markdownLinks(page: DocPage): MarkdownLink[] {
  const links: MarkdownLink[] = [];
  for (const { line, number } of proseLines(page.text)) {
    for (const match of withoutInlineCode(line).matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
      links.push({ page: page.path, target: match[1] ?? '', line: number });
    }
  }
  return links;
}

/** The inline code spans of a page outside fenced blocks. Spans do not cross lines here. */
export function inlineCode(page: DocPage): InlineCode[] {
  const spans: InlineCode[] = [];
  for (const { line, number } of proseLines(page.text)) {
    for (const match of line.matchAll(/(`+)((?:(?!\1).)+)\1/g)) {
      spans.push({ page: page.path, code: (match[2] ?? '').trim(), line: number });
    }
  }
  return spans;
}
