import { describe, expect, it } from 'vitest';
import { counted, nounFor } from '../../cli/plural.js';

describe('nounFor and counted', () => {
  it.each([
    [0, 'event', 'events'],
    [1, 'event', 'event'],
    [2, 'entry', 'entries'],
    [1, 'entry', 'entry'],
    [3, 'key', 'keys'],
    [2, 'inline test', 'inline tests'],
  ])('say %i %s as %s', (count, noun, expected) => {
    // Act
    const word = nounFor(count, noun);

    // Assess
    expect(word).toBe(expected);
    expect(counted(count, noun)).toBe(`${count} ${expected}`);
  });
});
