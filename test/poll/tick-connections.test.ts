import { afterEach, describe, expect, it } from 'vitest';
import { AtlasClient } from '../../shared/atlas/index.js';
import {
  type ConnectionClients,
  type ConnectionInput,
  type EffectiveConnection,
  emitTickMetrics,
  orgSource,
  type PollerConfigInput,
  projectSource,
  runTick,
  type TickSummary,
} from '../../shared/poll/index.js';
import { outcomeOf } from './support/assertions.js';
import {
  alertingEvent,
  fileStoreFactory,
  HOUR,
  ids,
  MINUTE,
  type PollFixture,
  pollerKey,
  pollSeed,
  startPollFixture,
} from './support/poll-fixture.js';
import { storeKinds } from './support/store-kinds.js';

/** The second organization's own key: the poller's key cannot read it. */
const elsewhereKey = { publicKey: 'elsewhre', privateKey: 'fake-private-key-elsewhere' } as const;
const seed = pollSeed([
  {
    id: '6650a1b2c3d4e5f603000009',
    desc: 'audit poller, second organization',
    ...elsewhereKey,
    roles: [{ orgId: ids.otherOrg, roleName: 'ORG_OWNER' }],
    accessList: [{ cidrBlock: '127.0.0.1/32' }],
  },
]);
const PROJECT = `project:${ids.project}`;
const FOREIGN = `project:${ids.foreignProject}`;

let fixture: PollFixture | undefined;
const clients: AtlasClient[] = [];

afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
  await fixture?.close();
  fixture = undefined;
});

/** The configuration of the tests: the top-level settings, and a connection to the second organization. */
function withConnection(baseUrl: string, elsewhere: Partial<ConnectionInput> = {}): PollerConfigInput {
  return {
    sources: { projectIds: [ids.project] },
    connections: [
      { name: 'elsewhere', baseUrl, sources: { projectIds: [ids.foreignProject] }, ...elsewhere },
    ],
  };
}

/** Each connection's client: the fixture's for `default`, a client with `credentials` for the others. */
function clientsFor(
  current: PollFixture,
  credentials: { publicKey: string; privateKey: string } | Error,
  asked: string[] = [],
): ConnectionClients {
  return async (connection: EffectiveConnection) => {
    asked.push(connection.name);
    if (connection.name === 'default') return current.atlas;
    if (credentials instanceof Error) throw credentials;
    const client = new AtlasClient({
      baseUrl: connection.baseUrl,
      credentials: { kind: 'digest', ...credentials },
      clock: current.clock.instant(),
      random: () => 0.5,
    });
    clients.push(client);
    return client;
  };
}

function tickWith(current: PollFixture, atlas: ConnectionClients): Promise<TickSummary> {
  return runTick(
    {
      atlas,
      store: current.store,
      engine: current.engine,
      notifier: current.notifier,
      clock: current.clock,
      names: current.names,
      discoveryCache: current.discoveryCache,
    },
    { config: current.config, owner: 'worker-a' },
  );
}

describe.each(storeKinds())('runTick over connections, with the $name', (kind) => {
  it('polls each connection with its own credentials, and says which connection polled a source', async () => {
    // Prepare
    const current = await startPollFixture({ store: kind.factory, seed, config: withConnection });
    fixture = current;
    const { sim, clock } = current;
    const ours = sim.addEvent({ groupId: ids.project }, alertingEvent(clock.now() - 10 * MINUTE));
    const theirs = sim.addEvent({ groupId: ids.foreignProject }, alertingEvent(clock.now() - 9 * MINUTE));
    const asked: string[] = [];

    // Act
    const summary = await tickWith(current, clientsFor(current, elsewhereKey, asked));

    // Assess
    expect(current.notifier.eventIds().sort()).toEqual([ours.id, theirs.id].sort());
    expect(outcomeOf(summary, PROJECT)).toMatchObject({ status: 'ok' });
    expect(outcomeOf(summary, PROJECT).connection).toBeUndefined();
    expect(outcomeOf(summary, FOREIGN)).toMatchObject({ status: 'ok', connection: 'elsewhere' });
    expect(asked.sort()).toEqual(['default', 'elsewhere']);
    expect(summary.totals.sourceErrors).toBe(0);
    // Routes match on the connection an alert came through: its context says it.
    const connectionOf = (eventId: unknown) =>
      current.notifier.delivered.find((alert) => alert.events[0]?.id === eventId)?.context?.connection;
    expect(connectionOf(theirs.id)).toBe('elsewhere');
    expect(connectionOf(ours.id)).toBeUndefined();
    // And status says which connection polls each source.
    const reports = new Map(
      (await current.store.listSourceReports()).map((report) => [report.source, report]),
    );
    expect(reports.get(FOREIGN)?.connection).toBe('elsewhere');
    expect(reports.get(PROJECT)?.connection).toBeUndefined();
  });

  it('fails the sources of a connection whose credentials cannot be read, and delivers the others', async () => {
    // Prepare
    fixture = await startPollFixture({ store: kind.factory, seed, config: withConnection });
    const { sim, clock } = fixture;
    const ours = sim.addEvent({ groupId: ids.project }, alertingEvent(clock.now() - 10 * MINUTE));
    sim.addEvent({ groupId: ids.foreignProject }, alertingEvent(clock.now() - 9 * MINUTE));
    const unreadable = Object.assign(new Error('the secret of connection "elsewhere" could not be read'), {
      code: 'CREDENTIALS_UNREADABLE',
    });

    // Act
    const summary = await tickWith(fixture, clientsFor(fixture, unreadable));

    // Assess
    expect(fixture.notifier.eventIds()).toEqual([ours.id]);
    expect(outcomeOf(summary, PROJECT)).toMatchObject({ status: 'ok' });
    expect(outcomeOf(summary, FOREIGN)).toMatchObject({
      status: 'failed',
      connection: 'elsewhere',
      errorCode: 'CREDENTIALS_UNREADABLE',
      eventsFetched: 0,
    });
    expect(summary.totals.errorsByCode).toEqual({ CREDENTIALS_UNREADABLE: 1 });
    expect(summary.completed).toBe(true);
    const metrics: string[] = [];
    emitTickMetrics({
      summary,
      sink: {
        addMetric: (name, _unit, value, dimensions) => {
          if (dimensions?.connection !== undefined) metrics.push(`${name} ${dimensions.connection} ${value}`);
        },
      },
    });
    expect(metrics.filter((metric) => /^(SourceErrors|AlertsPublished) /.test(metric)).sort()).toEqual([
      'AlertsPublished default 1',
      'AlertsPublished elsewhere 0',
      'SourceErrors default 0',
      'SourceErrors elsewhere 1',
    ]);
  });

  it('fails the sources of a connection whose credentials Atlas refuses, and delivers the others', async () => {
    // Prepare
    const current = await startPollFixture({ store: kind.factory, seed, config: withConnection });
    fixture = current;
    const { sim, clock } = current;
    const ours = sim.addEvent({ groupId: ids.project }, alertingEvent(clock.now() - 10 * MINUTE));
    sim.addEvent({ groupId: ids.foreignProject }, alertingEvent(clock.now() - 9 * MINUTE));

    // Act: the second connection is given the first organization's key, which cannot read its project.
    const summary = await tickWith(current, clientsFor(current, pollerKey));

    // Assess
    expect(current.notifier.eventIds()).toEqual([ours.id]);
    expect(outcomeOf(summary, FOREIGN)).toMatchObject({ status: 'failed', connection: 'elsewhere' });
    expect(outcomeOf(summary, FOREIGN).httpStatus).toBeGreaterThanOrEqual(401);
    expect(summary.totals.atlasAuthFailures).toBe(1);
  });
});

