import {
  AccessDeniedException,
  type AwsSecurityFinding,
  BatchImportFindingsCommand,
  type BatchImportFindingsCommandInput,
  type BatchImportFindingsResponse,
  InternalException,
  InvalidAccessException,
  InvalidInputException,
  LimitExceededException,
  SecurityHubClient,
} from '@aws-sdk/client-securityhub';
import { mockClient } from 'aws-sdk-client-mock';
import 'aws-sdk-client-mock-vitest/extend';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Alert } from '../../../shared/notify/alert.js';
import { NotifyConfigError } from '../../../shared/notify/errors.js';
import type { PublishResult } from '../../../shared/notify/notifier.js';
import {
  SecurityHubNotifier,
  type SecurityHubNotifierOptions,
} from '../../../shared/notify/security-hub/security-hub-notifier.js';
import { validateAsffFinding } from '../../../shared/notify/security-hub/validate-asff-finding.js';
import { accessListEvent, makeAlert, NOW } from '../support/alerts.js';
import { ManualClock } from '../support/manual-clock.js';
import { POSTURE, postureOpeningAlerts, postureResolvedAlert, SNAPSHOTS } from '../support/posture-alerts.js';

const ACCOUNT_ID = '123456789012';
const PRODUCT_ARN = 'arn:aws:securityhub:eu-west-1:123456789012:product/123456789012/default';
const securityHub = mockClient(SecurityHubClient);

function alerts(count: number): Alert[] {
  return Array.from({ length: count }, (_, index) =>
    makeAlert({ fingerprint: `rule:event-${index}`, events: [accessListEvent({ id: `event-${index}` })] }),
  );
}

/** The finding `Id` of `alerts(n)[index]`. */
const idOf = (index: number): string => `atlas-audit-alerts/alert/rule:event-${index}`;

function notifier(
  clock: ManualClock,
  options: Partial<SecurityHubNotifierOptions> = {},
): SecurityHubNotifier {
  return new SecurityHubNotifier({
    client: new SecurityHubClient({ region: 'eu-west-1' }),
    accountId: ACCOUNT_ID,
    clock,
    random: () => 0.5,
    ...options,
  });
}

/** Security Hub importing every finding, as it does when all goes well. */
function importAll(input: BatchImportFindingsCommandInput): BatchImportFindingsResponse {
  return { SuccessCount: input.Findings?.length ?? 0, FailedCount: 0, FailedFindings: [] };
}

/** Security Hub failing the findings of `codes` (by finding `Id`) and importing the others. */
function failSome(codes: Record<string, string>) {
  return (input: BatchImportFindingsCommandInput): BatchImportFindingsResponse => {
    const failed = (input.Findings ?? []).filter((finding) => codes[finding.Id as string] !== undefined);
    return {
      SuccessCount: (input.Findings?.length ?? 0) - failed.length,
      FailedCount: failed.length,
      FailedFindings: failed.map((finding) => ({
        Id: finding.Id,
        ErrorCode: codes[finding.Id as string],
        ErrorMessage: `failed: ${codes[finding.Id as string]}`,
      })),
    };
  };
}

/** The findings of every BatchImportFindings call the client received, call by call. */
function sentRequests(): AwsSecurityFinding[][] {
  return securityHub
    .commandCalls(BatchImportFindingsCommand)
    .map((call) => call.args[0].input.Findings ?? []);
}

/** How many times each finding `Id` was sent, over all calls. */
function sendCounts(): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const finding of sentRequests().flat())
    counts[finding.Id as string] = (counts[finding.Id as string] ?? 0) + 1;
  return counts;
}

function statuses(results: readonly PublishResult[]): string[] {
  return results.map((result) =>
    result.status === 'sent' ? 'sent' : `failed:${result.code}:${result.retryable}`,
  );
}

const sdkError = <T>(
  ErrorClass: new (options: { message: string; $metadata: object }) => T,
  message: string,
): T => new ErrorClass({ message, $metadata: {} });

