import { UsageError } from './errors.js';

/** An AWS SDK client, as far as its region goes. */
export interface RegionalClient {
  config: { region: () => Promise<string> };
}

/**
 * Resolves the region an AWS SDK client will call, so that a command fails at once, saying how to
 * set one, rather than on its first request with the SDK's bare "Region is missing".
 *
 * @throws UsageError naming what needs the region (`--state dynamodb:TABLE`) and how to set it.
 * @example
 * ```ts
 * await requireAwsRegion(new DynamoDBClient({}), '--state dynamodb:AtlasAuditAlerts-StateTable…');
 * ```
 */
export async function requireAwsRegion(client: RegionalClient, what: string): Promise<string> {
  try {
    return await client.config.region();
  } catch (error) {
    if (!(error instanceof Error) || !/region is missing/i.test(error.message)) throw error;
    throw new UsageError(
      `${what} needs an AWS region, and none is set: export AWS_REGION=eu-west-1 (the stack's region), or use a profile that has one (AWS_PROFILE=name, region in ~/.aws/config)`,
      { cause: error },
    );
  }
}
