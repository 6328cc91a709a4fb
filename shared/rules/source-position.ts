import { type Document, isMap, isPair, isScalar, isSeq, type LineCounter, type Node } from 'yaml';

/** A parsed YAML rule file, kept to turn document paths into lines and columns. */
export interface YamlSource {
  readonly file: string;
  readonly text: string;
  readonly document: Document;
  readonly lineCounter: LineCounter;
}

/** Where a problem points: 1-based line and column, the line's text, and how much to underline. */
export interface SourcePosition {
  line: number;
  column: number;
  sourceLine: string;
  length: number;
}

/** What to point at: the node at a path, its key in the enclosing map, or a text inside it. */
export interface PositionTarget {
  path: readonly (string | number)[];
  /** Point at the key of the last path element rather than at its value. */
  key?: boolean | undefined;
  /** A text to look for inside the node's source, such as a template placeholder. */
  needle?: string | undefined;
}

/**
 * The position in a YAML file of the node at a document path: `rules[2].match.opType`. Where the path
 * goes further than the document (a missing key), the deepest node that exists is used.
 *
 * @example
 * ```ts
 * positionOf(source, { path: ['rules', 0, 'severity'] }); // { line: 5, column: 15, ... }
 * ```
 */
export function positionOf(source: YamlSource, target: PositionTarget): SourcePosition {
  let node: unknown = source.document.contents;
  let range: readonly number[] | undefined = (node as Node | null)?.range ?? undefined;
  for (let index = 0; index < target.path.length; index++) {
    const segment = target.path[index];
    const last = index === target.path.length - 1;
    if (isMap(node)) {
      const pair = node.items.find(
        (item) => isPair(item) && isScalar(item.key) && String(item.key.value) === String(segment),
      );
      if (pair === undefined) break;
      const keyNode = pair.key as Node;
      if (last && target.key === true) {
        range = keyNode.range ?? range;
        break;
      }
      node = pair.value;
      range = (pair.value as Node | null)?.range ?? keyNode.range ?? range;
    } else if (isSeq(node) && typeof segment === 'number') {
      const item = node.items[segment];
      if (item === undefined) break;
      node = item;
      range = (item as Node).range ?? range;
    } else {
      break;
    }
  }
  const start = range?.[0] ?? 0;
  const end = range?.[1] ?? start + 1;
  if (target.needle !== undefined) {
    const found = source.text.indexOf(target.needle, start);
    if (found !== -1 && found < (range?.[2] ?? end)) return positionAt(source, found, target.needle.length);
  }
  return positionAt(source, start, Math.max(1, end - start));
}

/**
 * The position of a character offset in a YAML file.
 *
 * @example
 * ```ts
 * positionAt(source, error.pos[0], 1);
 * ```
 */
export function positionAt(source: YamlSource, offset: number, length: number): SourcePosition {
  const { line, col } = source.lineCounter.linePos(Math.min(offset, source.text.length));
  const lineStart = source.lineCounter.lineStarts[line - 1] ?? 0;
  const lineEnd = source.text.indexOf('\n', lineStart);
  const sourceLine = source.text
    .slice(lineStart, lineEnd === -1 ? source.text.length : lineEnd)
    .replace(/\r$/, '');
  return {
    line,
    column: col,
    sourceLine,
    length: Math.max(1, Math.min(length, sourceLine.length - col + 1)),
  };
}
