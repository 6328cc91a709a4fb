import type { NewEvent } from '../../../simulator/index.js';

/**
 * The events a chaos run adds to the simulator. Every alerting one raises alerts through stateless
 * rules of the default pack only (or feeds a threshold no run reaches: each event has its own user),
 * so the alerts a perfect run raises do not depend on the order the events are read in, and an
 * oracle can compute them from the events alone.
 */

/** A kind of event: its type and the fields that make rules match (or not). */
export interface ChaosEventTemplate {
  eventTypeName: string;
  fields?: Record<string, string>;
}

const PROJECT_ALERTING: readonly ChaosEventTemplate[] = [
  { eventTypeName: 'NETWORK_PERMISSION_ENTRY_ADDED', fields: { whitelistEntry: '0.0.0.0/0' } },
  { eventTypeName: 'NETWORK_PERMISSION_ENTRY_ADDED', fields: { whitelistEntry: '203.0.113.7/32' } },
  {
    eventTypeName: 'DATA_EXPLORER_CRUD',
    fields: { opType: 'deleteDocument', database: 'sales', collection: 'orders' },
  },
  { eventTypeName: 'MONGODB_USER_ADDED' },
  { eventTypeName: 'CLUSTER_DELETED', fields: { clusterName: 'Cluster0' } },
];

const PROJECT_QUIET: readonly ChaosEventTemplate[] = [
  { eventTypeName: 'HOST_UP', fields: { hostname: 'cluster0-shard-00-00.x7kq2.mongodb.net' } },
  { eventTypeName: 'CLUSTER_READY', fields: { clusterName: 'Cluster0' } },
];

const ORG_ALERTING: readonly ChaosEventTemplate[] = [
  { eventTypeName: 'API_KEY_CREATED', fields: { targetPublicKey: 'zmmrboas' } },
  { eventTypeName: 'ORG_TWO_FACTOR_AUTH_OPTIONAL' },
  { eventTypeName: 'JOINED_ORG' },
  { eventTypeName: 'USER_ROLES_CHANGED_AUDIT' },
];

const ORG_QUIET: readonly ChaosEventTemplate[] = [{ eventTypeName: 'ORG_CREATED' }];

/** Where an event goes, for the generator. */
export type ChaosScope = { kind: 'org'; orgId: string } | { kind: 'project'; groupId: string; orgId: string };

/**
 * Makes the events of one chaos run from its PRNG: each with its own user (so no threshold is ever
 * reached), `created` to the second as Atlas writes it, ids left to the simulator unless given.
 */
export class ChaosEventFactory {
  readonly #random: () => number;
  readonly #seed: number;
  #users = 0;
  #ids = 0;

  constructor(seed: number, random: () => number) {
    this.#seed = seed;
    this.#random = random;
  }

  /** An event some rule of the default pack alerts on. */
  alerting(scope: ChaosScope, created: number, id?: string): NewEvent {
    return this.#event(
      scope,
      created,
      this.#pick(scope.kind === 'org' ? ORG_ALERTING : PROJECT_ALERTING),
      id,
    );
  }

  /** An event no rule of the default pack alerts on. */
  quiet(scope: ChaosScope, created: number): NewEvent {
    return this.#event(scope, created, this.#pick(scope.kind === 'org' ? ORG_QUIET : PROJECT_QUIET));
  }

  /** A fresh 24-hex id, unique within the run and apart from those the simulator makes. */
  nextId(): string {
    this.#ids += 1;
    return `c0ffee${(this.#seed >>> 0).toString(16).padStart(8, '0')}${this.#ids.toString(16).padStart(10, '0')}`;
  }

  #pick(templates: readonly ChaosEventTemplate[]): ChaosEventTemplate {
    return templates[Math.floor(this.#random() * templates.length)] as ChaosEventTemplate;
  }

  #event(scope: ChaosScope, created: number, template: ChaosEventTemplate, id?: string): NewEvent {
    this.#users += 1;
    return {
      ...(id === undefined ? {} : { id }),
      eventTypeName: template.eventTypeName,
      created: atlasTime(created),
      orgId: scope.orgId,
      ...(scope.kind === 'project' ? { groupId: scope.groupId } : {}),
      username: `user${this.#users}.seed${this.#seed}@example.com`,
      remoteAddress: '198.51.100.7',
      ...template.fields,
    };
  }
}

/** `created` as Atlas writes it: ISO-8601 UTC to the second. */
export function atlasTime(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}
