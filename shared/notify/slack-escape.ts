import { cleanLine, cleanMultiline, sliceCodePoints } from '../text-cleaning.js';

/**
 * Escaping for Slack mrkdwn, as AWS Chatbot passes `client-markdown` text to Slack.
 *
 * - `&`, `<` and `>` become `&amp;`, `&lt;` and `&gt;`, as Slack asks: `<!channel>`, `<@U123>` and
 *   `<https://evil.example|click>` then read as text, never as a mention or a disguised link.
 * - Slack has no escape for its formatting characters: a backslash is shown as is and formats nothing
 *   away. So `*`, `_` and `~` are replaced by look-alikes that no markup reads as a delimiter, `∗`
 *   (U+2217), `ˍ` (U+02CD) and `∼` (U+223C), wherever they could open or close formatting: everywhere
 *   except between two ASCII letters or digits, where Slack never formats (so `NETWORK_PERMISSION_ENTRY_ADDED`
 *   and `j_doe` stay exact). The backtick becomes `ˋ` (U+02CB) everywhere. Replacing is deterministic,
 *   where invisible-space tricks depend on how Slack pairs delimiters today. The cost is that such a
 *   value copied out of Slack is not byte-exact; the email and its raw event JSON keep exact values.
 * - `@` is followed by a word joiner (U+2060, invisible), so `@channel` or `@here` typed into a field is
 *   never resolved into a mention by a client that links names.
 * - Line breaks and control characters are cleaned first (see `text-cleaning.ts`).
 */

/** The replacement of each character Slack could read as markup, by character code. */
const REPLACEMENTS: ReadonlyMap<number, string> = new Map([
  [0x26, '&amp;'],
  [0x3c, '&lt;'],
  [0x3e, '&gt;'],
  [0x2a, '\u2217'],
  [0x5f, '\u02CD'],
  [0x7e, '\u223C'],
  [0x60, '\u02CB'],
  [0x40, '@\u2060'],
]);

/** `*`, `_` and `~`: formatting delimiters that are harmless between two ASCII letters or digits. */
const INTRAWORD_SAFE = new Set([0x2a, 0x5f, 0x7e]);

/**
 * What escaping acts on: a character with a replacement above, or one that cleaning changes (see
 * `needsCleaning`). Text without one, and short enough, is returned as it is.
 */
const NEEDS_ESCAPING =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is this pattern's job.
  /[&<>*_~`@\u0000-\u001F\u007F-\u009F\u061C\u200E\u200F\u202A-\u202E\u2028\u2029\u2066-\u2069\uD800-\uDFFF]/;

/** The characters the escaping loop looks at one by one: those with a replacement, and surrogates. */
const SPECIAL = /[&<>*_~`@\uD800-\uDFFF]/g;

/** How {@link escapeSlackText} treats a text. */
export interface SlackEscapeOptions {
  /** Keep line breaks (summaries, runbooks). Default: one line. */
  multiline?: boolean;
  /** Exact mention tokens that pass through unescaped (see `allowedMentionTokens`). Default: none. */
  allowedMentions?: ReadonlySet<string>;
  /** Longest result, in UTF-16 code units; a longer result is cut and ends with `…`. Default: none. */
  maxLength?: number;
}

const ELLIPSIS = '\u2026';

/**
 * Escapes text for Slack mrkdwn so that it reads exactly as text: no mention, link or formatting can
 * come out of it except the mention tokens listed in `allowedMentions`. Never cuts inside an escape
 * sequence or a surrogate pair. Never throws.
 *
 * @example
 * ```ts
 * escapeSlackText('<!channel> *root*'); // '&lt;!channel&gt; ∗root∗'
 * ```
 */
export function escapeSlackText(text: string, options: SlackEscapeOptions = {}): string {
  const maxLength = options.maxLength ?? Number.POSITIVE_INFINITY;
  if (text.length <= maxLength && !NEEDS_ESCAPING.test(text)) return text;
  // Escaping never shortens by more than dropping bidi controls does, so four times the budget is
  // plenty; cutting first keeps a 1 MB value from costing 1 MB of work.
  const budgetSource = Number.isFinite(maxLength) ? Math.max(0, maxLength) * 4 + 16 : text.length;
  const source = text.length > budgetSource ? sliceCodePoints(text, budgetSource) : text;
  const cleaned = options.multiline ? cleanMultiline(source) : cleanLine(source);
  const tokens = options.allowedMentions === undefined ? [] : [...options.allowedMentions];

  // The text is a run of pieces that are never cut: an allowed token, or one escaped character (a
  // surrogate pair is one character). Pieces are kept while they fit; only the last one's length
  // matters when room must be made for the ellipsis.
  let out = '';
  let length = 0;
  let lastPiece = 0;
  let cut = source.length < text.length;
  let cursor = 0;
  while (cursor < cleaned.length) {
    if (tokens.length === 0) {
      // A run up to the next character with a replacement or a surrogate is copied whole: each of its
      // characters is one code unit kept as it is.
      SPECIAL.lastIndex = cursor;
      const next = SPECIAL.exec(cleaned)?.index ?? cleaned.length;
      const run = next - cursor;
      if (run > 0) {
        if (!(length + run > maxLength)) {
          out += cleaned.slice(cursor, next);
          length += run;
          lastPiece = 1;
          cursor = next;
          continue;
        }
        const take = Math.max(0, Math.floor(maxLength - length));
        out += cleaned.slice(cursor, cursor + take);
        length += take;
        if (take > 0) lastPiece = 1;
        cut = true;
        break;
      }
    }
    const code = cleaned.charCodeAt(cursor);
    let piece: string;
    let consumed = 1;
    const token = tokens.length > 0 ? tokenAt(cleaned, cursor, tokens) : undefined;
    if (token !== undefined) {
      piece = token;
      consumed = token.length;
    } else {
      const replacement = REPLACEMENTS.get(code);
      if (replacement !== undefined) {
        const keep =
          INTRAWORD_SAFE.has(code) &&
          isAsciiAlphanumeric(cleaned, cursor - 1) &&
          isAsciiAlphanumeric(cleaned, cursor + 1);
        piece = keep ? (cleaned[cursor] ?? '') : replacement;
      } else if (isHighSurrogate(code) && isLowSurrogate(cleaned.charCodeAt(cursor + 1))) {
        piece = cleaned.slice(cursor, cursor + 2);
        consumed = 2;
      } else {
        piece = cleaned[cursor] ?? '';
      }
    }
    if (length + piece.length > maxLength) {
      cut = true;
      break;
    }
    out += piece;
    length += piece.length;
    lastPiece = piece.length;
    cursor += consumed;
  }
  if (cut) {
    // The ellipsis is one code unit: at most the last piece makes room for it.
    if (length > 0 && length + ELLIPSIS.length > maxLength) {
      out = out.slice(0, out.length - lastPiece);
      length -= lastPiece;
    }
    if (length + ELLIPSIS.length <= maxLength) out += ELLIPSIS;
  }
  return out;
}

/** The first allowed token that starts at `index`, if any. */
function tokenAt(text: string, index: number, tokens: readonly string[]): string | undefined {
  for (const token of tokens) if (token !== '' && text.startsWith(token, index)) return token;
  return undefined;
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

function isAsciiAlphanumeric(text: string, index: number): boolean {
  const code = text.charCodeAt(index);
  return (code >= 0x30 && code <= 0x39) || (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a);
}
