import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadRulePack } from '../../../shared/rules/index.js';
import { createDynamoDbLocalClient, startDynamoDbLocal } from '../../support/dynamodb-local.js';
import { ACCESS_HISTORY_RULES_PATH } from './chaos-access-history.js';
import type { ChaosEnvironment } from './chaos-scenario.js';

/** A chaos environment and what stops it. */
export interface RunningChaosEnvironment extends ChaosEnvironment {
  close(): Promise<void>;
}

/**
 * Starts what the seeds of one process share: a DynamoDB Local of its own (other test files use the
 * run's shared one, which must not stop under them), keeping its data in a folder so that a restart
 * keeps it, the default rule pack with the suite's layer for access history, and a work folder for
 * state files and outboxes. Both folders are in memory-backed `/dev/shm` where there is one: the file
 * store flushes every write to disk.
 *
 * @throws Error when `java` is missing (the message says how to install it) or DynamoDB Local does not start.
 */
export async function startChaosEnvironment(): Promise<RunningChaosEnvironment> {
  const dataRoot = existsSync('/dev/shm') ? '/dev/shm' : tmpdir();
  const dbPath = await mkdtemp(join(dataRoot, 'chaos-dynamodb-'));
  const workDir = await mkdtemp(join(dataRoot, 'chaos-'));
  const local = await startDynamoDbLocal({ dbPath });
  const dynamo = createDynamoDbLocalClient(local.endpoint);
  const pack = await loadRulePack({
    paths: [fileURLToPath(new URL('../../../rules/', import.meta.url)), ACCESS_HISTORY_RULES_PATH],
  });
  return {
    dynamo,
    pack,
    workDir,
    stopDynamo: () => local.stop(),
    restartDynamo: () => local.restart(),
    async close() {
      dynamo.destroy();
      await local.stop();
      await rm(dbPath, { recursive: true, force: true });
      await rm(workDir, { recursive: true, force: true });
    },
  };
}
