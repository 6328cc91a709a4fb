import { type Document, isAlias, isCollection, isPair, type Node } from 'yaml';

/**
 * The most nodes the aliases of a rule file may add once expanded. A rule file names a list or a
 * match block a few times with `*name`; a hundred thousand nodes is far more than that needs.
 */
export const MAX_ALIAS_EXPANSION = 100_000;

/** Where the aliases of a document expand past the bound. */
export interface YamlAliasProblem {
  /** Offset of the alias that went past it. */
  offset: number;
  /** The alias's anchor name. */
  anchor: string;
  /** The nodes the anchored node holds, aliases in it expanded; `Infinity` when it holds itself. */
  anchorNodes: number;
  /** The nodes the aliases so far expand to, with this one. */
  expanded: number;
}

/**
 * Finds where the aliases of a parsed document expand past `maxNodes` nodes in all. The YAML library
 * bounds the number of aliases (`maxAliasCount`), not what they expand to: 99 aliases of an anchored
 * list of 200,000 items pass its check and become 20 million items once the document is read as data.
 * Each anchored node's size is counted once (aliases inside it expanded), so the walk is linear in the
 * document, and an alias that refers to a node containing it counts as endless.
 *
 * @returns The first alias past the bound, or `undefined` when the document stays within it.
 * @example
 * ```ts
 * findAliasExpansion(parseDocument('a: &a [1, 2]\nb: [*a, *a]')); // undefined: 6 nodes added
 * ```
 */
export function findAliasExpansion(
  document: Document,
  maxNodes: number = MAX_ALIAS_EXPANSION,
): YamlAliasProblem | undefined {
  const anchors = new Map<string, Node>();
  const sizes = new Map<Node, number>();
  const open = new Set<Node>();
  let expanded = 0;
  let problem: YamlAliasProblem | undefined;

  const sizeOf = (node: unknown): number => {
    if (problem !== undefined || node === null || typeof node !== 'object') return 0;
    if (isPair(node)) return sizeOf(node.key) + sizeOf(node.value);
    const yamlNode = node as Node;
    if (isAlias(yamlNode)) {
      const target = anchors.get(yamlNode.source);
      // An alias naming no anchor before it is the loader's to report, as YAML reading does.
      if (target === undefined) return 1;
      const size = open.has(target) ? Number.POSITIVE_INFINITY : (sizes.get(target) ?? 1);
      expanded += size;
      if (expanded > maxNodes) {
        problem = { offset: yamlNode.range?.[0] ?? 0, anchor: yamlNode.source, anchorNodes: size, expanded };
      }
      return size;
    }
    if (yamlNode.anchor !== undefined) anchors.set(yamlNode.anchor, yamlNode);
    open.add(yamlNode);
    let size = 1;
    if (isCollection(yamlNode)) for (const item of yamlNode.items) size += sizeOf(item);
    open.delete(yamlNode);
    sizes.set(yamlNode, size);
    return size;
  };

  sizeOf(document.contents);
  return problem;
}
