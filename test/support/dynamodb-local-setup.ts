/**
 * The test run's DynamoDB Local: vitest's global setup starts one JVM per run and provides its
 * endpoint; test files reach it through {@link dynamoDbLocalEndpoint} and each uses its own table.
 *
 * The JVM starts in the background (a few seconds) while the suites that do not need it run; a suite
 * that needs it waits for it. When `java` is missing, every such suite fails with the message that
 * says to install a JRE, and the other suites still run.
 */
import { inject } from 'vitest';
import type { TestProject } from 'vitest/node';
import {
  type DynamoDbLocal,
  freePort,
  javaProblem,
  startDynamoDbLocal,
  waitForDynamoDbLocal,
} from './dynamodb-local.js';

declare module 'vitest' {
  export interface ProvidedContext {
    dynamoDbLocal: { endpoint: string } | { problem: string };
  }
}

/** Below vitest's hook timeout, so a failed start reports this message rather than a timeout. */
const READY_TIMEOUT_MS = 50_000;

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const problem = javaProblem();
  if (problem !== undefined) {
    project.provide('dynamoDbLocal', { problem });
    return async () => {};
  }
  const port = await freePort();
  const starting: Promise<DynamoDbLocal | undefined> = startDynamoDbLocal({ port }).catch(
    (error: unknown) => {
      console.error(`DynamoDB Local did not start: ${(error as Error).message}`);
      return undefined;
    },
  );
  project.provide('dynamoDbLocal', { endpoint: `http://127.0.0.1:${port}` });
  return async () => {
    await (await starting)?.stop();
  };
}

/**
 * The endpoint of the run's DynamoDB Local, once it answers. Call it from `beforeAll`.
 *
 * @throws Error when `java` is missing (saying to install a JRE) or the emulator does not answer.
 */
export async function dynamoDbLocalEndpoint(): Promise<string> {
  const provided = inject('dynamoDbLocal');
  if ('problem' in provided) throw new Error(provided.problem);
  await waitForDynamoDbLocal(provided.endpoint, READY_TIMEOUT_MS);
  return provided.endpoint;
}