describe('runTick over connections', () => {
  it('emits no metric by connection for a deployment of the connection default alone', async () => {
    // Prepare
    fixture = await startPollFixture({ store: fileStoreFactory(), seed });
    fixture.sim.addEvent({ groupId: ids.project }, alertingEvent(fixture.clock.now() - 10 * MINUTE));
    const dimensions: string[] = [];

    // Act
    const summary = await fixture.tick();
    emitTickMetrics({
      summary,
      sink: { addMetric: (_name, _unit, _value, given) => dimensions.push(...Object.keys(given ?? {})) },
    });

    // Assess
    expect(summary.totals.alerts.published.critical).toBe(1);
    expect(dimensions).not.toContain('connection');
  });

  it("reads each connection's sources with its own timings over the deployment's", async () => {
    // Prepare: the second connection looks back six hours on its first tick, the deployment one.
    fixture = await startPollFixture({
      store: fileStoreFactory(),
      seed,
      config: (baseUrl) => withConnection(baseUrl, { timing: { initialLookbackSeconds: 6 * 3_600 } }),
    });
    const { sim, clock } = fixture;
    sim.addEvent({ groupId: ids.project }, alertingEvent(clock.now() - 3 * HOUR));
    const older = sim.addEvent({ groupId: ids.foreignProject }, alertingEvent(clock.now() - 3 * HOUR));

    // Act
    await tickWith(fixture, clientsFor(fixture, elsewhereKey));

    // Assess
    expect(fixture.notifier.eventIds()).toEqual([older.id]);
  });

  it('fails the sources of a named connection when the tick has only the default connection client', async () => {
    // Prepare
    fixture = await startPollFixture({ store: fileStoreFactory(), seed, config: withConnection });

    // Act
    const summary = await fixture.tick();

    // Assess
    expect(outcomeOf(summary, PROJECT).status).toBe('ok');
    expect(outcomeOf(summary, FOREIGN)).toMatchObject({
      status: 'failed',
      errorCode: 'CONNECTION_UNAVAILABLE',
      connection: 'elsewhere',
    });
    expect(outcomeOf(summary, FOREIGN).message).toContain('connection "elsewhere" has no Atlas client');
  });

  it('polls the sources a caller names with their connections, and fails one naming a connection not configured', async () => {
    // Prepare
    fixture = await startPollFixture({ store: fileStoreFactory(), seed, config: withConnection });
    const { sim, clock } = fixture;
    const theirs = sim.addEvent({ groupId: ids.foreignProject }, alertingEvent(clock.now() - 9 * MINUTE));
    const asked: string[] = [];

    // Act
    const summary = await runTick(
      {
        atlas: clientsFor(fixture, elsewhereKey, asked),
        store: fixture.store,
        engine: fixture.engine,
        notifier: fixture.notifier,
        clock: fixture.clock,
      },
      {
        config: fixture.config,
        owner: 'worker-a',
        sources: [
          { ...projectSource(ids.foreignProject), connection: 'elsewhere' },
          { ...orgSource(ids.org), connection: 'gone' },
        ],
      },
    );

    // Assess
    expect(fixture.notifier.eventIds()).toEqual([theirs.id]);
    expect(asked).toEqual(['elsewhere']);
    expect(outcomeOf(summary, `org:${ids.org}`)).toMatchObject({
      status: 'failed',
      errorCode: 'CONNECTION_UNAVAILABLE',
      connection: 'gone',
    });
    expect(summary.sources).toHaveLength(2);
  });
});
