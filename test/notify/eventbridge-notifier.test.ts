import {
  EventBridgeClient,
  PutEventsCommand,
  type PutEventsCommandInput,
  type PutEventsRequestEntry,
  type PutEventsResponse,
  ResourceNotFoundException,
} from '@aws-sdk/client-eventbridge';
import { mockClient } from 'aws-sdk-client-mock';
import 'aws-sdk-client-mock-vitest/extend';
import { beforeEach, describe, expect, it } from 'vitest';
import type { Alert } from '../../shared/notify/alert.js';
import { DetailType, EVENT_SOURCE } from '../../shared/notify/alert-detail.js';
import { NotifyConfigError } from '../../shared/notify/errors.js';
import {
  EventBridgeNotifier,
  type EventBridgeNotifierOptions,
  MAX_PUT_EVENTS_BYTES,
  MAX_PUT_EVENTS_ENTRIES,
  putEventsEntryBytes,
} from '../../shared/notify/eventbridge-notifier.js';
import { accessListEvent, makeAlert, NOW } from './support/alerts.js';
import { publishedSchemas, schemaErrors } from './support/detail-schemas.js';
import { ManualClock } from './support/manual-clock.js';

const events = mockClient(EventBridgeClient);

function alerts(count: number, overrides: Partial<Alert> = {}): Alert[] {
  return Array.from({ length: count }, (_, index) =>
    makeAlert({
      fingerprint: `rule:event-${index}`,
      events: [accessListEvent({ id: `event-${index}` })],
      ...overrides,
    }),
  );
}

function notifier(
  clock: ManualClock,
  options: Partial<EventBridgeNotifierOptions> = {},
): EventBridgeNotifier {
  return new EventBridgeNotifier({
    client: new EventBridgeClient({ region: 'eu-west-1' }),
    busName: 'default',
    clock,
    random: () => 0.5,
    ...options,
  });
}

/** EventBridge taking every entry. */
function acceptAll(input: PutEventsCommandInput): PutEventsResponse {
  return {
    FailedEntryCount: 0,
    Entries: (input.Entries ?? []).map((_, index) => ({ EventId: `id-${index}` })),
  };
}

/** The entries of every PutEvents call, call by call. */
function sentBatches(): PutEventsRequestEntry[][] {
  return events.commandCalls(PutEventsCommand).map((call) => call.args[0].input.Entries ?? []);
}

/** The alert id each entry carries, in the order sent. */
function sentIds(batches: PutEventsRequestEntry[][]): string[] {
  return batches
    .flat()
    .map((entry) => (JSON.parse(entry.Detail ?? '{}') as { events: { id: string }[] }).events[0]?.id ?? '');
}

/** An error as the SDK throws it for a whole call. */
function sdkError(name: string, fault: 'client' | 'server', throttling = false): Error {
  return Object.assign(new Error(`${name} happened`), {
    name,
    $fault: fault,
    $metadata: {},
    ...(throttling ? { $retryable: { throttling: true } } : {}),
  });
}

