import type { AtlasClient } from '../atlas/atlas-client.js';
import type { AtlasApiKeyRole, AtlasEvent, AtlasProject } from '../atlas/types.js';
import type { Clock } from '../clock.js';
import type { Logger } from '../logger.js';
import {
  type AlertContext,
  type CredentialDetails,
  cleanAtlasName,
  displayName,
  MAX_CREDENTIAL_ROLES,
  type NamedThing,
  shortId,
} from '../notify/alert-context.js';
import type { InventorySnapshot } from '../state/inventory-snapshot.js';
import type { CachedName, StateStore } from '../state/state-store.js';
import { describeAlertConfig } from './alert-config-description.js';
import { describeFailure } from './failure-report.js';
import {
  alertConfigKey,
  type NameCache,
  orgNameKey,
  projectNameKey,
  projectOrgKey,
  teamNameKey,
} from './name-cache.js';
import type { PollSource } from './poll-source.js';

/** The longest one Atlas lookup of a name may take, retries included: a name never holds up a tick for long. */
export const NAME_LOOKUP_TIMEOUT_MS = 10_000;

/** Options of {@link AlertDescriber}. */
export interface AlertDescriberOptions {
  atlas: AtlasClient;
  store: StateStore;
  /** The container's names, kept across ticks. */
  names: NameCache;
  clock: Clock;
  logger: Logger;
  /** The tick's signal: a lookup in flight when the tick stops is given up, and the id shown. */
  signal: AbortSignal;
  /** Default {@link NAME_LOOKUP_TIMEOUT_MS}. */
  lookupTimeoutMs?: number;
}

/**
 * What one tick knows about the events its alerts are raised on: the names of their organization and
 * project (and the organization of a project when the event names only the project), the team or
 * alert configuration they are about, and the API key or service account they are about. Called by
 * the rule engine once per alert (never for an event that raises none), so an idle source or a quiet
 * window costs nothing.
 *
 * Names come from the container's {@link NameCache}, else the state store (one read for all of an
 * alert's), else Atlas (`GET /orgs/{orgId}`, `GET /groups/{groupId}`, `GET /orgs/{orgId}/teams/{teamId}`,
 * `GET /groups/{groupId}/alertConfigs/{alertConfigId}`), whose answer is kept in both. A name is never a reason for a tick to fail: an error (no role, 404,
 * a timeout, the store down) is logged without credentials, remembered for a while so it is not
 * retried on every alert, and the alert shows the id. Names are Atlas-controlled text: cleaned and cut
 * before they are kept (see `cleanAtlasName`).
 *
 * Key details come from the organization's latest inventory snapshot in the store (read at most once
 * per tick and organization): its description, a service account's name, and its current roles with
 * the organization or project each holds in, by name; never a secret.
 *
 * @example
 * ```ts
 * const describer = new AlertDescriber({ atlas, store, names, clock, logger, signal: budget.signal });
 * await engine.evaluate(events, { describe: (event) => describer.describe(event, source) });
 * ```
 */
export class AlertDescriber {
  readonly #options: AlertDescriberOptions;
  readonly #pending = new Map<string, Promise<string | undefined>>();
  readonly #snapshots = new Map<string, Promise<InventorySnapshot | undefined>>();
  /** `GET /groups/{groupId}` in flight: a project's name and its organization come from one answer. */
  readonly #projects = new Map<string, Promise<AtlasProject>>();

  constructor(options: AlertDescriberOptions) {
    this.#options = options;
  }

