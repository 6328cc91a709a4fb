import { cleanLine, cleanMultiline, sliceCodePoints } from './text-cleaning.js';

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

const REPLACEMENTS: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '*': '\u2217',
  _: '\u02CD',
  '~': '\u223C',
  '`': '\u02CB',
  '@': '@\u2060',
};

/** Formatting delimiters that are harmless between two ASCII letters or digits. */
const INTRAWORD_SAFE = new Set(['*', '_', '~']);

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
  // Escaping never shortens by more than dropping bidi controls does, so four times the budget is
  // plenty; cutting first keeps a 1 MB value from costing 1 MB of work.
  const budgetSource = Number.isFinite(maxLength) ? Math.max(0, maxLength) * 4 + 16 : text.length;
  const source = text.length > budgetSource ? sliceCodePoints(text, budgetSource) : text;
  const cleaned = options.multiline ? cleanMultiline(source) : cleanLine(source);
  const pieces = tokenize(cleaned, options.allowedMentions);

  const kept: string[] = [];
  let length = 0;
  let cut = source.length < text.length;
  for (const piece of pieces) {
    if (length + piece.length > maxLength) {
      cut = true;
      break;
    }
    kept.push(piece);
    length += piece.length;
  }
  if (cut) {
    while (kept.length > 0 && length + ELLIPSIS.length > maxLength) length -= kept.pop()?.length ?? 0;
    if (length + ELLIPSIS.length <= maxLength) kept.push(ELLIPSIS);
  }
  return kept.join('');
}

/** Splits cleaned text into pieces that must never be cut: an allowed token, or one escaped character. */
function tokenize(text: string, allowed: ReadonlySet<string> | undefined): string[] {
  const pieces: string[] = [];
  const tokens = allowed && allowed.size > 0 ? [...allowed] : [];
  let cursor = 0;
  while (cursor < text.length) {
    const token = tokens.find((candidate) => text.startsWith(candidate, cursor));
    if (token !== undefined) {
      pieces.push(token);
      cursor += token.length;
      continue;
    }
    const char = String.fromCodePoint(text.codePointAt(cursor) ?? 0);
    const replacement = REPLACEMENTS[char];
    const keep =
      replacement === undefined ||
      (INTRAWORD_SAFE.has(char) &&
        isAsciiAlphanumeric(text, cursor - 1) &&
        isAsciiAlphanumeric(text, cursor + 1));
    pieces.push(keep ? char : replacement);
    cursor += char.length;
  }
  return pieces;
}

function isAsciiAlphanumeric(text: string, index: number): boolean {
  const code = text.charCodeAt(index);
  return (code >= 0x30 && code <= 0x39) || (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a);
}
