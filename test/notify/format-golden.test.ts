import { describe, expect, it } from 'vitest';
import { formatDigest } from './support/format-digest.js';

/**
 * Formatting is made faster without changing what it writes: this digest covers every byte of a few
 * thousand varied alerts' SNS entries (ordinary and hostile, default and tight size limits), the
 * validator's verdicts and the text helpers' output. A change to what any message says must update
 * the digest here, deliberately, with the change.
 */
describe('formatting of varied alerts', () => {
  it('writes exactly the bytes it wrote before', async () => {
    // Act
    const digest = await formatDigest();

    // Assess
    expect(digest).toEqual({
      sha256: '75327a3dc6190a2b44403162a8760321549a7799a37eba1abc4fa2a3b222f80c',
      alerts: 3_000,
      // Entries with a byte limit too tight even for the Chatbot part.
      invalid: 248,
    });
  }, 180_000);
});
