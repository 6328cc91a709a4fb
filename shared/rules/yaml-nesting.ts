/** The deepest nesting of lists and mappings a rule or configuration file may have. */
export const MAX_YAML_NESTING = 100;

/** Where a text nests too deeply. */
export interface YamlNestingProblem {
  /** Offset of the character that went past the limit. */
  offset: number;
  /** The nesting reached there (an upper bound). */
  depth: number;
}

const QUOTE_STARTS_AFTER = new Set([':', '-', '?', '[', '{', ',']);

/**
 * Finds where a YAML (or JSON) text nests lists and mappings more than `maxDepth` levels deep, before
 * any parser reads it. The YAML library composes documents recursively: thousands of levels exhaust
 * the stack, and V8 may then abort the whole process rather than throw. The scan is linear and
 * errs high: every `[` or `{` outside quotes and comments counts a level, and so does every space of
 * indentation and every `- ` or `? ` that opens a line, so a file of ordinary depth (a rule file has
 * about ten levels) is never refused.
 *
 * @returns The first place past the limit, or `undefined` when the text stays within it.
 * @example
 * ```ts
 * findExcessiveNesting('a: [[[]]]'); // undefined
 * findExcessiveNesting(`a: ${'['.repeat(500)}`); // { offset: 103, depth: 101 }
 * ```
 */
export function findExcessiveNesting(
  text: string,
  maxDepth: number = MAX_YAML_NESTING,
): YamlNestingProblem | undefined {
  let flow = 0;
  let block = 0;
  let lineStart = true;
  let previous = '';
  for (let index = 0; index < text.length; index += 1) {
    const char = text[index] as string;
    if (char === '\n') {
      lineStart = true;
      block = 0;
      previous = '';
      continue;
    }
    if (lineStart) {
      const opensEntry =
        (char === '-' || char === '?') && (text[index + 1] === ' ' || text[index + 1] === '\n');
      if (char === ' ' || opensEntry) {
        block += 1;
        if (flow + block > maxDepth) return { offset: index, depth: flow + block };
        continue;
      }
      lineStart = false;
    }
    if (char === '#' && (previous === '' || previous === ' ' || previous === '\t')) {
      const end = text.indexOf('\n', index);
      index = (end === -1 ? text.length : end) - 1;
      continue;
    }
    if ((char === '"' || char === "'") && (previous === '' || QUOTE_STARTS_AFTER.has(previous))) {
      index = quotedEnd(text, index, char);
      previous = char;
      continue;
    }
    if (char === '[' || char === '{') {
      flow += 1;
      if (flow + block > maxDepth) return { offset: index, depth: flow + block };
    } else if ((char === ']' || char === '}') && flow > 0) {
      flow -= 1;
    }
    if (char !== ' ' && char !== '\t') previous = char;
  }
  return undefined;
}

/** The offset of the quote that closes the string opened at `start` (the last offset if none does). */
function quotedEnd(text: string, start: number, quote: string): number {
  for (let index = start + 1; index < text.length; index += 1) {
    const char = text[index];
    if (quote === '"' && char === '\\') {
      index += 1;
    } else if (char === quote) {
      if (quote === "'" && text[index + 1] === "'") index += 1;
      else return index;
    }
  }
  return text.length - 1;
}
