/**
 * Letters and signs that Unicode decomposition (NFKD) does not turn into ASCII, with the ASCII people
 * write for them. Accented Latin letters need no entry: NFKD splits them into a base letter and a
 * combining mark, and the mark is dropped.
 */
const REPLACEMENTS: Readonly<Record<string, string>> = {
  ß: 'ss',
  ẞ: 'SS',
  æ: 'ae',
  Æ: 'AE',
  œ: 'oe',
  Œ: 'OE',
  ø: 'o',
  Ø: 'O',
  đ: 'd',
  Đ: 'D',
  ð: 'd',
  Ð: 'D',
  ł: 'l',
  Ł: 'L',
  þ: 'th',
  Þ: 'Th',
  ı: 'i',
  ħ: 'h',
  Ħ: 'H',
  '\u2018': "'",
  '\u2019': "'",
  '\u201A': "'",
  '\u201B': "'",
  '\u2032': "'",
  '\u201C': '"',
  '\u201D': '"',
  '\u201E': '"',
  '\u201F': '"',
  '\u2033': '"',
  '\u00AB': '"',
  '\u00BB': '"',
  '\u2039': "'",
  '\u203A': "'",
  '\u2010': '-',
  '\u2011': '-',
  '\u2012': '-',
  '\u2013': '-',
  '\u2014': '-',
  '\u2015': '-',
  '\u2212': '-',
  '\u2026': '...',
  '\u2022': '*',
  '\u00B7': '-',
  '\u00D7': 'x',
  '\u2192': '->',
  '\u2190': '<-',
  '\u21D2': '=>',
  '\u2264': '<=',
  '\u2265': '>=',
  '\u2260': '!=',
  '\u00A9': '(c)',
  '\u00AE': '(R)',
  '\u2122': 'TM',
  '\u20AC': 'EUR',
  '\u00A3': 'GBP',
  '\u00A5': 'JPY',
};

const COMBINING_MARK = /\p{M}/u;
/** Printable ASCII words with single spaces between them: text that is its own transliteration. */
const PRINTABLE_WORDS = /^[\x21-\x7E]+(?: [\x21-\x7E]+)*$/;
/** Every kind of line break or white space, which the subject turns into a plain space. */
const SPACE_LIKE = /\s/u;

/**
 * Turns text into printable ASCII (0x20 to 0x7E) on one line: accents are dropped (`é` → `e`), common
 * letters and punctuation are spelled out (`ß` → `ss`, `’` → `'`, `…` → `...`), white space and line
 * breaks become single spaces, and whatever has no ASCII spelling (control characters, CJK, emoji) is
 * dropped. Leading and trailing spaces are trimmed. With `maxLength`, stops once the result is longer
 * than that: enough for a caller that cuts, without reading the rest of a huge text.
 *
 * @example
 * ```ts
 * toPrintableAscii('Zugriff für „Jürgen“\r\nauf 0.0.0.0/0 ✅'); // 'Zugriff fur "Jurgen" auf 0.0.0.0/0'
 * ```
 */
export function toPrintableAscii(text: string, maxLength = Number.POSITIVE_INFINITY): string {
  if (text.length <= maxLength && PRINTABLE_WORDS.test(text)) return text;
  let out = '';
  let pendingSpace = false;
  for (const char of text) {
    if (out.length > maxLength) break;
    const ascii = transliterate(char);
    if (ascii === ' ') {
      pendingSpace = out.length > 0;
      continue;
    }
    if (ascii === '') continue;
    if (pendingSpace) out += ' ';
    pendingSpace = false;
    out += ascii;
  }
  return out;
}

function transliterate(char: string): string {
  const code = char.codePointAt(0) ?? 0;
  if (code >= 0x20 && code <= 0x7e) return char;
  if (code < 0xa0) return (code >= 0x09 && code <= 0x0d) || code === 0x85 ? ' ' : '';
  // A lone surrogate has no spelling at all.
  if (code >= 0xd800 && code <= 0xdfff) return '';
  if (SPACE_LIKE.test(char)) return ' ';
  const replacement = REPLACEMENTS[char];
  if (replacement !== undefined) return replacement;
  let out = '';
  for (const part of char.normalize('NFKD')) {
    const partCode = part.codePointAt(0) ?? 0;
    if (partCode >= 0x20 && partCode <= 0x7e) out += part;
    else if (COMBINING_MARK.test(part)) continue;
    else {
      const partReplacement = REPLACEMENTS[part];
      if (partReplacement !== undefined) out += partReplacement;
    }
  }
  return out;
}
