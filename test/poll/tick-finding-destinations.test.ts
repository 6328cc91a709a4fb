import { EventBridgeClient, PutEventsCommand, type PutEventsCommandInput } from '@aws-sdk/client-eventbridge';
import {
  BatchImportFindingsCommand,
  type BatchImportFindingsCommandInput,
  SecurityHubClient,
} from '@aws-sdk/client-securityhub';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EventBridgeNotifier, SecurityHubNotifier } from '../../shared/notify/index.js';
import { routedDestination } from '../../shared/routes/account-destination.js';
import type { SeedData } from '../../simulator/index.js';
import { HOUR, ids, type PollFixture, pollSeed, startPollFixture } from './support/poll-fixture.js';
import { storeKinds } from './support/store-kinds.js';

const FINDING = `atlas-audit-alerts/posture/project/${ids.project}/access-list/0.0.0.0%2F0`;
const securityHub = mockClient(SecurityHubClient);
const eventBridge = mockClient(EventBridgeClient);

/** The tick tests' seed, `payments` open to the whole internet. */
function openProjectSeed(): SeedData {
  const base = pollSeed();
  return {
    ...base,
    projects: (base.projects ?? []).map((project) => ({
      ...project,
      accessList: project.id === ids.project ? [{ cidrBlock: '0.0.0.0/0' }] : [],
    })),
  };
}

/** The record state of each import of the posture finding, in order. */
function importsOfFinding(): string[] {
  return securityHub
    .commandCalls(BatchImportFindingsCommand)
    .flatMap((call) => call.args[0].input.Findings ?? [])
    .filter((finding) => finding.Id === FINDING)
    .map((finding) => `${finding.RecordState} ${finding.Compliance?.Status}`);
}

/** The detail-types put on the bus, in order. */
function detailTypes(): string[] {
  return eventBridge
    .commandCalls(PutEventsCommand)
    .flatMap((call) => call.args[0].input.Entries ?? [])
    .map((entry) => entry.DetailType ?? '');
}

describe.each(storeKinds())('a posture finding at Security Hub and on the bus ($name)', ({ factory }) => {
  let fixture: PollFixture | undefined;

  beforeEach(() => {
    securityHub.reset();
    eventBridge.reset();
    securityHub.on(BatchImportFindingsCommand).callsFake((input: BatchImportFindingsCommandInput) => ({
      SuccessCount: input.Findings?.length ?? 0,
      FailedCount: 0,
      FailedFindings: [],
    }));
    eventBridge.on(PutEventsCommand).callsFake((input: PutEventsCommandInput) => ({
      FailedEntryCount: 0,
      Entries: (input.Entries ?? []).map((_, index) => ({ EventId: `id-${index}` })),
    }));
  });

  afterEach(async () => {
    await fixture?.close();
    fixture = undefined;
  });

  it('is imported active, archived once when fixed, and active again once when it returns', async () => {
    fixture = await startPollFixture({
      store: factory,
      seed: openProjectSeed(),
      config: { sources: { projectIds: [ids.project] } },
      destinations: (clock) => [
        routedDestination({
          kind: 'securityHub',
          policies: [null],
          notifier: new SecurityHubNotifier({
            client: new SecurityHubClient({ region: 'eu-west-1' }),
            accountId: '123456789012',
            region: 'eu-west-1',
            clock: clock.instant(),
            random: () => 0.5,
          }),
        }),
        routedDestination({
          kind: 'eventBridge',
          policies: [null],
          notifier: new EventBridgeNotifier({
            client: new EventBridgeClient({ region: 'eu-west-1' }),
            busName: 'default',
            clock: clock.instant(),
          }),
        }),
      ],
    });

    await fixture.tick();
    fixture.sim.setProjectAccessList(ids.project, [{ cidrBlock: '10.0.0.0/8' }]);
    fixture.clock.advance(HOUR);
    await fixture.tick();
    fixture.clock.advance(HOUR);
    await fixture.tick();
    fixture.sim.setProjectAccessList(ids.project, [{ cidrBlock: '0.0.0.0/0' }]);
    fixture.clock.advance(HOUR);
    await fixture.tick();
    fixture.clock.advance(HOUR);
    await fixture.tick();

    expect(importsOfFinding()).toEqual(['ACTIVE FAILED', 'ARCHIVED PASSED', 'ACTIVE FAILED']);
    expect(detailTypes().filter((type) => type === 'Atlas Audit Alert Resolved')).toHaveLength(1);
  });
});
