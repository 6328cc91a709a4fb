/** The text that stands in for a scrubbed secret. */
export const REDACTED = '[REDACTED]';

/** Secrets shorter than this are not scrubbed: replacing every "a" in a message would garble it. */
const MIN_SECRET_LENGTH = 6;

/**
 * Scrubs known secrets out of text that came from elsewhere (an error `detail` a server wrote, a
 * header it echoed, an event field that holds what someone typed). The client's own messages never
 * contain a secret; this is the second line, for a server or proxy that echoes a request back, so
 * that no answer of Atlas carries the poller's own secret into a log, an alert or the CLI's output.
 *
 * @example
 * ```ts
 * const redactor = new SecretRedactor(['fake-private-key-for-tests']);
 * redactor.redact('key fake-private-key-for-tests refused'); // 'key [REDACTED] refused'
 * ```
 */
export class SecretRedactor {
  readonly #secrets = new Set<string>();
  /** The secrets longest first, so a secret that contains another is scrubbed whole. */
  #longestFirst: string[] = [];

  constructor(secrets: Iterable<string> = []) {
    for (const secret of secrets) {
      this.add(secret);
    }
  }

  /** Adds a secret (an access token once it is issued), with its URL-encoded form when that differs. */
  add(secret: string): void {
    if (secret.length < MIN_SECRET_LENGTH) {
      return;
    }
    this.#secrets.add(secret);
    const encoded = encodeURIComponent(secret);
    if (encoded !== secret) {
      this.#secrets.add(encoded);
    }
    this.#longestFirst = [...this.#secrets].sort((a, b) => b.length - a.length);
  }

  /**
   * Parses a JSON body with every known secret scrubbed from its strings, however the server wrote
   * them: the text is scrubbed before parsing (fast), and when it holds `\u` escapes, which could
   * spell a secret the text scan misses, every string of the parsed value is scrubbed as well.
   *
   * @throws SyntaxError when the text is not JSON.
   *
   * @example
   * ```ts
   * new SecretRedactor(['fake-private-key-for-tests']).parseJson('{"user":"fake-private-key-for-tests"}');
   * // { user: '[REDACTED]' }
   * ```
   */
  parseJson(text: string): unknown {
    if (this.#secrets.size === 0) return JSON.parse(text);
    const parsed: unknown = JSON.parse(this.redact(text));
    return text.includes('\\u') ? this.#redactStrings(parsed) : parsed;
  }

  #redactStrings(value: unknown): unknown {
    if (typeof value === 'string') return this.redact(value);
    if (Array.isArray(value)) return value.map((item) => this.#redactStrings(item));
    if (typeof value === 'object' && value !== null) {
      const result: Record<string, unknown> = {};
      for (const [key, item] of Object.entries(value)) {
        // defineProperty, not assignment: a `__proto__` key stays an own property, as JSON.parse made it.
        Object.defineProperty(result, this.redact(key), {
          value: this.#redactStrings(item),
          enumerable: true,
          writable: true,
          configurable: true,
        });
      }
      return result;
    }
    return value;
  }

  /** `text` with every known secret replaced by {@link REDACTED}. */
  redact(text: string): string {
    let result = text;
    for (const secret of this.#longestFirst) {
      if (result.includes(secret)) {
        result = result.split(secret).join(REDACTED);
      }
    }
    return result;
  }
}
