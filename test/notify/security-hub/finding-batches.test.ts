import { describe, expect, it } from 'vitest';
import { chunkFindings } from '../../../shared/notify/security-hub/finding-batches.js';
import {
  classifyFailedFinding,
  classifySecurityHubCallError,
} from '../../../shared/notify/security-hub/security-hub-failure.js';

const items = (count: number, bytes: number) =>
  Array.from({ length: count }, (_, index) => ({ id: `f${index}`, bytes }));

/** The body `BatchImportFindings` sends for findings of these sizes: `{"Findings":[a,b,...]}`. */
const bodyBytes = (batch: ReadonlyArray<{ bytes: number }>) =>
  '{"Findings":[]}'.length + batch.reduce((sum, item) => sum + item.bytes, 0) + Math.max(0, batch.length - 1);

describe('chunkFindings', () => {
  it('puts at most 100 findings in a request, in order', () => {
    const batches = chunkFindings(items(250, 2_000));

    expect(batches.map((batch) => batch.length)).toEqual([100, 100, 50]);
    expect(batches.flat().map((item) => item.id)).toEqual(items(250, 0).map((item) => item.id));
  });

  it('keeps each request body within 6 MB', () => {
    const batches = chunkFindings(items(100, 239_000));

    expect(batches.map((batch) => batch.length)).toEqual([25, 25, 25, 25]);
    for (const batch of batches) expect(bodyBytes(batch)).toBeLessThanOrEqual(6_000_000);
    expect(bodyBytes([...(batches[0] ?? []), { bytes: 239_000 }])).toBeGreaterThan(6_000_000);
  });

  it('starts a new request for a finding whose Id the current one holds', () => {
    const batches = chunkFindings([
      { id: 'posture', bytes: 1 },
      { id: 'a', bytes: 1 },
      { id: 'posture', bytes: 1 },
      { id: 'b', bytes: 1 },
    ]);

    expect(batches.map((batch) => batch.map((item) => item.id))).toEqual([
      ['posture', 'a'],
      ['posture', 'b'],
    ]);
  });

  it('sends a finding larger than the limit alone', () => {
    expect(chunkFindings(items(3, 10), { maxBytes: 15 }).map((batch) => batch.length)).toEqual([1, 1, 1]);
  });
});

describe('classifySecurityHubCallError', () => {
  const error = (name: string, fault?: 'client' | 'server') =>
    Object.assign(new Error('message'), { name, ...(fault === undefined ? {} : { $fault: fault }) });

  it.each([
    ['LimitExceededException', 'client', 'transient'],
    ['ThrottlingException', 'client', 'transient'],
    ['InternalException', 'server', 'transient'],
    ['SomethingNew', 'server', 'transient'],
    ['ECONNRESET', undefined, 'transient'],
    ['InvalidInputException', 'client', 'findings'],
    ['InvalidAccessException', 'client', 'configuration'],
    ['AccessDeniedException', 'client', 'configuration'],
    ['UnrecognizedClientException', 'client', 'configuration'],
  ] as const)('takes %s (%s fault) as %s', (name, fault, kind) => {
    expect(classifySecurityHubCallError(error(name, fault)).kind).toBe(kind);
  });

  it('takes any error as aborted once the signal aborted', () => {
    expect(
      classifySecurityHubCallError(error('InternalException', 'server'), AbortSignal.abort()),
    ).toMatchObject({
      kind: 'aborted',
      code: 'ABORTED',
    });
  });
});

describe('classifyFailedFinding', () => {
  it.each([
    ['InvalidInput', 'invalid'],
    ['FindingSizeExceeded', 'invalid'],
    ['InvalidAccess', 'configuration'],
    ['AccessDenied', 'configuration'],
    ['InternalFailure', 'transient'],
    ['ThrottlingException', 'transient'],
    ['ConcurrentUpdateError', 'transient'],
    [undefined, 'transient'],
  ])('takes %s as %s', (code, kind) => {
    expect(classifyFailedFinding({ ErrorCode: code, ErrorMessage: 'why' }).kind).toBe(kind);
  });
});