describe('SecurityHubNotifier', () => {
  let clock: ManualClock;

  beforeEach(() => {
    securityHub.reset();
    clock = new ManualClock(NOW);
  });

  afterEach(() => {
    securityHub.reset();
  });

  it('imports the alerts in one request into the default product and reports each as sent', async () => {
    // Prepare
    securityHub.on(BatchImportFindingsCommand).callsFake(importAll);

    // Act
    const results = await notifier(clock).publish(alerts(3));

    // Assess
    expect(securityHub).toHaveReceivedCommandTimes(BatchImportFindingsCommand, 1);
    expect(results).toEqual([
      { status: 'sent', fingerprint: 'rule:event-0' },
      { status: 'sent', fingerprint: 'rule:event-1' },
      { status: 'sent', fingerprint: 'rule:event-2' },
    ]);
    const findings = sentRequests().flat();
    expect(findings.map((finding) => finding.Id)).toEqual([idOf(0), idOf(1), idOf(2)]);
    expect(findings.every((finding) => finding.ProductArn === PRODUCT_ARN)).toBe(true);
    for (const finding of findings) expect(validateAsffFinding(finding)).toEqual({ valid: true });
    expect(clock.sleeps).toEqual([]);
  });

  it('sends 250 alerts in requests of 100, 100 and 50, at most 10 requests a second', async () => {
    // Prepare
    securityHub.on(BatchImportFindingsCommand).callsFake(importAll);

    // Act
    const results = await notifier(clock).publish(alerts(250));

    // Assess
    expect(sentRequests().map((findings) => findings.length)).toEqual([100, 100, 50]);
    expect(Object.values(sendCounts())).toEqual(Array(250).fill(1));
    expect(clock.sleeps).toEqual([100, 100]);
    expect(results.every((result) => result.status === 'sent')).toBe(true);
  });

  it('keeps requests 100 ms apart across publish calls, and slower at a lower rate', async () => {
    // Prepare
    securityHub.on(BatchImportFindingsCommand).callsFake(importAll);
    const paced = notifier(clock);
    const slowClock = new ManualClock(NOW);
    const slow = notifier(slowClock, { maxRequestsPerSecond: 2 });

    // Act
    await paced.publish(alerts(1));
    await paced.publish(alerts(1));
    await slow.publish(alerts(150));

    // Assess
    expect(securityHub).toHaveReceivedCommandTimes(BatchImportFindingsCommand, 4);
    expect(clock.sleeps).toEqual([100]);
    expect(slowClock.sleeps).toEqual([500]);
  });

  it('sends a throttled request again after backoff until it passes, each finding once more each time', async () => {
    // Prepare
    securityHub
      .on(BatchImportFindingsCommand)
      .rejectsOnce(sdkError(LimitExceededException, 'Rate exceeded'))
      .rejectsOnce(sdkError(InternalException, 'Internal error'))
      .callsFake(importAll);

    // Act
    const results = await notifier(clock).publish(alerts(3));

    // Assess
    expect(securityHub).toHaveReceivedCommandTimes(BatchImportFindingsCommand, 3);
    expect(sendCounts()).toEqual({ [idOf(0)]: 3, [idOf(1)]: 3, [idOf(2)]: 3 });
    expect(statuses(results)).toEqual(['sent', 'sent', 'sent']);
    // Backoff of 200 then 400 ms (jitter 0.5 takes three quarters): past the 100 ms pacing.
    expect(clock.sleeps).toEqual([150, 300]);
  });

  it('sends again only the findings FailedFindings lists as failed on the way, and reports all sent', async () => {
    // Prepare
    securityHub
      .on(BatchImportFindingsCommand)
      .callsFakeOnce(failSome({ [idOf(1)]: 'InternalFailure', [idOf(3)]: 'ThrottlingException' }))
      .callsFake(importAll);

    // Act
    const results = await notifier(clock).publish(alerts(5));

    // Assess
    expect(sentRequests().map((findings) => findings.map((finding) => finding.Id))).toEqual([
      [idOf(0), idOf(1), idOf(2), idOf(3), idOf(4)],
      [idOf(1), idOf(3)],
    ]);
    expect(statuses(results)).toEqual(['sent', 'sent', 'sent', 'sent', 'sent']);
  });

  it('never sends again a finding Security Hub refuses as invalid, and fails it for good', async () => {
    // Prepare
    securityHub
      .on(BatchImportFindingsCommand)
      .callsFakeOnce(failSome({ [idOf(0)]: 'InvalidInput', [idOf(2)]: 'InternalFailure' }))
      .callsFake(importAll);

    // Act
    const results = await notifier(clock).publish(alerts(3));

    // Assess
    expect(sendCounts()).toEqual({ [idOf(0)]: 1, [idOf(1)]: 1, [idOf(2)]: 2 });
    expect(statuses(results)).toEqual(['failed:InvalidInput:false', 'sent', 'sent']);
    expect(results[0]).toMatchObject({
      message: 'Security Hub refused the finding (InvalidInput): failed: InvalidInput',
    });
  });

  it('gives up after the last round and leaves the findings that never passed retryable', async () => {
    // Prepare
    securityHub.on(BatchImportFindingsCommand).callsFake(failSome({ [idOf(1)]: 'InternalFailure' }));

    // Act
    const results = await notifier(clock, { retry: { maxAttempts: 4 } }).publish(alerts(2));

    // Assess
    expect(sendCounts()).toEqual({ [idOf(0)]: 1, [idOf(1)]: 4 });
    expect(statuses(results)).toEqual(['sent', 'failed:InternalFailure:true']);
    expect(clock.sleeps).toEqual([150, 300, 600]);
  });

  it('sends the findings of a request refused for its content alone, to fail only the one at fault', async () => {
    // Prepare
    securityHub.on(BatchImportFindingsCommand).callsFake((input: BatchImportFindingsCommandInput) => {
      if ((input.Findings ?? []).some((finding) => finding.Id === idOf(1))) {
        throw sdkError(InvalidInputException, 'Finding does not adhere to Amazon Finding Format');
      }
      return importAll(input);
    });

    // Act
    const results = await notifier(clock).publish(alerts(3));

    // Assess
    expect(sentRequests().map((findings) => findings.map((finding) => finding.Id))).toEqual([
      [idOf(0), idOf(1), idOf(2)],
      [idOf(0)],
      [idOf(1)],
      [idOf(2)],
    ]);
    expect(statuses(results)).toEqual(['sent', 'failed:InvalidInput:false', 'sent']);
  });

  it('stops at a Security Hub not enabled in the Region and leaves every alert retryable', async () => {
    // Prepare
    securityHub
      .on(BatchImportFindingsCommand)
      .rejects(
        sdkError(InvalidAccessException, 'Account 123456789012 is not subscribed to AWS Security Hub'),
      );

    // Act
    const results = await notifier(clock).publish(alerts(150));

    // Assess
    expect(securityHub).toHaveReceivedCommandTimes(BatchImportFindingsCommand, 1);
    expect(new Set(statuses(results))).toEqual(new Set(['failed:InvalidAccess:true']));
    expect(results[149]).toMatchObject({
      message: expect.stringContaining('not subscribed to AWS Security Hub'),
    });
  });

  it('stops when IAM denies the call, and when FailedFindings says the account may not import', async () => {
    // Prepare
    securityHub.on(BatchImportFindingsCommand).rejects(sdkError(AccessDeniedException, 'not authorized'));
    const denied = await notifier(clock).publish(alerts(2));
    securityHub.reset();
    securityHub
      .on(BatchImportFindingsCommand)
      .callsFake(failSome({ [idOf(0)]: 'InvalidAccess', [idOf(1)]: 'InvalidAccess' }));

    // Act
    const refused = await notifier(clock).publish(alerts(120));

    // Assess
    expect(statuses(denied)).toEqual(['failed:AccessDenied:true', 'failed:AccessDenied:true']);
    expect(securityHub).toHaveReceivedCommandTimes(BatchImportFindingsCommand, 1);
    expect(statuses(refused).slice(0, 3)).toEqual([
      'failed:InvalidAccess:true',
      'failed:InvalidAccess:true',
      'sent',
    ]);
    expect(statuses(refused).slice(100)).toEqual(Array(20).fill('failed:InvalidAccess:true'));
  });

  it('sends again a request that failed on the network', async () => {
    // Prepare
    securityHub
      .on(BatchImportFindingsCommand)
      .rejectsOnce(Object.assign(new Error('socket hang up'), { name: 'TimeoutError' }))
      .callsFake(importAll);

    // Act
    const results = await notifier(clock).publish(alerts(1));

    // Assess
    expect(securityHub).toHaveReceivedCommandTimes(BatchImportFindingsCommand, 2);
    expect(statuses(results)).toEqual(['sent']);
  });

  it('sends again the findings of an answer whose counts leave some unaccounted for', async () => {
    // Prepare
    securityHub
      .on(BatchImportFindingsCommand)
      .resolvesOnce({ SuccessCount: 1, FailedCount: 0, FailedFindings: [] })
      .callsFake(importAll);

    // Act
    const results = await notifier(clock).publish(alerts(2));

    // Assess
    expect(sendCounts()).toEqual({ [idOf(0)]: 2, [idOf(1)]: 2 });
    expect(statuses(results)).toEqual(['sent', 'sent']);
  });

  it('sends the opening and the resolution of one posture finding in two requests, in that order', async () => {
    // Prepare
    securityHub.on(BatchImportFindingsCommand).callsFake(importAll);
    const [opened] = (await postureOpeningAlerts(SNAPSHOTS.first)).filter(
      (alert) => alert.ruleId === 'inventory-access-list-open-to-internet',
    );
    const resolved = postureResolvedAlert(POSTURE.keyOpenToInternet, SNAPSHOTS.second);

    // Act
    const results = await notifier(clock).publish([opened as Alert, ...alerts(2), resolved]);

    // Assess
    const requests = sentRequests().map((findings) =>
      findings.map((finding) => [finding.Id, finding.RecordState]),
    );
    const postureId = `atlas-audit-alerts/posture/${POSTURE.keyOpenToInternet}`;
    expect(requests).toEqual([
      [
        [postureId, 'ACTIVE'],
        [idOf(0), 'ACTIVE'],
        [idOf(1), 'ACTIVE'],
      ],
      [[postureId, 'ARCHIVED']],
    ]);
    expect(statuses(results)).toEqual(['sent', 'sent', 'sent', 'sent']);
  });

  it('stops when the signal aborts during the backoff, leaving the rest retryable', async () => {
    // Prepare
    securityHub.on(BatchImportFindingsCommand).rejects(sdkError(LimitExceededException, 'Rate exceeded'));
    const controller = new AbortController();
    clock.onSleep = () => controller.abort();

    // Act
    const results = await notifier(clock).publish(alerts(2), { signal: controller.signal });

    // Assess
    expect(securityHub).toHaveReceivedCommandTimes(BatchImportFindingsCommand, 1);
    expect(statuses(results)).toEqual(['failed:ABORTED:true', 'failed:ABORTED:true']);
  });

  it('sends nothing when the signal has already aborted, and nothing for no alerts', async () => {
    // Prepare
    securityHub.on(BatchImportFindingsCommand).callsFake(importAll);

    // Act
    const aborted = await notifier(clock).publish(alerts(2), { signal: AbortSignal.abort() });
    const none = await notifier(clock).publish([]);

    // Assess
    expect(securityHub).toHaveReceivedCommandTimes(BatchImportFindingsCommand, 0);
    expect(statuses(aborted)).toEqual(['failed:ABORTED:true', 'failed:ABORTED:true']);
    expect(none).toEqual([]);
  });

  it('reports an alert whose finding cannot be built, and still sends the others', async () => {
    // Prepare
    securityHub.on(BatchImportFindingsCommand).callsFake(importAll);
    const broken = makeAlert({ fingerprint: 'broken' });
    Object.defineProperty(broken, 'tags', {
      get() {
        throw new Error('tags unreadable');
      },
    });

    // Act
    const results = await notifier(clock).publish([broken, ...alerts(1)]);

    // Assess
    expect(statuses(results)).toEqual(['failed:FORMAT_FAILED:false', 'sent']);
    expect(sendCounts()).toEqual({ [idOf(0)]: 1 });
  });

  it('takes its Region from the client, and refuses a Region that is not the client’s without sending', async () => {
    // Prepare
    securityHub.on(BatchImportFindingsCommand).callsFake(importAll);
    const client = new SecurityHubClient({ region: 'us-gov-west-1' });

    // Act
    await notifier(clock, { client, partition: 'aws-us-gov' }).publish(alerts(1));
    const mismatch = await notifier(clock, { client, region: 'eu-west-1' }).publish(alerts(1));

    // Assess
    expect(sentRequests().flat()[0]?.ProductArn).toBe(
      'arn:aws-us-gov:securityhub:us-gov-west-1:123456789012:product/123456789012/default',
    );
    expect(securityHub).toHaveReceivedCommandTimes(BatchImportFindingsCommand, 1);
    expect(statuses(mismatch)).toEqual(['failed:REGION_MISMATCH:true']);
  });

  it('never puts what a finding says in a result message', async () => {
    // Prepare
    securityHub
      .on(BatchImportFindingsCommand)
      .callsFake(failSome({ 'atlas-audit-alerts/alert/secret': 'InvalidInput' }));
    const alert = makeAlert({
      fingerprint: 'secret',
      title: 'password=hunter2-fake',
      summary: 'token fake-abc',
    });

    // Act
    const [result] = await notifier(clock).publish([alert]);

    // Assess
    expect(result?.status).toBe('failed');
    expect(JSON.stringify(result)).not.toMatch(/hunter2|fake-abc/);
  });

  it.each([
    [{ accountId: '1234' }, /account id "1234" is not 12 digits/],
    [{ region: 'nowhere' }, /Region "nowhere" is not a Region/],
    [{ maxRequestsPerSecond: 11 }, /maxRequestsPerSecond is 11/],
    [{ maxRequestsPerSecond: 0 }, /maxRequestsPerSecond is 0/],
    [{ retry: { maxAttempts: 0 } }, /retry.maxAttempts is 0/],
    [{ console: { flavor: 'atlas-v2' as const, baseUrl: 'not a url' } }, /console base URL/],
  ])('refuses settings it cannot work with (%j)', (options, message) => {
    expect(() => notifier(clock, options)).toThrow(NotifyConfigError);
    expect(() => notifier(clock, options)).toThrow(message);
  });
});
