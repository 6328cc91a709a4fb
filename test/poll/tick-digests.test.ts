import {
  InternalErrorException,
  PublishCommand,
  type PublishCommandInput,
  SNSClient,
} from '@aws-sdk/client-sns';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SnsDigestPublisher } from '../../shared/notify/digest-publisher.js';
import { digestDestination } from '../../shared/poll/digest-destination.js';
import { emitTickMetrics } from '../../shared/poll/metrics-sink.js';
import type { DigestStore, StateStore } from '../../shared/state/index.js';
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
const TOPIC_ARN = 'arn:aws:sns:eu-west-1:123456789012:atlas-audit-alerts';
const HOUR = 60 * MINUTE;
const sns = mockClient(SNSClient);

function digestStore(store: StateStore): StateStore & DigestStore {
  if (!('appendDigestEntries' in store)) throw new Error('the store keeps no digests');
  return store as StateStore & DigestStore;
}

function digestsSent(): PublishCommandInput[] {
  return sns.commandCalls(PublishCommand).map((call) => call.args[0].input);
}

describe.each(storeKinds())('runTick with an hourly digest ($name)', ({ factory }) => {
  let fixture: PollFixture | undefined;

  beforeEach(() => {
    sns.reset();
    sns.on(PublishCommand).resolves({ MessageId: 'digest' });
  });

  afterEach(async () => {
    await fixture?.close();
    fixture = undefined;
  });

  async function start(): Promise<PollFixture> {
    const started = await startPollFixture({
      store: factory,
      config: CONFIG,
      digests: (clock, store) => ({
        destinations: [
          digestDestination({
            route: 'security',
            every: 'hourly',
            accepts: () => true,
            store: digestStore(store),
            clock: clock.instant(),
          }),
        ],
        digests: {
          routes: [{ route: 'security', every: 'hourly' }],
          store: digestStore(store),
          publisher: new SnsDigestPublisher({
            client: new SNSClient({ region: 'eu-west-1' }),
            topicArn: TOPIC_ARN,
          }),
        },
      }),
    });
    await started.tick();
    return started;
  }

  it('collects the alerts of a tick, and sends them in one digest at the end of the first tick after the hour', async () => {
    fixture = await start();
    const from = fixture.clock.now();
    fixture.clock.advance(MINUTE);
    const added = fixture.sim.addEvents({ groupId: ids.project }, [
      alertingEvent(from + SECOND),
      alertingEvent(from + 2 * SECOND),
    ]);

    const collecting = await fixture.tick();
    fixture.clock.advance(HOUR);
    const flushing = await fixture.tick();
    const after = await fixture.tick();

    expect(outcomeOf(collecting, PROJECT)).toMatchObject({ status: 'ok' });
    expect(collecting.totals.destinations['digest-security']?.published.critical).toBe(2);
    expect(collecting.digests).toMatchObject({ sent: 0 });
    expect(flushing.digests).toMatchObject({ sent: 1, parts: 1, alerts: 2 });
    expect(after.digests).toMatchObject({ sent: 0, failed: 0 });
    expect(fixture.notifier.eventIds()).toEqual(added.map((event) => event.id));
    expect(digestsSent()).toHaveLength(1);
    expect(digestsSent()[0]?.MessageAttributes).toEqual({
      digest: { DataType: 'String', StringValue: 'security' },
    });
  });

  it('sends the digest on the next tick when its publish fails', async () => {
    fixture = await start();
    const from = fixture.clock.now();
    fixture.clock.advance(MINUTE);
    fixture.sim.addEvents({ groupId: ids.project }, [alertingEvent(from + SECOND)]);
    await fixture.tick();
    fixture.clock.advance(HOUR);
    sns
      .on(PublishCommand)
      .rejectsOnce(new InternalErrorException({ message: 'try again', $metadata: { httpStatusCode: 500 } }))
      .resolves({ MessageId: 'digest' });

    const failed = await fixture.tick();
    const retried = await fixture.tick();

    const metrics: Array<[string, number]> = [];
    emitTickMetrics({
      summary: failed,
      sink: { addMetric: (name, _unit, value) => metrics.push([name, value]) },
    });
    expect(metrics).toEqual(
      expect.arrayContaining([
        ['DigestsSent', 0],
        ['DigestsFailed', 1],
      ]),
    );
    expect(failed.digests).toMatchObject({ sent: 0, failed: 1 });
    expect(retried.digests).toMatchObject({ sent: 1, alerts: 1 });
    expect(digestsSent()).toHaveLength(2);
  });
});
