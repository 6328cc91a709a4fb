import { stat } from 'node:fs/promises';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { type Clock, systemClock } from '../../shared/clock.js';
import { DynamoDbStateStore, FileStateStore, type SourceReport } from '../../shared/state/index.js';
import { requireAwsRegion } from '../aws-region.js';
import type { StatusDependencies, StatusOptions } from '../commands/status.js';
import { UsageError } from '../errors.js';
import { type PollCommandIo, processCommandIo } from '../poll-command-io.js';
import { DEFAULT_STATE_FILE, parseStateTarget, type StateTarget } from '../run-targets.js';
import { formatStatusJson, formatStatusTable } from '../status-table.js';

/**
 * Runs `status` (see `registerStatusCommand`): its flags, the process's streams unless `io` replaces
 * them, and the DynamoDB client and clock of `dependencies`.
 */
export async function statusAction(
  options: StatusOptions,
  io: PollCommandIo | undefined,
  dependencies: StatusDependencies,
): Promise<void> {
  const { stdout, cwd } = io ?? processCommandIo();
  const clock = dependencies.clock ?? systemClock;
  const target = parseStateTarget(options.state ?? `file:${DEFAULT_STATE_FILE}`, {
    origin: '--state',
    baseDirectory: cwd,
  });
  const reports = await readReports(target, clock, dependencies);
  const now = clock.now();
  stdout.write(options.json ? formatStatusJson(reports, now) : formatStatusTable(reports, now));
}

async function readReports(
  target: StateTarget,
  clock: Clock,
  dependencies: StatusDependencies,
): Promise<SourceReport[]> {
  if (target.kind === 'file') {
    await requireStateFile(target.path);
    return FileStateStore.readSourceReports({ path: target.path, clock });
  }
  const client = dependencies.dynamoDbClient?.() ?? new DynamoDBClient({});
  try {
    await requireAwsRegion(client, `--state dynamodb:${target.tableName}`);
    const store = new DynamoDbStateStore({ client, tableName: target.tableName, clock });
    return await store.listSourceReports();
  } finally {
    client.destroy();
  }
}

/** A state file that is not there is a wrong --state, not a store with no sources yet. */
async function requireStateFile(path: string): Promise<void> {
  try {
    await stat(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    throw new UsageError(
      `there is no state file ${path}: give --state the file run wrote (file:${DEFAULT_STATE_FILE} in the directory run ran from, unless --state or local.state said otherwise), or dynamodb:TABLE for a deployed stack (its StateTableName output)`,
      { cause: error },
    );
  }
}
