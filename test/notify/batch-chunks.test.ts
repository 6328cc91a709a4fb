import type { PublishBatchRequestEntry } from '@aws-sdk/client-sns';
import { describe, expect, it } from 'vitest';
import { chunkEntries } from '../../shared/notify/batch-chunks.js';

function entry(id: string, bytes: number): PublishBatchRequestEntry {
  return { Id: id, Message: 'm'.repeat(bytes - id.length) };
}

describe('chunkEntries', () => {
  it('puts at most ten entries in a batch, in order', () => {
    // Prepare
    const entries = Array.from({ length: 25 }, (_, index) => entry(`e${index}`, 100));

    // Act
    const batches = chunkEntries(entries);

    // Assess
    expect(batches.map((batch) => batch.length)).toEqual([10, 10, 5]);
    expect(batches.flat()).toEqual(entries);
  });

  it('starts a new batch before the bytes of a batch pass 256 KiB', () => {
    // Prepare
    const entries = Array.from({ length: 5 }, (_, index) => entry(`e${index}`, 100_000));

    // Act
    const batches = chunkEntries(entries);

    // Assess
    expect(batches.map((batch) => batch.map((item) => item.Id))).toEqual([
      ['e0', 'e1'],
      ['e2', 'e3'],
      ['e4'],
    ]);
  });

  it('fills a batch exactly to the byte limit', () => {
    // Prepare
    const entries = [entry('a', 131_072), entry('b', 131_072), entry('c', 1)];

    // Act
    const batches = chunkEntries(entries);

    // Assess
    expect(batches.map((batch) => batch.length)).toEqual([2, 1]);
  });

  it('gives an entry larger than the limit a batch of its own', () => {
    // Prepare
    const entries = [entry('small', 10), entry('huge', 300_000), entry('after', 10)];

    // Act
    const batches = chunkEntries(entries);

    // Assess
    expect(batches.map((batch) => batch.map((item) => item.Id))).toEqual([['small'], ['huge'], ['after']]);
  });

  it('follows custom limits', () => {
    // Prepare
    const entries = Array.from({ length: 5 }, (_, index) => entry(`e${index}`, 10));

    // Act
    const batches = chunkEntries(entries, { maxEntries: 2, maxBytes: 1_000 });

    // Assess
    expect(batches.map((batch) => batch.length)).toEqual([2, 2, 1]);
  });

  it('returns no batch for no entries', () => {
    // Prepare
    const entries: PublishBatchRequestEntry[] = [];

    // Act
    const batches = chunkEntries(entries);

    // Assess
    expect(batches).toEqual([]);
  });
});
