import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { Command } from 'commander';
import type { Clock } from '../../shared/clock.js';
import type { PollCommandIo } from '../poll-command-io.js';
import { DEFAULT_STATE_FILE } from '../run-targets.js';

/** The parsed flags of `status`. */
export interface StatusOptions {
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
      const { statusAction } = await import('../actions/status.js');
      await statusAction(options, io, dependencies);
    });
}