  /**
   * The context of an alert raised on `event` of `source`. Never throws.
   *
   * @example
   * ```ts
   * await describer.describe(event, projectSource('64b5ca17f1a3d40012ab3d11'));
   * // { projectId: '64b5ca17f1a3d40012ab3d11', projectName: 'payments-prod', orgId: '…', orgName: 'Acme Corp' }
   * ```
   */
  async describe(event: AtlasEvent, source: PollSource): Promise<AlertContext> {
    const projectId = atlasId(event.groupId) ?? (source.kind === 'project' ? source.id : undefined);
    let orgId = atlasId(event.orgId) ?? (source.kind === 'org' ? source.id : undefined);
    if (orgId === undefined && projectId !== undefined) {
      // An inventory finding of a project names no organization: its project does.
      orgId = atlasId((await this.#names([projectOrgKey(projectId)])).get(projectOrgKey(projectId)));
    }
    const teamId = atlasId(event.teamId);
    const alertConfigId = atlasId(event.alertConfigId);
    const keys = [
      ...(orgId === undefined ? [] : [orgNameKey(orgId)]),
      ...(projectId === undefined ? [] : [projectNameKey(projectId)]),
      ...(teamId === undefined || orgId === undefined ? [] : [teamNameKey(orgId, teamId)]),
      ...(alertConfigId === undefined || projectId === undefined
        ? []
        : [alertConfigKey(projectId, alertConfigId)]),
    ];
    const [names, credential] = await Promise.all([
      this.#names(keys),
      orgId === undefined ? Promise.resolve(undefined) : this.#credential(event, orgId),
    ]);
    const context: AlertContext = {};
    if (orgId !== undefined) {
      context.orgId = orgId;
      const name = names.get(orgNameKey(orgId));
      if (name !== undefined) context.orgName = name;
    }
    if (projectId !== undefined) {
      context.projectId = projectId;
      const name = names.get(projectNameKey(projectId));
      if (name !== undefined) context.projectName = name;
    }
    if (teamId !== undefined)
      context.team = named(teamId, orgId === undefined ? undefined : names.get(teamNameKey(orgId, teamId)));
    if (alertConfigId !== undefined) {
      const key = projectId === undefined ? undefined : alertConfigKey(projectId, alertConfigId);
      context.alertConfig = named(alertConfigId, key === undefined ? undefined : names.get(key));
    }
    if (credential !== undefined) context.credential = credential;
    if (source.connection !== undefined) context.connection = source.connection;
    return context;
  }

  /**
   * The names of `keys` that are known, from memory, the store or Atlas. `quiet` lookups log their
   * failures at debug level: names that only add detail (where a key's other roles hold), which the
   * poller may have no right to read.
   */
  async #names(keys: readonly string[], quiet = false): Promise<Map<string, string>> {
    const { names, clock } = this.#options;
    const now = clock.now();
    const found = new Map<string, string>();
    const waiting: Array<[string, Promise<string | undefined>]> = [];
    const missing: string[] = [];
    for (const key of keys) {
      const entry = names.get(key, now);
      if (entry?.kind === 'known') found.set(key, entry.name);
      else if (entry?.kind === 'unknown') continue;
      else {
        const pending = this.#pending.get(key);
        if (pending === undefined) missing.push(key);
        else waiting.push([key, pending]);
      }
    }
    if (missing.length > 0) {
      const loading = this.#load(missing, quiet);
      for (const key of missing) {
        const promise = loading.then((loaded) => loaded.get(key));
        this.#pending.set(key, promise);
        waiting.push([key, promise]);
      }
      void loading.finally(() => {
        for (const key of missing) this.#pending.delete(key);
      });
    }
    for (const [key, promise] of waiting) {
      const name = await promise;
      if (name !== undefined) found.set(key, name);
    }
    return found;
  }

  /** Reads names the container does not hold: the store first, then Atlas for the rest. Never rejects. */
  async #load(keys: readonly string[], quiet: boolean): Promise<Map<string, string>> {
    const { store, names, clock, logger } = this.#options;
    const loaded = new Map<string, string>();
    try {
      const stored = await store.readNames({ keys });
      for (const [key, entry] of stored) {
        names.remember(key, entry.name, entry.resolvedAt, entry.expiresAt);
        loaded.set(key, entry.name);
      }
    } catch (error) {
      logger.warn('could not read names from the state store; asking Atlas', {
        keys: keys.length,
        error: error instanceof Error ? error.message : String(error),
      });
    }
    const fromAtlas = keys.filter((key) => !loaded.has(key));
    if (fromAtlas.length === 0) return loaded;
    const resolved = await Promise.all(fromAtlas.map((key) => this.#ask(key, quiet)));
    const fresh: CachedName[] = [];
    const now = clock.now();
    fromAtlas.forEach((key, index) => {
      const name = resolved[index];
      if (name === undefined) return;
      loaded.set(key, name);
      const entry = { key, name, resolvedAt: now, expiresAt: now + names.ttlMs };
      names.remember(key, name, entry.resolvedAt, entry.expiresAt);
      fresh.push(entry);
    });
    if (fresh.length > 0) {
      try {
        await store.writeNames({ names: fresh });
      } catch (error) {
        logger.warn('could not keep names in the state store; the next cold start asks Atlas again', {
          keys: fresh.length,
          error: error instanceof Error ? error.message : String(error),
        });
      }
    }
    return loaded;
  }

  /** One name from Atlas, or `undefined` (logged and remembered) when Atlas does not give it. */
  async #ask(key: string, quiet: boolean): Promise<string | undefined> {
    const { names, clock, logger, signal } = this.#options;
    const timeout = AbortSignal.timeout(this.#options.lookupTimeoutMs ?? NAME_LOOKUP_TIMEOUT_MS);
    const lookup = { signal: AbortSignal.any([signal, timeout]) };
    try {
      const name = await this.#read(key, lookup);
      if (name === undefined) {
        logger.warn('Atlas gave no usable name; alerts show the id', { key });
        names.rememberFailure(key, clock.now());
      }
      return name;
    } catch (error) {
      // The tick is stopping: not the name's fault, so it is asked for again next tick.
      if (signal.aborted) return undefined;
      const failure = describeFailure(error);
      names.rememberFailure(key, clock.now());
      if (failure.httpStatus === 404) {
        // Deleted since its events were written (a project, a team, an alert configuration): expected,
        // and its id is all there is.
        logger.debug('Atlas no longer knows what this id names; alerts show the id', { key });
        return undefined;
      }
      (quiet ? logger.debug : logger.warn).call(
        logger,
        'could not read a name from Atlas; alerts show the id until it is read again',
        {
          key,
          errorCode: failure.errorCode,
          httpStatus: failure.httpStatus,
          error: failure.message,
          retryInMinutes: Math.round(names.retryMs / 60_000),
        },
      );
      return undefined;
    }
  }

  /** Reads what `key` names from Atlas: its name, a project's organization id, or what an alert configuration alerts on. */
  async #read(key: string, lookup: { signal: AbortSignal }): Promise<string | undefined> {
    const { atlas } = this.#options;
    const [kind, rest = ''] = splitKey(key);
    const [first = '', second = ''] = rest.split('/');
    switch (kind) {
      case 'org':
        return cleanAtlasName((await atlas.getOrg(first, lookup)).name);
      case 'project':
        return cleanAtlasName((await this.#project(first, lookup)).name);
      case 'project-org':
        return atlasId((await this.#project(first, lookup)).orgId);
      case 'team':
        return cleanAtlasName((await atlas.getTeam(first, second, lookup)).name);
      case 'alert-config':
        return describeAlertConfig(await atlas.getAlertConfig(first, second, lookup));
      default:
        return undefined;
    }
  }

  /** `GET /groups/{groupId}`, once for the project's name and its organization together. */
  #project(groupId: string, lookup: { signal: AbortSignal }): Promise<AtlasProject> {
    let project = this.#projects.get(groupId);
    if (project === undefined) {
      project = this.#options.atlas.getProject(groupId, lookup);
      this.#projects.set(groupId, project);
      void project.then(
        () => this.#projects.delete(groupId),
        () => this.#projects.delete(groupId),
      );
    }
    return project;
  }

  /** The API key or service account `event` is about, from the organization's latest snapshot. */
  async #credential(event: AtlasEvent, orgId: string): Promise<CredentialDetails | undefined> {
    const type = typeof event.eventTypeName === 'string' ? event.eventTypeName : '';
    const publicKey = nonBlank(event.targetPublicKey);
    // In Atlas events `apiKeyId` is the key that acted; in inventory events, the key they are about.
    const apiKeyId = type.startsWith('INVENTORY_') ? nonBlank(event.apiKeyId) : undefined;
    // Inventory events name a service account `serviceAccountClientId`; Atlas events `targetClientId`.
    const clientId = nonBlank(event.serviceAccountClientId) ?? nonBlank(event.targetClientId);
    if (publicKey === undefined && apiKeyId === undefined && clientId === undefined) return undefined;
    const snapshot = await this.#snapshot(orgId);
    if (snapshot === undefined) return undefined;
    if (publicKey !== undefined || apiKeyId !== undefined) {
      const entry = snapshot.apiKeys.find(
        ({ apiKey }) =>
          (publicKey !== undefined && apiKey.publicKey === publicKey) ||
          (apiKeyId !== undefined && apiKey.id === apiKeyId),
      );
      if (entry !== undefined) {
        const { apiKey } = entry;
        const description = cleanAtlasName(apiKey.desc);
        return {
          kind: 'api-key',
          id: cleanAtlasName(apiKey.publicKey) ?? cleanAtlasName(apiKey.id) ?? '?',
          ...(description === undefined ? {} : { description }),
          roles: await this.#roles(apiKey.roles ?? [], orgId),
          snapshotTakenAt: snapshot.takenAt,
        };
      }
    }
    if (clientId === undefined) return undefined;
    const account = snapshot.serviceAccounts?.find(
      ({ serviceAccount }) => serviceAccount.clientId === clientId,
    )?.serviceAccount;
    if (account === undefined) return undefined;
    const name = cleanAtlasName(account.name);
    const description = cleanAtlasName(account.description);
    // A service account's roles in the API are the organization's: plain role names.
    const roles = (account.roles ?? []).map((roleName) => ({ roleName, orgId }));
    return {
      kind: 'service-account',
      id: cleanAtlasName(account.clientId) ?? '?',
      ...(name === undefined ? {} : { name }),
      ...(description === undefined ? {} : { description }),
      roles: await this.#roles(roles, orgId),
      snapshotTakenAt: snapshot.takenAt,
    };
  }

  /**
   * A key's roles as a person reads them, grouped by where they hold, by name: `ORG_MEMBER, ORG_OWNER
   * in Acme Corp (64b5…c01)`, `GROUP_READ_ONLY in payments-prod (64b5…d11)`. Those in `orgId`, the
   * alert's organization, come first, so a key of two organizations never reads as owning the wrong one.
   */
  async #roles(roles: readonly AtlasApiKeyRole[], orgId: string): Promise<string[]> {
    const held = roles
      .map((role) => ({
        roleName: cleanAtlasName(role.roleName),
        orgId: atlasId(role.orgId),
        groupId: atlasId(role.groupId),
      }))
      .filter(
        (role): role is { roleName: string; orgId: string | undefined; groupId: string | undefined } =>
          role.roleName !== undefined,
      )
      .slice(0, MAX_CREDENTIAL_ROLES);
    const keys = held.flatMap((role) => [
      ...(role.orgId === undefined ? [] : [orgNameKey(role.orgId)]),
      ...(role.groupId === undefined ? [] : [projectNameKey(role.groupId)]),
    ]);
    const names = await this.#names([...new Set(keys)], true);
    const scopes = new Map<string, string[]>();
    for (const role of held) {
      const scope =
        role.orgId !== undefined
          ? scopeName('organization', role.orgId, names.get(orgNameKey(role.orgId)))
          : role.groupId !== undefined
            ? scopeName('project', role.groupId, names.get(projectNameKey(role.groupId)))
            : '';
      scopes.set(scope, [...(scopes.get(scope) ?? []), role.roleName]);
    }
    const here =
      orgId === undefined ? undefined : scopeName('organization', orgId, names.get(orgNameKey(orgId)));
    return [...scopes]
      .sort(([a], [b]) => (a === here ? -1 : b === here ? 1 : 0))
      .map(([scope, names]) => (scope === '' ? names.join(', ') : `${names.join(', ')} in ${scope}`));
  }

  /**
   * Uses a snapshot just taken (by this tick's inventory check) for the keys of its organization:
   * the alerts it raises then name a key added since the stored snapshot.
   */
  useSnapshot(snapshot: InventorySnapshot): void {
    if (snapshot.orgId !== undefined) this.#snapshots.set(snapshot.orgId, Promise.resolve(snapshot));
  }

  /** The organization's latest inventory snapshot, read once per tick; `undefined` on any failure. */
  #snapshot(orgId: string): Promise<InventorySnapshot | undefined> {
    let snapshot = this.#snapshots.get(orgId);
    if (snapshot === undefined) {
      snapshot = this.#options.store.readInventory({ orgId }).catch((error: unknown) => {
        this.#options.logger.warn(
          'could not read the inventory snapshot; the alert goes without key details',
          {
            orgId,
            error: error instanceof Error ? error.message : String(error),
          },
        );
        return undefined;
      });
      this.#snapshots.set(orgId, snapshot);
    }
    return snapshot;
  }
}

/** `Acme Corp (64b5…c01)`, or `organization 64b5…c01` when the name is not known. */
function scopeName(kind: 'organization' | 'project', id: string, name: string | undefined): string {
  return name === undefined ? `${kind} ${shortId(id)}` : displayName(id, name);
}

/** What an event names by id, with its name when one was found. */
function named(id: string, name: string | undefined): NamedThing {
  return name === undefined ? { id } : { id, name };
}

/** An org or project id from an event, when it looks like one (no path syntax, not too long). */
function atlasId(value: unknown): string | undefined {
  return typeof value === 'string' && /^[A-Za-z0-9_-]{1,64}$/.test(value) ? value : undefined;
}

function nonBlank(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value : undefined;
}

function splitKey(key: string): [string, string | undefined] {
  const colon = key.indexOf(':');
  return [key.slice(0, colon), key.slice(colon + 1)];
}
