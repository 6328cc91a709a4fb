import { readFile } from 'node:fs/promises';
import { isMap, isScalar, isSeq, LineCounter, parseDocument } from 'yaml';
import type { RuleFileText } from '../loader.js';
import { positionOf, type SourcePosition, type YamlSource } from '../source-position.js';

/**
 * The rule files of a pack, parsed again to point warnings at lines and columns. The loader has
 * validated them already; a file that no longer parses (changed since) just gives no positions.
 */
export class RuleSources {
  private readonly sources = new Map<string, YamlSource>();

  constructor(texts: readonly RuleFileText[]) {
    for (const { file, text } of texts) {
      const lineCounter = new LineCounter();
      const document = parseDocument(text, { lineCounter, prettyErrors: false });
      if (document.errors.length === 0) this.sources.set(file, { file, text, document, lineCounter });
    }
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
    const source = this.sources.get(file);
    return source === undefined ? undefined : positionOf(source, { path, ...options });
  }

  /** The index of the rule with this id in a file's `rules:` sequence. */
  ruleIndex(file: string, id: string): number | undefined {
    const rules = this.sources.get(file)?.document.get('rules', true);
    if (!isSeq(rules)) return undefined;
    const index = rules.items.findIndex((item) => {
      const value = isMap(item) ? item.get('id', true) : undefined;
      return isScalar(value) && value.value === id;
    });
    return index === -1 ? undefined : index;
  }

  /** The source text of the rule at an index of a file's `rules:` sequence, comments included. */
  ruleText(file: string, index: number): string | undefined {
    const source = this.sources.get(file);
    const rules = source?.document.get('rules', true);
    const range = isSeq(rules)
      ? (rules.items[index] as { range?: [number, number, number] } | undefined)?.range
      : undefined;
    return source === undefined || range === undefined ? undefined : source.text.slice(range[0], range[2]);
  }

  /** The first file, in the order given, that defines a named list. */
  listFile(name: string, files: readonly string[]): string | undefined {
    return files.find((file) => {
      const lists = this.sources.get(file)?.document.get('lists', true);
      return isMap(lists) && lists.has(name);
    });
  }
}
