import { stat } from 'node:fs/promises';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { Command } from 'commander';
import { type Clock, systemClock } from '../../shared/clock.js';
import { DynamoDbStateStore, FileStateStore, type SourceReport } from '../../shared/state/index.js';
import { requireAwsRegion } from '../aws-region.js';
import { UsageError } from '../errors.js';
import { type PollCommandIo, processCommandIo } from '../poll-command-io.js';
import { DEFAULT_STATE_FILE, parseStateTarget, type StateTarget } from '../run-targets.js';
import { formatStatusJson, formatStatusTable } from '../status-table.js';

interface StatusOptions {
  state?: string;
  json?: boolean;
}

/**
 * A state table as a stack named AtlasAuditAlerts gets it: CloudFormation names it after the stack and
 * the table's logical id, then a random suffix. `test/infra` checks it against the synthesized stack.
 */
export const EXAMPLE_TABLE_NAME = 'AtlasAuditAlerts-StateTable962DE04C-1A2B3C4D5E6F7';

/** What `status` reads DynamoDB with; tests point it at DynamoDB Local. */
export interface StatusDependencies {
  /** Creates the DynamoDB client (default: the SDK's, from the environment's region and credentials). */
  dynamoDbClient?: () => DynamoDBClient;
  clock?: Clock;
}

/**
 * Registers `status`: each source the state store has a record of, with its watermark, lag, last
 * poll, alerts sent in the last day, lease holder and last error. A table, or one JSON document with
 * `--json`. Reads only: a state file is read without its lock, so a running `run --every` goes on.
 *
 * @example
 * ```sh
 * atlas-audit-alerts status --state dynamodb:AtlasAuditAlerts-StateTable962DE04C-1A2B3C4D5E6F7 --json
 * ```
 */
export function registerStatusCommand(
  program: Command,
  io?: PollCommandIo,
  dependencies: StatusDependencies = {},
): void {
  program
    .command('status')
    .description(
      "Show each source's watermark, lag, last poll, alerts sent in the last day, lease holder and last error.",
    )
    .option('--state <store>', `file:PATH or dynamodb:TABLE (default: file:${DEFAULT_STATE_FILE})`)
    .option('--json', 'print one JSON document instead of a table')
    .addHelpText(
      'after',
      `
The table of a deployed stack is its StateTableName output, a name CloudFormation makes from the
stack's: ${EXAMPLE_TABLE_NAME} for the stack AtlasAuditAlerts. DynamoDB
is read with the AWS credentials and region of the environment (AWS_PROFILE, AWS_REGION...).

Examples:
  atlas-audit-alerts status
  atlas-audit-alerts status --state dynamodb:${EXAMPLE_TABLE_NAME} --json`,
    )
    .action(async (options: StatusOptions) => {
      const { stdout, cwd } = io ?? processCommandIo();
      const clock = dependencies.clock ?? systemClock;
      const target = parseStateTarget(options.state ?? `file:${DEFAULT_STATE_FILE}`, {
        origin: '--state',
        baseDirectory: cwd,
      });
      const reports = await readReports(target, clock, dependencies);
      const now = clock.now();
      stdout.write(options.json ? formatStatusJson(reports, now) : formatStatusTable(reports, now));
    });
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
