import { formatAtlasDate } from '../shared/atlas/index.js';
import type { AtlasSimulator, EventScope, NewEvent } from '../simulator/index.js';
import { CommandFailed } from './errors.js';

/** One event the demo adds between its ticks, with why it is there. */
export interface DemoEvent {
  scope: EventScope;
  /** The project or organization name, for display. */
  where: string;
  event: NewEvent;
  /** What the event shows about the tick, in a few words. */
  why: string;
}

/** Options of {@link secondTickEvents}. */
export interface SecondTickEventsOptions {
  /** A simulator started with the default seed. */
  sim: AtlasSimulator;
  /** When the first tick ran, in milliseconds since the epoch (on the simulator's clock). */
  firstTickAt: number;
  /** When the second tick will run. */
  secondTickAt: number;
}

const MINUTE_MS = 60_000;

/**
 * The events Atlas "shows" between the demo's two ticks, each one raising an alert with the built-in
 * rules: one created eight minutes before the first tick but shown only now (late: older than the
 * watermark, inside the 15-minute overlap the next tick reads again), and two created in the same
 * second in one project (ties, ordered by id).
 *
 * @throws CommandFailed when the simulator does not hold the default seed's projects.
 * @example
 * ```ts
 * const added = secondTickEvents({ sim, firstTickAt, secondTickAt });
 * for (const { scope, event } of added) sim.addEvent(scope, event);
 * ```
 */
export function secondTickEvents(options: SecondTickEventsOptions): DemoEvent[] {
  const { sim } = options;
  const project = (name: string): { id: string; name: string } => {
    const found = sim.projects.find((candidate) => candidate.name === name);
    if (found === undefined) {
      throw new CommandFailed(
        `the demo needs the default seed's project ${name}: start the simulator with the default seed`,
      );
    }
    return found;
  };
  const analytics = project('analytics-prod');
  const payments = project('payments-prod');
  const lateAt = formatAtlasDate(Math.floor((options.firstTickAt - 8 * MINUTE_MS) / 1000) * 1000);
  const tiedAt = formatAtlasDate(Math.floor((options.secondTickAt - 2 * MINUTE_MS) / 1000) * 1000);
  const dave = {
    userId: '64b5cb01f1a3d40012ab3e04',
    username: 'dave.analyst@acme.example',
    remoteAddress: '192.0.2.61',
  };
  const carol = {
    userId: '64b5cb01f1a3d40012ab3e03',
    username: 'carol.sre@acme.example',
    remoteAddress: '203.0.113.77',
  };
  return [
    {
      scope: { groupId: analytics.id },
      where: analytics.name,
      event: {
        eventTypeName: 'NETWORK_PERMISSION_ENTRY_ADDED',
        created: lateAt,
        whitelistEntry: '0.0.0.0/0',
        ...dave,
        isGlobalAdmin: false,
      },
      why: `created ${lateAt}, before the last watermark: late, caught by the overlap`,
    },
    {
      scope: { groupId: payments.id },
      where: payments.name,
      event: {
        eventTypeName: 'DATA_EXPLORER_CRUD',
        created: tiedAt,
        database: 'payments',
        collection: 'customers',
        opType: 'deleteDocument',
        ...carol,
        isGlobalAdmin: false,
      },
      why: `created ${tiedAt}`,
    },
    {
      scope: { groupId: payments.id },
      where: payments.name,
      event: {
        eventTypeName: 'MONGODB_USER_ADDED',
        created: tiedAt,
        dbUserUsername: 'temp-admin',
        ...carol,
        isGlobalAdmin: false,
      },
      why: `created ${tiedAt} too: the same second`,
    },
  ];
}

/** An inventory change the demo makes between its ticks: no event reports it, the inventory does. */
export interface DemoInventoryChange {
  /** The organization name, for display. */
  where: string;
  what: string;
  why: string;
}

/**
 * The changes an administrator makes between the demo's ticks, as in the Atlas UI, that no event
 * reports and the second tick's inventory finds: the default seed's `terraform` service account given
 * the `ORG_OWNER` role in its organization (a new critical finding), and the temporary `0.0.0.0/0`
 * entry of `internal-tools` removed after its migration (the first tick's baseline finding resolved).
 *
 * @throws CommandFailed when the simulator does not hold the default seed's organization and project.
 * @example
 * ```ts
 * const changes = makeInventoryChanges(sim);
 * ```
 */
export function makeInventoryChanges(sim: AtlasSimulator): DemoInventoryChange[] {
  const org = sim.orgs.find((candidate) => candidate.name === 'Acme Corp');
  const tools = sim.projects.find((candidate) => candidate.name === 'internal-tools');
  if (org === undefined || tools === undefined) {
    throw new CommandFailed(
      "the demo needs the default seed's organization Acme Corp and project internal-tools: start the simulator with the default seed",
    );
  }
  sim.putServiceAccount({
    clientId: 'mdb_sa_id_64b5cd01f1a3d40012ab4002',
    clientSecret: 'mdb_sa_sk_fake-client-secret-terraform',
    name: 'terraform',
    description: 'Applies the Terraform plans of the platform team',
    roles: [
      { orgId: org.id, roleName: 'ORG_MEMBER' },
      { orgId: org.id, roleName: 'ORG_OWNER' },
    ],
    accessList: [{ cidrBlock: '192.0.2.0/28', created: '2025-02-03T09:30:00Z' }],
  });
  sim.setProjectAccessList(tools.id, []);
  return [
    {
      where: org.name,
      what: 'service account terraform given ORG_OWNER',
      why: 'no event says so: the inventory snapshot finds it',
    },
    {
      where: tools.name,
      what: 'the temporary 0.0.0.0/0 entry removed after the migration',
      why: "the inventory resolves tick 1's finding",
    },
  ];
}
