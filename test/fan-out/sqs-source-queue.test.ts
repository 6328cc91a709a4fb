import {
  ChangeMessageVisibilityCommand,
  SendMessageBatchCommand,
  type SendMessageBatchCommandInput,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { parseSourceMessage, queuedSources, SqsSourceQueue } from '../../shared/fan-out/index.js';
import { orgSource, projectSource } from '../../shared/poll/index.js';

const QUEUE_URL = 'https://sqs.eu-west-1.amazonaws.com/123456789012/atlas-audit-alerts-sources.fifo';
const ORG = '5f4e3d2c1b0a998877665544';
const sqs = mockClient(SQSClient);

/** 23 sources of one org: the org itself and 22 projects. */
function entries() {
  const projects = Array.from({ length: 22 }, (_, index) => ({
    ...projectSource(`6a5b4c3d2e1f0099887766${index.toString(16).padStart(2, '0')}`),
    orgId: ORG,
  }));
  return queuedSources({
    sources: [{ ...orgSource(ORG), orgId: ORG }, ...projects],
    tickAt: Date.parse('2026-11-24T03:00:00.000Z'),
    maxConcurrencyPerOrg: 3,
  });
}

function inputs(): SendMessageBatchCommandInput[] {
  return sqs.commandCalls(SendMessageBatchCommand).map((call) => call.args[0].input);
}

describe('SqsSourceQueue', () => {
  beforeEach(() => sqs.reset());

  it('sends ten messages a call, each a source message in its org group with a per-tick deduplication id', async () => {
    sqs.on(SendMessageBatchCommand).callsFake((input: SendMessageBatchCommandInput) => ({
      Successful: (input.Entries ?? []).map((entry) => ({ Id: entry.Id, MessageId: `m-${entry.Id}` })),
    }));
    const queue = new SqsSourceQueue({ client: new SQSClient({ region: 'eu-west-1' }), queueUrl: QUEUE_URL });

    const report = await queue.send(entries());

    expect(report).toEqual({ sent: 23, failed: [] });
    expect(
      inputs()
        .map((input) => input.Entries?.length)
        .sort(),
    ).toEqual([10, 10, 3]);
    const sent = inputs().flatMap((input) => input.Entries ?? []);
    expect(new Set(sent.map((entry) => entry.MessageGroupId)).size).toBeLessThanOrEqual(3);
    for (const entry of sent) {
      expect(entry.MessageGroupId).toMatch(new RegExp(`^${ORG}#[0-2]$`));
      expect(entry.MessageDeduplicationId).toMatch(/^2026-11-24T03:00:00\.000Z#(org|project):[0-9a-f]{24}$/);
      expect(parseSourceMessage(entry.MessageBody ?? '').orgId).toBe(ORG);
    }
    expect(new Set(sent.map((entry) => entry.MessageDeduplicationId)).size).toBe(23);
  });

  it('sends refused entries once more, and reports those refused again or refused as the sender fault', async () => {
    let call = 0;
    sqs.on(SendMessageBatchCommand).callsFake((input: SendMessageBatchCommandInput) => {
      call += 1;
      const [first, second, ...rest] = input.Entries ?? [];
      if (input.Entries?.length === 10 && call <= 3 && first !== undefined && second !== undefined) {
        return {
          Successful: rest.map((entry) => ({ Id: entry.Id, MessageId: 'm' })),
          Failed: [
            { Id: first.Id, Code: 'InternalError', SenderFault: false, Message: 'try again' },
            { Id: second.Id, Code: 'InvalidParameterValue', SenderFault: true, Message: 'bad entry' },
          ],
        };
      }
      if ((input.Entries?.length ?? 0) === 1) {
        return { Failed: [{ Id: first?.Id, Code: 'InternalError', SenderFault: false, Message: 'still' }] };
      }
      return { Successful: (input.Entries ?? []).map((entry) => ({ Id: entry.Id, MessageId: 'm' })) };
    });
    const queue = new SqsSourceQueue({ client: new SQSClient({ region: 'eu-west-1' }), queueUrl: QUEUE_URL });

    const report = await queue.send(entries().slice(0, 10));

    expect(report.sent).toBe(8);
    expect(report.failed.map((failure) => failure.code).sort()).toEqual([
      'InternalError',
      'InvalidParameterValue',
    ]);
    expect(JSON.stringify(report)).not.toContain('MessageBody');
  });

  it('hides a message for the seconds asked, within what SQS accepts', async () => {
    sqs.on(ChangeMessageVisibilityCommand).resolves({});
    const queue = new SqsSourceQueue({ client: new SQSClient({ region: 'eu-west-1' }), queueUrl: QUEUE_URL });

    await queue.delay('receipt-1', 2.2);
    await queue.delay('receipt-2', 100_000);

    expect(sqs.commandCalls(ChangeMessageVisibilityCommand).map((call) => call.args[0].input)).toEqual([
      { QueueUrl: QUEUE_URL, ReceiptHandle: 'receipt-1', VisibilityTimeout: 3 },
      { QueueUrl: QUEUE_URL, ReceiptHandle: 'receipt-2', VisibilityTimeout: 43_200 },
    ]);
  });
});
