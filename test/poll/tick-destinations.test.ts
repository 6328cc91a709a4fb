import {
  EventBridgeClient,
  PutEventsCommand,
  type PutEventsCommandInput,
  type PutEventsResponse,
  ResourceNotFoundException,
} from '@aws-sdk/client-eventbridge';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EventBridgeNotifier } from '../../shared/notify/eventbridge-notifier.js';
import { destinationClaimKey } from '../../shared/poll/index.js';
import { routedDestination } from '../../shared/routes/account-destination.js';
import { outcomeOf } from './support/assertions.js';
import {
  alertingEvent,
  ids,
  MINUTE,
  type PollFixture,
  SECOND,
  startPollFixture,
} from './support/poll-fixture.js';
import { storeKinds } from './support/store-kinds.js';

const PROJECT = `project:${ids.project}`;
const CONFIG = {
  sources: { projectIds: [ids.project] },
  timing: { overlapSeconds: 0, lagSeconds: 0, initialLookbackSeconds: 0 },
};
const events = mockClient(EventBridgeClient);

/** The ids of the events whose alerts reached the bus, one per entry put and taken. */
function idsOnBus(): string[] {
  return events.commandCalls(PutEventsCommand).flatMap((call, callIndex) => {
    const input = call.args[0].input;
    return (input.Entries ?? [])
      .filter((_, position) => takenAt(callIndex, position))
      .map((entry) => (JSON.parse(entry.Detail ?? '{}') as { events: { id: string }[] }).events[0]?.id ?? '');
  });
}

/** Whether the call's answer took the entry at `position`: recorded as each answer is made. */
const answers: boolean[][] = [];
function takenAt(call: number, position: number): boolean {
  return answers[call]?.[position] ?? false;
}

/** Answers each PutEvents with `decide(position)`: an EventId, or an error code. */
function answerWith(decide: (position: number, call: number) => string | undefined): void {
  events.on(PutEventsCommand).callsFake((input: PutEventsCommandInput) => {
    const call = answers.length;
    const codes = (input.Entries ?? []).map((_, position) => decide(position, call));
    answers.push(codes.map((code) => code === undefined));
    return {
      FailedEntryCount: codes.filter((code) => code !== undefined).length,
      Entries: codes.map((code, position) =>
        code === undefined ? { EventId: `id-${call}-${position}` } : { ErrorCode: code, ErrorMessage: code },
      ),
    } satisfies PutEventsResponse;
  });
}

