import {
  AuthorizationErrorException,
  InvalidParameterException,
  PublishBatchCommand,
  type PublishBatchCommandInput,
  type PublishBatchRequestEntry,
  type PublishBatchResponse,
  SNSClient,
  ThrottledException,
} from '@aws-sdk/client-sns';
import { mockClient } from 'aws-sdk-client-mock';
import 'aws-sdk-client-mock-vitest/extend';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Alert, Severity } from '../../shared/notify/alert.js';
import { MAX_MESSAGE_BYTES, snsEntryBytes } from '../../shared/notify/entry-size.js';
import { NotifyConfigError } from '../../shared/notify/errors.js';
import type { PublishResult } from '../../shared/notify/notifier.js';
import { SnsNotifier, type SnsNotifierOptions } from '../../shared/notify/sns-notifier.js';
import { validateSnsEntry } from '../../shared/notify/validate-sns-entry.js';
import { accessListEvent, makeAlert, NOW } from './support/alerts.js';
import { ManualClock } from './support/manual-clock.js';

const TOPIC_ARN = 'arn:aws:sns:eu-west-1:123456789012:atlas-audit-alerts';
const sns = mockClient(SNSClient);

function alerts(count: number, overrides: Partial<Alert> = {}): Alert[] {
  return Array.from({ length: count }, (_, index) =>
    makeAlert({
      fingerprint: `rule:event-${index}`,
      events: [accessListEvent({ id: `event-${index}` })],
      ...overrides,
    }),
  );
}

function notifier(clock: ManualClock, options: Partial<SnsNotifierOptions> = {}): SnsNotifier {
  return new SnsNotifier({
    client: new SNSClient({}),
    topicArn: TOPIC_ARN,
    clock,
    random: () => 0.5,
    ...options,
  });
}

/** SNS taking every entry, as it does when all goes well. */
function acceptAll(input: PublishBatchCommandInput): PublishBatchResponse {
  return {
    Successful: (input.PublishBatchRequestEntries ?? []).map((entry) => ({
      Id: entry.Id,
      MessageId: `msg-${entry.Id}`,
    })),
  };
}

/** The entries of every PublishBatch call the client received, call by call. */
function sentBatches(): PublishBatchRequestEntry[][] {
  return sns
    .commandCalls(PublishBatchCommand)
    .map((call) => call.args[0].input.PublishBatchRequestEntries ?? []);
}

function statuses(results: readonly PublishResult[]): string[] {
  return results.map((result) =>
    result.status === 'sent' ? 'sent' : `failed:${result.code}:${result.retryable}`,
  );
}