describe('EventBridgeNotifier', () => {
  beforeEach(() => {
    events.reset();
  });

  it('puts one entry per alert, 10 a call, each within the limits and valid against the published schema', async () => {
    events.on(PutEventsCommand).callsFake(acceptAll);

    const results = await notifier(new ManualClock(NOW)).publish(alerts(23));

    expect(results.every((result) => result.status === 'sent')).toBe(true);
    const batches = sentBatches();
    expect(batches.map((batch) => batch.length)).toEqual([10, 10, 3]);
    for (const batch of batches) {
      expect(batch.length).toBeLessThanOrEqual(MAX_PUT_EVENTS_ENTRIES);
      expect(batch.reduce((sum, entry) => sum + putEventsEntryBytes(entry), 0)).toBeLessThanOrEqual(
        MAX_PUT_EVENTS_BYTES,
      );
    }
    for (const entry of batches.flat()) {
      expect(entry).toMatchObject({
        EventBusName: 'default',
        Source: EVENT_SOURCE,
        DetailType: DetailType.alert,
      });
      expect(schemaErrors(publishedSchemas.alert, JSON.parse(entry.Detail ?? ''))).toEqual([]);
    }
  });

  it('packs calls by size: entries with large raw events go fewer to a call', async () => {
    events.on(PutEventsCommand).callsFake(acceptAll);
    const large = alerts(6, {}).map((alert, index) =>
      makeAlert({
        ...alert,
        events: [accessListEvent({ id: `big-${index}`, comment: 'x'.repeat(100_000) })],
      }),
    );

    const results = await notifier(new ManualClock(NOW)).publish(large);

    expect(results.every((result) => result.status === 'sent')).toBe(true);
    const batches = sentBatches();
    expect(batches.length).toBeGreaterThan(1);
    for (const batch of batches) {
      expect(batch.reduce((sum, entry) => sum + putEventsEntryBytes(entry), 0)).toBeLessThanOrEqual(
        MAX_PUT_EVENTS_BYTES,
      );
    }
  });

  it('sends again, after a backoff, a whole call that was throttled', async () => {
    events
      .on(PutEventsCommand)
      .rejectsOnce(sdkError('ThrottlingException', 'client', true))
      .callsFake(acceptAll);
    const clock = new ManualClock(NOW);

    const results = await notifier(clock).publish(alerts(4));

    expect(results.map((result) => result.status)).toEqual(['sent', 'sent', 'sent', 'sent']);
    expect(sentBatches().map((batch) => batch.length)).toEqual([4, 4]);
    expect(clock.sleeps).toHaveLength(1);
  });

  it('sends again only the entries EventBridge failed for a reason that passes, and never the refused ones', async () => {
    let call = 0;
    events.on(PutEventsCommand).callsFake((input: PutEventsCommandInput) => {
      call += 1;
      if (call > 1) return acceptAll(input);
      return {
        FailedEntryCount: 2,
        Entries: (input.Entries ?? []).map((_, index) =>
          index === 1
            ? { ErrorCode: 'ThrottlingException', ErrorMessage: 'Rate exceeded' }
            : index === 2
              ? { ErrorCode: 'MalformedDetail', ErrorMessage: 'Detail is malformed' }
              : { EventId: `id-${index}` },
        ),
      };
    });

    const results = await notifier(new ManualClock(NOW)).publish(alerts(4));

    expect(results.map((result) => result.status)).toEqual(['sent', 'sent', 'failed', 'sent']);
    expect(results[2]).toMatchObject({ retryable: false, code: 'MalformedDetail' });
    expect(sentIds(sentBatches())).toEqual(['event-0', 'event-1', 'event-2', 'event-3', 'event-1']);
  });

  it('gives up after its rounds, leaving the alerts retryable for a later tick', async () => {
    events.on(PutEventsCommand).rejects(sdkError('InternalException', 'server'));

    const results = await notifier(new ManualClock(NOW), { retry: { maxAttempts: 3 } }).publish(alerts(2));

    expect(results).toEqual([
      expect.objectContaining({ status: 'failed', retryable: true, code: 'Internal' }),
      expect.objectContaining({ status: 'failed', retryable: true, code: 'Internal' }),
    ]);
    expect(events).toHaveReceivedCommandTimes(PutEventsCommand, 3);
  });

  it('stops the call when the bus is missing, keeping every alert retryable', async () => {
    events
      .on(PutEventsCommand)
      .rejects(
        new ResourceNotFoundException({ message: 'Event bus security does not exist.', $metadata: {} }),
      );

    const results = await notifier(new ManualClock(NOW), { busName: 'security' }).publish(alerts(25));

    expect(events).toHaveReceivedCommandTimes(PutEventsCommand, 1);
    expect(results.every((result) => result.status === 'failed' && result.retryable)).toBe(true);
    expect(results[0]).toMatchObject({ code: 'ResourceNotFound' });
  });

  it('comes back at once when aborted, every alert not taken retryable', async () => {
    events.on(PutEventsCommand).rejects(sdkError('ThrottlingException', 'client', true));
    const controller = new AbortController();
    const clock = new ManualClock(NOW);
    clock.onSleep = () => controller.abort();

    const results = await notifier(clock).publish(alerts(3), { signal: controller.signal });

    expect(results.every((result) => result.status === 'failed' && result.retryable)).toBe(true);
    expect(results[0]).toMatchObject({ code: 'ABORTED' });
  });

  it('refuses a bus that is neither a name nor an ARN', () => {
    expect(() => notifier(new ManualClock(NOW), { busName: 'no spaces allowed' })).toThrow(NotifyConfigError);
    expect(() =>
      notifier(new ManualClock(NOW), { busName: 'arn:aws:events:eu-west-1:123456789012:event-bus/security' }),
    ).not.toThrow();
  });
});