describe.each(storeKinds())('runTick with an EventBridge destination ($name)', ({ factory }) => {
  let fixture: PollFixture | undefined;

  beforeEach(() => {
    events.reset();
    answers.length = 0;
  });

  afterEach(async () => {
    await fixture?.close();
    fixture = undefined;
  });

  /** A fixture whose project has a cursor at now, delivering to the recording notifier and the bus. */
  async function start(
    policies: ReadonlyArray<Record<string, unknown> | null> = [null],
  ): Promise<PollFixture> {
    const started = await startPollFixture({
      store: factory,
      config: CONFIG,
      destinations: (clock) => [
        routedDestination({
          kind: 'eventBridge',
          policies,
          notifier: new EventBridgeNotifier({
            client: new EventBridgeClient({ region: 'eu-west-1' }),
            busName: 'default',
            clock: clock.instant(),
            random: () => 0.5,
          }),
        }),
      ],
    });
    answerWith(() => undefined);
    await started.tick();
    events.resetHistory();
    answers.length = 0;
    return started;
  }

  it('puts every alert on the bus once, beside the notifier', async () => {
    fixture = await start();
    const from = fixture.clock.now();
    fixture.clock.advance(MINUTE);
    const added = fixture.sim.addEvents({ groupId: ids.project }, [
      alertingEvent(from + SECOND),
      alertingEvent(from + 2 * SECOND),
    ]);

    const summary = await fixture.tick();

    expect(outcomeOf(summary, PROJECT)).toMatchObject({ status: 'ok' });
    expect(fixture.notifier.eventIds()).toEqual(added.map((event) => event.id));
    expect(idsOnBus().sort()).toEqual(added.map((event) => String(event.id)).sort());
    expect(summary.totals.destinations.eventbridge?.published.critical).toBe(2);
  });

  it('holds the cursor while the bus throttles, then puts the alerts there once, never sending them to the notifier again', async () => {
    fixture = await start();
    const from = fixture.clock.now();
    fixture.clock.advance(MINUTE);
    const added = fixture.sim.addEvents({ groupId: ids.project }, [
      alertingEvent(from + SECOND),
      alertingEvent(from + 2 * SECOND),
      alertingEvent(from + 3 * SECOND),
    ]);
    // The first tick: the second entry throttled in the first round and in every round after it.
    answerWith((position, call) => (call > 0 || position === 1 ? 'ThrottlingException' : undefined));

    const failed = await fixture.tick();
    const putInFirstTick = events.commandCalls(PutEventsCommand).length;
    events.reset();
    answers.length = 0;
    answerWith(() => undefined);
    fixture.clock.advance(MINUTE);
    const retried = await fixture.tick();
    const third = await fixture.tick();

    expect(outcomeOf(failed, PROJECT)).toMatchObject({
      status: 'failed',
      errorCode: 'ALERT_DELIVERY_FAILED',
    });
    expect(putInFirstTick).toBe(3);
    expect(outcomeOf(retried, PROJECT)).toMatchObject({ status: 'ok' });
    expect(outcomeOf(third, PROJECT).eventsNew).toBe(0);
    // The notifier took each alert on the first tick and was never asked again.
    expect(fixture.notifier.eventIds()).toEqual(added.map((event) => event.id));
    expect(retried.totals.alerts.alreadySent).toBe(3);
    // The bus got the throttled alert on the retry, and only it.
    expect(idsOnBus()).toEqual([String(added[1]?.id)]);
    expect(failed.totals.destinations.eventbridge?.failed.critical).toBe(1);
    const claims = await fixture.store.claimAlerts({
      fingerprints: fixture.notifier
        .fingerprints()
        .map((fingerprint) => destinationClaimKey('eventbridge', fingerprint)),
      claimMs: 60_000,
    });
    expect(claims.map((claim) => claim.outcome)).toEqual(['sent', 'sent', 'sent']);
  });

  it('drops for the bus alone an entry EventBridge refuses for good, without holding the cursor', async () => {
    fixture = await start();
    const from = fixture.clock.now();
    fixture.clock.advance(MINUTE);
    fixture.sim.addEvents({ groupId: ids.project }, [
      alertingEvent(from + SECOND),
      alertingEvent(from + 2 * SECOND),
    ]);
    answerWith((position, call) => (position === 0 && call === 0 ? 'MalformedDetail' : undefined));

    const summary = await fixture.tick();

    expect(outcomeOf(summary, PROJECT)).toMatchObject({ status: 'ok' });
    expect(fixture.notifier.delivered).toHaveLength(2);
    expect(summary.totals.destinations.eventbridge).toMatchObject({ failedPermanently: 1 });
    expect(events.commandCalls(PutEventsCommand)).toHaveLength(1);
  });

  it('keeps email and Slack going while the bus is missing: the alerts fail there alone, for good', async () => {
    fixture = await start();
    const from = fixture.clock.now();
    fixture.clock.advance(MINUTE);
    fixture.sim.addEvents({ groupId: ids.project }, [alertingEvent(from + SECOND)]);
    events
      .on(PutEventsCommand)
      .rejects(
        new ResourceNotFoundException({ message: 'Event bus default does not exist.', $metadata: {} }),
      );

    const summary = await fixture.tick();
    fixture.clock.advance(MINUTE);
    fixture.sim.addEvents({ groupId: ids.project }, [alertingEvent(fixture.clock.now() - SECOND)]);
    const next = await fixture.tick();

    expect(outcomeOf(summary, PROJECT)).toMatchObject({ status: 'ok' });
    expect(outcomeOf(next, PROJECT)).toMatchObject({ status: 'ok' });
    expect(fixture.notifier.delivered).toHaveLength(2);
    expect(summary.totals.destinations.eventbridge).toMatchObject({ failedPermanently: 1 });
  });

  it('puts on the bus only what its routes take', async () => {
    fixture = await start([{ ruleId: ['no-such-rule'] }]);
    const from = fixture.clock.now();
    fixture.clock.advance(MINUTE);
    fixture.sim.addEvents({ groupId: ids.project }, [alertingEvent(from + SECOND)]);

    const summary = await fixture.tick();

    expect(outcomeOf(summary, PROJECT)).toMatchObject({ status: 'ok' });
    expect(fixture.notifier.delivered).toHaveLength(1);
    expect(events.commandCalls(PutEventsCommand)).toHaveLength(0);
  });
});
