import { readFile } from 'node:fs/promises';
import { isMap, isSeq, LineCounter, parseDocument } from 'yaml';
import type { RuleFileText } from '../loader.js';
import { positionOf, type SourcePosition, type YamlSource } from '../source-position.js';

/**
 * The rule files of a pack, parsed again (each only when a warning needs it) to point warnings at
 * lines and columns. The loader has validated them already; a file that no longer parses (changed
 * since) just gives no positions.
 */
export class RuleSources {
  private readonly texts = new Map<string, string>();
  private readonly parsed = new Map<string, YamlSource | undefined>();

  constructor(texts: readonly RuleFileText[]) {
    for (const { file, text } of texts) this.texts.set(file, text);
  }

  private source(file: string): YamlSource | undefined {
    if (this.parsed.has(file)) return this.parsed.get(file);
    const text = this.texts.get(file);
    let source: YamlSource | undefined;
    if (text !== undefined) {
      const lineCounter = new LineCounter();
      const document = parseDocument(text, { lineCounter, prettyErrors: false });
      if (document.errors.length === 0) source = { file, text, document, lineCounter };
    }
    this.parsed.set(file, source);
    return source;
  }

  /**
   * Reads the files of a pack.
   *
   * @example
   * ```ts
   * const sources = await RuleSources.read(pack.files);
   * ```
   */
  static async read(files: readonly string[]): Promise<RuleSources> {
    const texts: RuleFileText[] = [];
    for (const file of files) {
      try {
        texts.push({ file, text: await readFile(file, 'utf8') });
      } catch {
        // A file gone since it was loaded: its warnings keep their document paths, without lines.
      }
    }
    return new RuleSources(texts);
  }

  /** The position of the node at a document path of a file, if the file was read. */
  positionOf(
    file: string,
    path: readonly (string | number)[],
    options: { key?: boolean; needle?: string } = {},
  ): SourcePosition | undefined {
    const source = this.source(file);
    return source === undefined ? undefined : positionOf(source, { path, ...options });
  }

  /**
   * The source text of the rule at an index of a file's `rules:` sequence, comments included; only
   * for files that hold a `lint-allow` comment, the one thing it is read for.
   */
  ruleText(file: string, index: number): string | undefined {
    return this.itemText(file, 'rules', index);
  }

  /**
   * The source text of the item at an index of a top-level sequence of a file (`rules`, `overrides`,
   * `exceptions`), comments included; only for files that hold a `lint-allow` comment.
   */
  itemText(file: string, section: string, index: number): string | undefined {
    if (!this.texts.get(file)?.includes('lint-allow')) return undefined;
    const source = this.source(file);
    const items = source?.document.get(section, true);
    const range = isSeq(items)
      ? (items.items[index] as { range?: [number, number, number] } | undefined)?.range
      : undefined;
    return source === undefined || range === undefined ? undefined : source.text.slice(range[0], range[2]);
  }

  /** The first file, in the order given, that defines a named list. */
  listFile(name: string, files: readonly string[]): string | undefined {
    return files.find((file) => {
      if (!this.texts.get(file)?.includes(name)) return false;
      const lists = this.source(file)?.document.get('lists', true);
      return isMap(lists) && lists.has(name);
    });
  }
}
