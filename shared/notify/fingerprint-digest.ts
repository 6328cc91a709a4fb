import { hash } from 'node:crypto';

/**
 * A short, stable stand-in for an alert fingerprint where the fingerprint itself cannot go: it may be
 * long and hold event text (a group key), while Chatbot thread ids and SNS entry ids want short, plain
 * identifiers. The first 32 hexadecimal characters (128 bits) of its SHA-256.
 *
 * @example
 * ```ts
 * fingerprintDigest('network-open:6630c0ffee0123456789abcd'); // 32 hexadecimal characters
 * ```
 */
export function fingerprintDigest(fingerprint: string): string {
  // The one-shot hash: no Hash object per call.
  return hash('sha256', fingerprint, 'hex').slice(0, 32);
}
