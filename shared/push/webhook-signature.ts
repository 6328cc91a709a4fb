import { createHmac, timingSafeEqual } from 'node:crypto';

/** The header Atlas signs a webhook with (lower case, as Lambda function URLs and node:http give headers). */
export const SIGNATURE_HEADER = 'x-mms-signature';

/** The header that names what happened to the alert: `alert.open`, `alert.close`, `alert.inform`… */
export const EVENT_HEADER = 'x-mms-event';

/** A base64 HMAC-SHA1: 20 bytes, 28 characters with one `=` of padding. */
const SIGNATURE_PATTERN = /^[A-Za-z0-9+/]{27}=$/;

/** Bytes of an HMAC-SHA1. */
const DIGEST_BYTES = 20;

/**
 * The signature Atlas puts in `X-MMS-Signature`: the base64 HMAC-SHA1 of the raw body, keyed with the
 * webhook integration's secret. The simulator's sender and the tests sign with it.
 *
 * @example
 * ```ts
 * webhookSignature(Buffer.from('{"id":"…"}'), 'example-webhook-secret'); // 'q1…=' (28 characters)
 * ```
 */
export function webhookSignature(body: Uint8Array, secret: string): string {
  return createHmac('sha1', secret).update(body).digest('base64');
}

/**
 * Whether `signature` is the body's signature under `secret`. The comparison of the digests takes the
 * same time wherever they differ (`timingSafeEqual` on two 20-byte buffers); a header of any other
 * shape (absent, repeated, not 28 base64 characters) is refused before any digest is computed, which
 * tells an attacker nothing they did not send.
 *
 * @example
 * ```ts
 * verifyWebhookSignature({ body, signature: headers['x-mms-signature'], secret }); // true or false
 * ```
 */
export function verifyWebhookSignature(options: {
  body: Uint8Array;
  signature: string | undefined;
  secret: string;
}): boolean {
  const { signature } = options;
  if (signature === undefined || !SIGNATURE_PATTERN.test(signature)) return false;
  const given = Buffer.from(signature, 'base64');
  const expected = createHmac('sha1', options.secret).update(options.body).digest();
  if (given.length !== DIGEST_BYTES || expected.length !== DIGEST_BYTES) return false;
  return timingSafeEqual(given, expected);
}