describe('SnsNotifier', () => {
  let clock: ManualClock;

  beforeEach(() => {
    sns.reset();
    clock = new ManualClock(NOW);
  });

  afterEach(() => {
    sns.reset();
  });

  it('publishes the alerts in one PublishBatch and reports each as sent with its message id', async () => {
    // Prepare
    sns.on(PublishBatchCommand).callsFake(acceptAll);
    const batch = alerts(3);

    // Act
    const results = await notifier(clock).publish(batch);

    // Assess
    expect(sns).toHaveReceivedCommandTimes(PublishBatchCommand, 1);
    expect(sns).toHaveReceivedCommandWith(PublishBatchCommand, { TopicArn: TOPIC_ARN });
    expect(results).toEqual([
      { status: 'sent', fingerprint: 'rule:event-0', messageId: 'msg-alert-0' },
      { status: 'sent', fingerprint: 'rule:event-1', messageId: 'msg-alert-1' },
      { status: 'sent', fingerprint: 'rule:event-2', messageId: 'msg-alert-2' },
    ]);
    for (const entry of sentBatches().flat()) expect(validateSnsEntry(entry)).toEqual({ valid: true });
  });

  it('publishes a hostile user name escaped in the Slack message and as plain text in the email', async () => {
    // Prepare
    sns.on(PublishBatchCommand).callsFake(acceptAll);
    const username = '<!channel> <https://evil.example|click> *bold*';
    const alert = makeAlert({
      title: `Access list opened by ${username}`,
      events: [accessListEvent({ username })],
    });

    // Act
    const [result] = await notifier(clock).publish([alert]);

    // Assess
    expect(result?.status).toBe('sent');
    const [entry] = sentBatches().flat();
    const message = JSON.parse(entry?.Message ?? '{}') as { default: string; email: string };
    expect(message.default).not.toContain('<!channel>');
    expect(message.default).not.toContain('<https://evil.example');
    expect(message.default).not.toContain('*bold*');
    const slack = JSON.parse(message.default) as { content: { title: string; description: string } };
    expect(slack.content.title).toContain(
      'Access list opened by &lt;!channel&gt; &lt;https://evil.example|click&gt; \u2217bold\u2217',
    );
    expect(slack.content.description).toContain(
      '*Who:* &lt;!channel&gt; &lt;https://evil.example|click&gt; \u2217bold\u2217 from 203.0.113.22',
    );
    expect(message.email).toContain(`Who:           ${username} from 203.0.113.22`);
    expect(entry?.Subject).toBe(
      '[CRITICAL] Access list opened by <!channel> <https://evil.example|click>... (project 5b43...1a2)',
    );
  });

  it('sends more than ten alerts in batches of at most ten', async () => {
    // Prepare
    sns.on(PublishBatchCommand).callsFake(acceptAll);

    // Act
    const results = await notifier(clock).publish(alerts(23));

    // Assess
    expect(sentBatches().map((entries) => entries.length)).toEqual([10, 10, 3]);
    expect(
      new Set(
        sentBatches()
          .flat()
          .map((entry) => entry.Id),
      ).size,
    ).toBe(23);
    expect(results.every((result) => result.status === 'sent')).toBe(true);
  });

  it('keeps every batch within 256 KiB when the alerts are large', async () => {
    // Prepare
    sns.on(PublishBatchCommand).callsFake(acceptAll);
    const large = Array.from({ length: 6 }, (_, index) =>
      makeAlert({
        fingerprint: `big-${index}`,
        events: [accessListEvent({ raw: { payload: 'p'.repeat(100_000) } })],
      }),
    );

    // Act
    const results = await notifier(clock).publish(large);

    // Assess
    const batches = sentBatches();
    expect(batches.length).toBeGreaterThanOrEqual(3);
    for (const entries of batches) {
      expect(entries.reduce((bytes, entry) => bytes + snsEntryBytes(entry), 0)).toBeLessThanOrEqual(
        MAX_MESSAGE_BYTES,
      );
    }
    expect(results.every((result) => result.status === 'sent')).toBe(true);
  });

  it('resends only the retryable entries of a Failed[] that mixes retryable and permanent failures', async () => {
    // Prepare
    sns
      .on(PublishBatchCommand)
      .resolvesOnce({
        Successful: [
          { Id: 'alert-0', MessageId: 'msg-0' },
          { Id: 'alert-3', MessageId: 'msg-3' },
        ],
        Failed: [
          { Id: 'alert-1', Code: 'InternalError', Message: 'try again', SenderFault: false },
          { Id: 'alert-2', Code: 'InvalidParameter', Message: 'bad entry', SenderFault: true },
        ],
      })
      .callsFake(acceptAll);

    // Act
    const results = await notifier(clock).publish(alerts(4));

    // Assess
    expect(sentBatches().map((entries) => entries.map((entry) => entry.Id))).toEqual([
      ['alert-0', 'alert-1', 'alert-2', 'alert-3'],
      ['alert-1'],
    ]);
    expect(statuses(results)).toEqual(['sent', 'sent', 'failed:InvalidParameter:false', 'sent']);
    expect(results[1]).toEqual({ status: 'sent', fingerprint: 'rule:event-1', messageId: 'msg-alert-1' });
    expect(clock.sleeps).toEqual([150]);
  });

  it('gives up after the last attempt and leaves the alert retryable, backing off between attempts', async () => {
    // Prepare
    sns.on(PublishBatchCommand).resolves({
      Failed: [{ Id: 'alert-0', Code: 'InternalError', Message: 'try again', SenderFault: false }],
    });

    // Act
    const results = await notifier(clock).publish(alerts(1));

    // Assess
    expect(sns).toHaveReceivedCommandTimes(PublishBatchCommand, 3);
    expect(clock.sleeps).toEqual([150, 300]);
    expect(results[0]).toMatchObject({ status: 'failed', retryable: true, code: 'InternalError' });
  });

  it('retries a throttled call', async () => {
    // Prepare
    sns
      .on(PublishBatchCommand)
      .rejectsOnce(new ThrottledException({ message: 'Rate exceeded', $metadata: { httpStatusCode: 400 } }))
      .callsFake(acceptAll);

    // Act
    const results = await notifier(clock).publish(alerts(2));

    // Assess
    expect(sns).toHaveReceivedCommandTimes(PublishBatchCommand, 2);
    expect(statuses(results)).toEqual(['sent', 'sent']);
  });

  it('retries a call that failed on the network', async () => {
    // Prepare
    sns
      .on(PublishBatchCommand)
      .rejectsOnce(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }))
      .callsFake(acceptAll);

    // Act
    const results = await notifier(clock).publish(alerts(1));

    // Assess
    expect(sns).toHaveReceivedCommandTimes(PublishBatchCommand, 2);
    expect(statuses(results)).toEqual(['sent']);
  });

  it('stops at a topic it may not publish to and leaves every alert retryable', async () => {
    // Prepare
    sns
      .on(PublishBatchCommand)
      .rejects(
        new AuthorizationErrorException({ message: 'not authorized to perform SNS:Publish', $metadata: {} }),
      );

    // Act
    const results = await notifier(clock).publish(alerts(12));

    // Assess
    expect(sns).toHaveReceivedCommandTimes(PublishBatchCommand, 1);
    expect(clock.sleeps).toEqual([]);
    expect(new Set(statuses(results))).toEqual(new Set(['failed:AuthorizationError:true']));
  });

  it('sends entries alone to find the one SNS refuses for its content', async () => {
    // Prepare
    sns.on(PublishBatchCommand).callsFake((input: PublishBatchCommandInput) => {
      if (input.PublishBatchRequestEntries?.some((entry) => entry.Id === 'alert-1')) {
        throw new InvalidParameterException({ message: 'Invalid parameter: Message', $metadata: {} });
      }
      return acceptAll(input);
    });

    // Act
    const results = await notifier(clock).publish(alerts(3));

    // Assess
    expect(sentBatches().map((entries) => entries.map((entry) => entry.Id))).toEqual([
      ['alert-0', 'alert-1', 'alert-2'],
      ['alert-0'],
      ['alert-1'],
      ['alert-2'],
    ]);
    expect(statuses(results)).toEqual(['sent', 'failed:InvalidParameter:false', 'sent']);
  });

  it('never sends an alert whose entry is invalid, and still sends the others', async () => {
    // Prepare
    sns.on(PublishBatchCommand).callsFake(acceptAll);
    const batch = [
      ...alerts(1),
      makeAlert({ severity: 'urgent' as Severity, fingerprint: 'bad' }),
      ...alerts(1),
    ];

    // Act
    const results = await notifier(clock).publish(batch);

    // Assess
    expect(sentBatches().map((entries) => entries.map((entry) => entry.Id))).toEqual([
      ['alert-0', 'alert-2'],
    ]);
    expect(statuses(results)).toEqual(['sent', 'failed:INVALID_ENTRY:false', 'sent']);
  });

  it('reports an alert that fails to format, and still sends the others', async () => {
    // Prepare
    sns.on(PublishBatchCommand).callsFake(acceptAll);
    const broken = makeAlert({ fingerprint: 'broken' });
    Object.defineProperty(broken, 'title', {
      get: () => {
        throw new Error('title unavailable');
      },
    });

    // Act
    const results = await notifier(clock).publish([broken, ...alerts(1)]);

    // Assess
    expect(sentBatches().map((entries) => entries.map((entry) => entry.Id))).toEqual([['alert-1']]);
    expect(statuses(results)).toEqual(['failed:FORMAT_FAILED:false', 'sent']);
  });

  it('treats an entry SNS leaves out of its answer as not delivered', async () => {
    // Prepare
    sns.on(PublishBatchCommand).resolves({ Successful: [{ Id: 'alert-0', MessageId: 'msg-0' }] });

    // Act
    const results = await notifier(clock, { retry: { maxAttempts: 2 } }).publish(alerts(2));

    // Assess
    expect(statuses(results)).toEqual(['sent', 'failed:MISSING_RESULT:true']);
  });

  it('stops when the signal aborts during the wait, leaving the rest retryable', async () => {
    // Prepare
    sns.on(PublishBatchCommand).resolves({
      Successful: [{ Id: 'alert-0', MessageId: 'msg-0' }],
      Failed: [{ Id: 'alert-1', Code: 'InternalError', SenderFault: false }],
    });
    const controller = new AbortController();
    clock.onSleep = () => controller.abort(new Error('deadline'));

    // Act
    const results = await notifier(clock).publish(alerts(2), { signal: controller.signal });

    // Assess
    expect(sns).toHaveReceivedCommandTimes(PublishBatchCommand, 1);
    expect(statuses(results)).toEqual(['sent', 'failed:ABORTED:true']);
  });

  it('sends nothing when the signal has already aborted', async () => {
    // Prepare
    sns.on(PublishBatchCommand).callsFake(acceptAll);

    // Act
    const results = await notifier(clock).publish(alerts(2), { signal: AbortSignal.abort() });

    // Assess
    expect(sns).toHaveReceivedCommandTimes(PublishBatchCommand, 0);
    expect(statuses(results)).toEqual(['failed:ABORTED:true', 'failed:ABORTED:true']);
  });

  it('answers an empty list without calling SNS', async () => {
    // Prepare
    sns.on(PublishBatchCommand).callsFake(acceptAll);

    // Act
    const results = await notifier(clock).publish([]);

    // Assess
    expect(results).toEqual([]);
    expect(sns).toHaveReceivedCommandTimes(PublishBatchCommand, 0);
  });

  it.each([
    [{ topicArn: 'atlas-audit-alerts' }, 'is not an SNS topic ARN'],
    [{ console: { flavor: 'atlas-v2' as const, baseUrl: 'cloud.mongodb.com' } }, 'is not an http(s) URL'],
    [{ retry: { maxAttempts: 0 } }, 'retry.maxAttempts is 0'],
  ])('refuses to be built with %j', (options, message) => {
    // Prepare
    const build = (): SnsNotifier => notifier(clock, options);

    // Act
    let error: unknown;
    try {
      build();
    } catch (caught) {
      error = caught;
    }

    // Assess
    expect(error).toBeInstanceOf(NotifyConfigError);
    expect(error).toMatchObject({ code: 'NOTIFY_CONFIG_INVALID' });
    expect((error as Error).message).toContain(message);
  });
});
