/** The text that stands in for a scrubbed secret. */
export const REDACTED = '[REDACTED]';

/** Secrets shorter than this are not scrubbed: replacing every "a" in a message would garble it. */
const MIN_SECRET_LENGTH = 6;

/**
 * Scrubs known secrets out of text that came from elsewhere (an error `detail` a server wrote, a
 * header it echoed). The client's own messages never contain a secret; this is the second line, for
 * a server or proxy that echoes a request back.
 *
 * @example
 * ```ts
 * const redactor = new SecretRedactor(['fake-private-key-for-tests']);
 * redactor.redact('key fake-private-key-for-tests refused'); // 'key [REDACTED] refused'
 * ```
 */
export class SecretRedactor {
  readonly #secrets = new Set<string>();

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
  }

  /** `text` with every known secret replaced by {@link REDACTED}. */
  redact(text: string): string {
    let result = text;
    // Longest first, so a secret that contains another is scrubbed whole.
    const secrets = [...this.#secrets].sort((a, b) => b.length - a.length);
    for (const secret of secrets) {
      if (result.includes(secret)) {
        result = result.split(secret).join(REDACTED);
      }
    }
    return result;
  }
}
