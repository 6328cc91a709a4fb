import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  PublishBatchCommand,
  type PublishBatchCommandInput,
  type PublishBatchRequestEntry,
  SNSClient,
} from '@aws-sdk/client-sns';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AtlasClient } from '../../shared/atlas/index.js';
import {
  MAX_MESSAGE_BYTES,
  SnsNotifier,
  snsEntryBytes,
  validateSnsEntry,
} from '../../shared/notify/index.js';
import { pollerConfigSchema, runTick, type TickSummary } from '../../shared/poll/index.js';
import { createRuleEngine, MemoryCounterStore } from '../../shared/rules/index.js';
import { FileStateStore } from '../../shared/state/index.js';
import { type AtlasSimulator, type NewEvent, startSimulator } from '../../simulator/index.js';
import { HOSTILE_VALUES } from '../notify/support/alerts.js';
import { defaultRulePack, ids, pollerKey, pollSeed } from '../poll/support/poll-fixture.js';
import { TestClock } from '../poll/support/test-clock.js';

/**
 * Event values an attacker controls (a user name, a database name, an access-list entry, an API key's
 * name) go through a real tick, the default rules and the SNS notifier (SNS itself mocked). Every
 * entry sent must pass the validator the notifier runs, stay within SNS's size, carry no Slack
 * mention or link in what Chatbot renders, and no control character in the subject or the email.
 * test/notify checks the formatters one by one; this checks what a tick sends.
 */
const MINUTE = 60_000;
const MEGABYTE = 1024 * 1024;
const TOPIC_ARN = 'arn:aws:sns:eu-west-1:123456789012:atlas-audit-alerts';
const sns = mockClient(SNSClient);

/** Slack control sequences: a mention, a user or group ping, a disguised link. */
const SLACK_SEQUENCE = /<[!@#]|<https?:|<mailto:/;
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is this pattern's job.
const CONTROL_EXCEPT_LINE_BREAKS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

const clock = new TestClock();
let sim: AtlasSimulator;
let directory: string;
let summary: TickSummary;
let entries: PublishBatchRequestEntry[];
let expectedAlerts: number;

function hostileEvents(created: string): { project: NewEvent[]; org: NewEvent[] } {
  const project: NewEvent[] = [];
  const org: NewEvent[] = [];
  for (const value of HOSTILE_VALUES) {
    project.push(
      {
        eventTypeName: 'NETWORK_PERMISSION_ENTRY_ADDED',
        created,
        whitelistEntry: value,
        username: value,
        remoteAddress: value,
      },
      {
        eventTypeName: 'DATA_EXPLORER_CRUD',
        created,
        opType: 'deleteDocument',
        database: value,
        collection: value,
        username: `${value} ${project.length}`,
      },
    );
    org.push({ eventTypeName: 'API_KEY_CREATED', created, targetPublicKey: value, username: value });
  }
  const huge = `<!channel> ${'\u0007x'.repeat(MEGABYTE / 2)}`;
  project.push(
    { eventTypeName: 'NETWORK_PERMISSION_ENTRY_ADDED', created, whitelistEntry: '0.0.0.0/0', username: huge },
    {
      eventTypeName: 'NETWORK_PERMISSION_ENTRY_ADDED',
      created,
      whitelistEntry: huge,
      username: '😀'.repeat(MEGABYTE / 4),
    },
  );
  org.push({ eventTypeName: 'ORG_TWO_FACTOR_AUTH_OPTIONAL', created, username: huge });
  return { project, org };
}

beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), 'hostile-'));
  sim = await startSimulator({ seed: pollSeed(), clock: clock.instant() });
  const created = new Date(clock.now() - 5 * MINUTE).toISOString().replace('.000Z', 'Z');
  const events = hostileEvents(created);
  const added = [
    ...sim.addEvents({ groupId: ids.project }, events.project),
    ...sim.addEvents({ orgId: ids.org }, events.org),
  ];
  const pack = await defaultRulePack();
  const oracle = createRuleEngine({ pack, counters: new MemoryCounterStore() });
  expectedAlerts = (await oracle.evaluate(added)).length;

  sns.reset();
  sns.on(PublishBatchCommand).callsFake((input: PublishBatchCommandInput) => ({
    Successful: (input.PublishBatchRequestEntries ?? []).map((entry) => ({
      Id: entry.Id,
      MessageId: `m-${entry.Id}`,
    })),
  }));
  const store = await FileStateStore.open({ path: join(directory, 'state.json'), clock });
  const atlas = new AtlasClient({
    baseUrl: sim.baseUrl,
    credentials: { kind: 'digest', ...pollerKey },
    clock: clock.instant(),
  });
  const notifier = new SnsNotifier({
    client: new SNSClient({
      region: 'eu-west-1',
      credentials: { accessKeyId: 'fake', secretAccessKey: 'fake' },
    }),
    topicArn: TOPIC_ARN,
    clock,
    random: () => 0.5,
  });
  try {
    summary = await runTick(
      { atlas, store, engine: createRuleEngine({ pack, counters: store }), notifier, clock },
      {
        config: pollerConfigSchema.parse({
          atlas: { baseUrl: sim.baseUrl },
          sources: { orgIds: [ids.org], projectIds: [ids.project] },
        }),
        owner: 'hostile',
      },
    );
  } finally {
    await atlas.close();
    await store.close();
  }
  entries = sns
    .commandCalls(PublishBatchCommand)
    .flatMap((call) => call.args[0].input.PublishBatchRequestEntries ?? []);
});

afterAll(async () => {
  sns.restore();
  await sim.stop();
  await rm(directory, { recursive: true, force: true });
});

describe('a tick over events with hostile values', () => {
  it('delivers every alert they raise and moves both cursors past them', () => {
    expect(summary.sources.map((source) => [source.source, source.status])).toEqual([
      [`org:${ids.org}`, 'ok'],
      [`project:${ids.project}`, 'ok'],
    ]);
    expect(summary.totals.alerts.failedPermanently).toBe(0);
    expect(expectedAlerts).toBeGreaterThan(2 * HOSTILE_VALUES.length);
    expect(entries).toHaveLength(expectedAlerts);
  });

  it('sends only entries that pass the SNS entry validator, each within SNS’s size', () => {
    for (const entry of entries) {
      expect(validateSnsEntry(entry)).toEqual({ valid: true });
      expect(snsEntryBytes(entry)).toBeLessThanOrEqual(MAX_MESSAGE_BYTES);
    }
  });

  it('leaves no Slack mention, ping or link in what Chatbot renders (the subject is for email alone)', () => {
    for (const entry of entries) {
      const message = JSON.parse(entry.Message ?? '{}') as { default: string };
      const chatbot = JSON.parse(message.default) as { content: Record<string, unknown> };
      const rendered = JSON.stringify(chatbot.content);
      expect(rendered).not.toMatch(SLACK_SEQUENCE);
    }
  });

  it('keeps control characters and direction overrides out of the subject and the email text', () => {
    for (const entry of entries) {
      const message = JSON.parse(entry.Message ?? '{}') as { email: string };
      const text = message.email;
      expect(entry.Subject).not.toMatch(CONTROL_EXCEPT_LINE_BREAKS);
      expect(text).not.toMatch(CONTROL_EXCEPT_LINE_BREAKS);
    }
  });
});
