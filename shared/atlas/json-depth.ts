/**
 * How deep the client lets an answer nest arrays and objects. Atlas events are a few levels deep and a
 * MongoDB document (an event's `raw`) at most 100; a body far deeper is broken or hostile, and code
 * that walks it recursively (fingerprints, rules, formatters) would exhaust the stack.
 */
export const MAX_JSON_DEPTH = 256;

/**
 * Whether a JSON text nests arrays and objects more than `maxDepth` levels deep, found by one linear
 * scan that skips strings (brackets inside them do not count). It does not validate the text:
 * `JSON.parse` does that after.
 *
 * @example
 * ```ts
 * jsonNestsDeeperThan('{"a":[[1]]}', 3); // false
 * jsonNestsDeeperThan(`${'['.repeat(300)}${']'.repeat(300)}`, 256); // true
 * ```
 */
export function jsonNestsDeeperThan(text: string, maxDepth: number = MAX_JSON_DEPTH): boolean {
  // A text with no more opening brackets than that, in strings or not, cannot nest deeper: counting
  // them takes a native search per bracket, where the scan below reads every character.
  if (!hasMoreThan(text, OPENERS, maxDepth)) return false;
  let depth = 0;
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (code === QUOTE) {
      index = stringEnd(text, index);
      if (index === -1) return false;
    } else if (code === OPEN_BRACKET || code === OPEN_BRACE) {
      depth += 1;
      if (depth > maxDepth) return true;
    } else if (code === CLOSE_BRACKET || code === CLOSE_BRACE) {
      depth -= 1;
    }
  }
  return false;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;

const OPENERS = ['{', '['];

/** Whether `text` holds more than `limit` occurrences of the characters `chars`, all told. */
function hasMoreThan(text: string, chars: readonly string[], limit: number): boolean {
  let count = 0;
  for (const char of chars) {
    for (let index = text.indexOf(char); index !== -1; index = text.indexOf(char, index + 1)) {
      count += 1;
      if (count > limit) return true;
    }
  }
  return false;
}

/** The offset of the quote that ends the string opened at `start`, or -1 when none does. */
function stringEnd(text: string, start: number): number {
  let quote = text.indexOf('"', start + 1);
  while (quote !== -1) {
    let backslashes = 0;
    while (text.charCodeAt(quote - 1 - backslashes) === BACKSLASH) backslashes += 1;
    if (backslashes % 2 === 0) return quote;
    quote = text.indexOf('"', quote + 1);
  }
  return -1;
}
