import { describe, expect, it } from 'vitest';
import { runFanOutBenchmark } from '../../bench/fan-out.js';
import { dynamoDbLocalEndpoint } from '../support/dynamodb-local-setup.js';

describe('the fan-out benchmark over connections', () => {
  it('polls every organization and project of every connection once, an idle source costing what it costs with one key', async () => {
    const endpoint = await dynamoDbLocalEndpoint();
    const sizes = {
      sources: 12,
      workers: 2,
      batchSize: 2,
      latencyMs: { min: 1, max: 3 },
      dynamoDbEndpoint: endpoint,
    };

    const oneKey = await runFanOutBenchmark(sizes);
    const estate = await runFanOutBenchmark({ ...sizes, connections: 3 });

    expect(estate).toMatchObject({ sources: 12, connections: 3 });
    for (const mode of [estate.single, estate.fanOut]) {
      expect(mode).toMatchObject({ polledOnceOk: 12, otherOutcomes: 0 });
    }
    expect(estate.fanOut).toMatchObject({ redelivered: 0, deadLetters: 0 });
    // The single invocation: one page per idle source, with each connection's key already challenged.
    expect(estate.single.atlas).toEqual({ requests: 12, challenges: 0 });
    expect(oneKey.single.atlas).toEqual({ requests: 12, challenges: 0 });
    // The workers: one page per source, plus, per worker and connection it meets, one challenge and
    // at most one listing of the organization's projects (a new container's).
    const { requests, challenges } = estate.fanOut.atlas;
    expect(challenges).toBeGreaterThanOrEqual(3);
    expect(challenges).toBeLessThanOrEqual(3 * 2);
    expect(requests - challenges).toBeGreaterThanOrEqual(12);
    expect(requests - challenges).toBeLessThanOrEqual(12 + 3 * 2);
    // State: an idle source costs the same requests through three connections as through one.
    expect(estate.single.dynamoDbRequests).toBe(oneKey.single.dynamoDbRequests);
    expect(estate.fanOut.dynamoDbRequests).toBeLessThanOrEqual(oneKey.fanOut.dynamoDbRequests);
  });
});
