/**
 * Text from events is hostile until cleaned: it may hold lone UTF-16 surrogates (which no UTF-8
 * encoder can carry), terminal escape sequences, line breaks where one line is expected, and bidi
 * controls that make a value read differently from what it is. These helpers make text safe to put in
 * front of a person; the raw event JSON keeps the exact value for whoever needs it.
 */

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
/** Bidi embeddings, overrides and isolates, and the invisible direction marks. */
const BIDI_CONTROL = /[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/g;
const LINE_BREAK = /\r\n|[\r\n\u2028\u2029\u0085]/g;
/** C0 and C1 controls and DEL, line breaks and tabs excepted (they are handled first). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is this pattern's job.
const CONTROL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u0084\u0086-\u009F]/g;

/**
 * Every character any of the patterns above acts on (any surrogate, paired or not): text without one
 * is returned as it is, after one scan, which is what almost every value is.
 */
const NEEDS_CLEANING =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is this pattern's job.
  /[\u0000-\u001F\u007F-\u009F\u061C\u200E\u200F\u202A-\u202E\u2028\u2029\u2066-\u2069\uD800-\uDFFF]/;
const SURROGATE = /[\uD800-\uDFFF]/;

/**
 * Whether {@link cleanLine} and {@link cleanMultiline} would change `text`; `false` means both return it
 * as it is.
 *
 * @example
 * ```ts
 * needsCleaning('alice'); // false
 * needsCleaning('a\u202Eb'); // true
 * ```
 */
export function needsCleaning(text: string): boolean {
  return NEEDS_CLEANING.test(text);
}

/** The replacement character, shown where a control character was: visible, and never a command. */
export const REPLACEMENT_CHARACTER = '\uFFFD';

/**
 * Replaces every lone surrogate with U+FFFD, so the text encodes to UTF-8 without loss of the rest.
 *
 * @example
 * ```ts
 * wellFormed('a\uD800b'); // 'a\uFFFDb'
 * ```
 */
export function wellFormed(text: string): string {
  return SURROGATE.test(text) ? text.replace(LONE_SURROGATE, REPLACEMENT_CHARACTER) : text;
}

/**
 * Makes text fit on one line: line breaks and tabs become spaces, other control characters become
 * U+FFFD, bidi controls are dropped, lone surrogates become U+FFFD.
 *
 * @example
 * ```ts
 * cleanLine('alice\r\n\u001b[31mroot'); // 'alice \uFFFD[31mroot'
 * ```
 */
export function cleanLine(text: string): string {
  if (!NEEDS_CLEANING.test(text)) return text;
  return wellFormed(text)
    .replace(LINE_BREAK, ' ')
    .replace(/\t/g, ' ')
    .replace(CONTROL, REPLACEMENT_CHARACTER)
    .replace(BIDI_CONTROL, '');
}

/**
 * Like {@link cleanLine}, but keeps line breaks, normalised to `\n`.
 *
 * @example
 * ```ts
 * cleanMultiline('one\r\ntwo\u0007'); // 'one\ntwo\uFFFD'
 * ```
 */
export function cleanMultiline(text: string): string {
  if (!NEEDS_CLEANING.test(text)) return text;
  return wellFormed(text)
    .replace(LINE_BREAK, '\n')
    .replace(/\t/g, '  ')
    .replace(CONTROL, REPLACEMENT_CHARACTER)
    .replace(BIDI_CONTROL, '');
}

/**
 * Characters that show nothing and change nothing a reader can see: zero-width spaces and joiners,
 * the word joiner and invisible operators, the byte-order mark, the soft hyphen, the Mongolian vowel
 * separator, the Hangul fillers and the tag characters. A name that holds one reads the same as a
 * name that does not, so `prod\u200B` could pass for `prod`.
 */
const INVISIBLE =
  /[\u00AD\u115F\u1160\u180E\u200B-\u200D\u2060-\u2064\u3164\uFEFF\uFFA0]|\uDB40[\uDC00-\uDC7F]/g;

/**
 * One line of text a person reads as a name or a message: {@link cleanLine}, and the invisible
 * characters (zero-width spaces and joiners, the byte-order mark, tag characters and the like) removed,
 * so that nothing in it is there without showing. For names and messages, not for event values shown
 * for inspection (those keep their characters, escaped where they show).
 *
 * @example
 * ```ts
 * cleanVisibleLine('pay\u200Bments\u202Eprod\u2028x'); // 'paymentsprod x'
 * ```
 */
export function cleanVisibleLine(text: string): string {
  return removeInvisible(cleanLine(text));
}

/**
 * Removes the invisible characters (see {@link cleanVisibleLine}) and nothing else.
 *
 * @example
 * ```ts
 * removeInvisible('\uFEFFprod\u200B'); // 'prod'
 * ```
 */
export function removeInvisible(text: string): string {
  return text.replace(INVISIBLE, '');
}

/**
 * {@link cleanLine} and {@link truncateText} in one, without cleaning more of a huge text than can show.
 *
 * @example
 * ```ts
 * cleanLineWithin('a\nb'.repeat(1_000_000), 10); // 'a b a b a…'
 * ```
 */
export function cleanLineWithin(text: string, maxLength: number, ellipsis = '\u2026'): string {
  // Cleaning never lengthens text, and drops little: twice the room is enough to fill it.
  const room = maxLength * 2 + 8;
  if (text.length <= room) return truncateText(cleanLine(text), maxLength, ellipsis);
  const cleaned = cleanLine(sliceCodePoints(text, room));
  if (cleaned.length > maxLength) return truncateText(cleaned, maxLength, ellipsis);
  return `${sliceCodePoints(cleaned, maxLength - ellipsis.length)}${ellipsis}`;
}

/**
 * Cuts text to at most `maxLength` UTF-16 code units, ending with `ellipsis` when cut, never splitting a
 * surrogate pair. Text that fits is returned as is.
 *
 * @example
 * ```ts
 * truncateText('abcdef', 4, '...'); // 'a...'
 * ```
 */
export function truncateText(text: string, maxLength: number, ellipsis = '\u2026'): string {
  if (text.length <= maxLength) return text;
  if (maxLength <= ellipsis.length) return ellipsis.slice(0, Math.max(0, maxLength));
  return `${sliceCodePoints(text, maxLength - ellipsis.length)}${ellipsis}`;
}

/**
 * The first `end` code units of `text`, one fewer when the cut would split a surrogate pair.
 *
 * @example
 * ```ts
 * sliceCodePoints('a\u{1F600}', 2); // 'a'
 * ```
 */
export function sliceCodePoints(text: string, end: number): string {
  if (end <= 0) return '';
  if (end >= text.length) return text;
  const last = text.charCodeAt(end - 1);
  const cutsPair = last >= 0xd800 && last <= 0xdbff;
  return text.slice(0, cutsPair ? end - 1 : end);
}
