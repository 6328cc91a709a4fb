import { isMap, isSeq, LineCounter, parseDocument } from 'yaml';
import type { RuleFileText } from '../loader.js';
import { readRuleFile } from '../rule-file-reader.js';
import { positionOf, type SourcePosition, type YamlSource } from '../source-position.js';

/**
 * The rule files of a pack, parsed again (each only when a warning needs it) to point warnings at
 * lines and columns. The loader has validated them already; a file that no longer parses (changed
 * since) just gives no positions.
 */
export class RuleSources {
  private readonly texts = new Map<string, string>();
  private readonly parsed = new Map<string, YamlSource | undefined>();
  /** Whether each file holds a `lint-allow` comment, looked for once per file. */
  private readonly allowing = new Map<string, boolean>();
  /** The names each file's `lists:` defines, read once per file. */
  private readonly listNames = new Map<string, ReadonlySet<string>>();

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
   * const sources = RuleSources.read(pack.files);
   * ```
   */
  static read(files: readonly string[]): RuleSources {
    const texts: RuleFileText[] = [];
    for (const file of files) {
      // Read as the loader reads it: a file gone or changed into something else since it was loaded
      // keeps its warnings' document paths, without lines.
      const read = readRuleFile(file);
      if (read.ok) texts.push({ file, text: read.text });
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
    let allowing = this.allowing.get(file);
    if (allowing === undefined) {
      allowing = this.texts.get(file)?.includes('lint-allow') === true;
      this.allowing.set(file, allowing);
    }
    if (!allowing) return undefined;
    const source = this.source(file);
    const items = source?.document.get(section, true);
    const range = isSeq(items)
      ? (items.items[index] as { range?: [number, number, number] } | undefined)?.range
      : undefined;
    return source === undefined || range === undefined ? undefined : source.text.slice(range[0], range[2]);
  }

  /** The first file, in the order given, that defines a named list. */
  listFile(name: string, files: readonly string[]): string | undefined {
    return files.find((file) => this.listsOf(file).has(name));
  }

  private listsOf(file: string): ReadonlySet<string> {
    let names = this.listNames.get(file);
    if (names === undefined) {
      const lists = this.texts.get(file)?.includes('lists')
        ? this.source(file)?.document.get('lists', true)
        : undefined;
      names = new Set(
        isMap(lists)
          ? lists.items.map((pair) => String((pair.key as { value?: unknown } | null)?.value ?? pair.key))
          : [],
      );
      this.listNames.set(file, names);
    }
    return names;
  }
}
