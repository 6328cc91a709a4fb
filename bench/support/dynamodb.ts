import { startDynamoDbLocal } from '../../test/support/dynamodb-local.js';

/** A DynamoDB Local to run a scenario against, and what to call when done with it. */
export interface BenchDynamoDb {
  endpoint: string;
  /** Stops the emulator if this benchmark started it; leaves a given one running. */
  release(): Promise<void>;
}

/**
 * The DynamoDB Local a scenario runs against: the one at `endpoint` when given (the test run's), else
 * a JVM of the benchmark's own, with the JVM's default compilers (a benchmark runs long enough for
 * them to pay off) and its data in memory.
 *
 * @throws Error when `java` is missing (saying how to install it) or the emulator does not start.
 * @example
 * ```ts
 * const dynamoDb = await openBenchDynamoDb(options.dynamoDbEndpoint);
 * try { ... } finally { await dynamoDb.release(); }
 * ```
 */
export async function openBenchDynamoDb(endpoint?: string): Promise<BenchDynamoDb> {
  if (endpoint !== undefined) return { endpoint, release: async () => {} };
  const local = await startDynamoDbLocal({ jvmOptions: [] });
  return { endpoint: local.endpoint, release: () => local.stop() };
}

/**
 * A state table name no other run uses.
 *
 * @example
 * ```ts
 * uniqueTableName('bench-backlog'); // 'bench-backlog-k3j9x2'
 * ```
 */
export function uniqueTableName(prefix: string): string {
  return `${prefix}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
}
