import { randomUUID } from 'node:crypto';
import type {
  PublishBatchCommandInput,
  PublishBatchRequestEntry,
  PublishBatchResponse,
  ServiceInputTypes,
  ServiceOutputTypes,
  SNSClientResolvedConfig,
} from '@aws-sdk/client-sns';
import { PublishBatchCommand } from '@aws-sdk/client-sns';
import type { AwsStub } from 'aws-sdk-client-mock';
import type { PollerInvocationContext } from '../../../functions/poller/poller-handler.js';

/**
 * A Lambda context of one invocation of `functionName`, with `remainingMs` left from now (default
 * one minute), counting down on the wall clock.
 */
export function invocation(
  options: { functionName?: string; remainingMs?: number } = {},
): PollerInvocationContext {
  const functionName = options.functionName ?? 'AtlasAuditAlerts-Poller';
  const remainingAt = Date.now() + (options.remainingMs ?? 60_000);
  return {
    awsRequestId: randomUUID(),
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:eu-west-1:123456789012:function:${functionName}`,
    memoryLimitInMB: '512',
    getRemainingTimeInMillis: () => remainingAt - Date.now(),
  };
}

/** SNS taking every entry of a batch, as it does when all goes well. */
export function acceptAll(input: PublishBatchCommandInput): PublishBatchResponse {
  return {
    Successful: (input.PublishBatchRequestEntries ?? []).map((entry) => ({
      Id: entry.Id,
      MessageId: `msg-${entry.Id}`,
    })),
  };
}

/** Every entry the handlers published through the mocked SNS client, in order. */
export function publishedEntries(
  sns: AwsStub<ServiceInputTypes, ServiceOutputTypes, SNSClientResolvedConfig>,
): PublishBatchRequestEntry[] {
  return sns
    .commandCalls(PublishBatchCommand)
    .flatMap((call) => call.args[0].input.PublishBatchRequestEntries ?? []);
}
