import type { AtlasClient, AtlasCluster } from '../shared/atlas/index.js';
import { cleanAtlasName } from '../shared/notify/alert-context.js';

/** How far back the check reads: a short window keeps Atlas's work small, and `nLogs` 1 the answer. */
export const ACCESS_HISTORY_CHECK_WINDOW_MS = 60 * 60_000;

/** The most clusters a warning names; the others are counted. */
const NAMED_CLUSTERS = 5;

/** Options of {@link checkAccessHistory}. */
export interface CheckAccessHistoryOptions {
  /** A client with the poller's credentials. */
  client: AtlasClient;
  projectId: string;
  signal: AbortSignal;
}

/** What {@link checkAccessHistory} found: the cluster that answered, or that none could be read. */
export interface AccessHistoryFinding {
  readonly status: 'ok' | 'warn';
  readonly note: string;
}

/**
 * Proves that the credentials may read a project's database access history, with two small calls:
 * the project's clusters (`GET /groups/{groupId}/clusters`), then the newest line of the last hour
 * of the first dedicated cluster's access history (`nLogs=1`). Roles are granted on the project, not
 * on a cluster, so one cluster answers for all. A cluster of a tier the client does not recognise is
 * read when the project has no dedicated one, as the poller reads it. A project with no cluster that
 * keeps access history (only shared-tier, Flex or serverless ones, or none) has nothing to read: a
 * warning that names its clusters, since the role cannot be proved there.
 *
 * The window ends at Atlas's time (its `Date` header), so a local clock that is off moves nothing.
 *
 * @throws The Atlas errors of listing the clusters and reading the history: AtlasForbiddenError (403)
 *   or AtlasAuthError (401) where the credentials lack the role; and the signal's reason.
 *
 * @example
 * ```ts
 * const finding = await checkAccessHistory({ client, projectId: '64b5ca17f1a3d40012ab3d11', signal });
 * // { status: 'ok', note: 'cluster payments-main answered: its latest login attempt was at 2026-11-27T16:59:12Z' }
 * ```
 */
export async function checkAccessHistory(options: CheckAccessHistoryOptions): Promise<AccessHistoryFinding> {
  const { client, projectId, signal } = options;
  const others: AtlasCluster[] = [];
  let othersCount = 0;
  let chosen: AtlasCluster | undefined;
  for await (const cluster of client.listClusters(projectId, { signal })) {
    if (!cluster.accessHistory) {
      othersCount += 1;
      if (others.length < NAMED_CLUSTERS) others.push(cluster);
    } else if (cluster.tier === 'dedicated') {
      chosen = cluster;
      break;
    } else {
      chosen ??= cluster;
    }
  }
  if (chosen === undefined) {
    return { status: 'warn', note: noClusterToRead(others, othersCount) };
  }
  const end = Math.floor(client.serverClock.now());
  const history = await client.readAccessHistory(projectId, chosen.name, {
    start: end - ACCESS_HISTORY_CHECK_WINDOW_MS,
    end,
    nLogs: 1,
    signal,
  });
  const latest = history.lines[0];
  const name = `cluster ${shownName(chosen)}`;
  if (latest !== undefined) {
    const at = new Date(latest.timestampMs).toISOString().replace(/\.\d{3}Z$/, 'Z');
    return { status: 'ok', note: `${name} answered: its latest login attempt was at ${at}` };
  }
  if (history.dropped > 0) {
    return {
      status: 'ok',
      note: `${name} answered, with a line the poller cannot read (logged as a warning)`,
    };
  }
  return { status: 'ok', note: `${name} answered: no login attempt in the last hour` };
}

function noClusterToRead(others: readonly AtlasCluster[], count: number): string {
  const unverified = 'the role is not verified in this project until it has one';
  if (count === 0) return `no dedicated cluster to read: the project has no cluster; ${unverified}`;
  const named = others.map((cluster) => `${shownName(cluster)} (${tierOf(cluster)})`);
  if (count > others.length) named.push(`${count - others.length} more`);
  return `no dedicated cluster to read: ${named.join(', ')}; Atlas keeps database access history for dedicated clusters (M10 and up) only, and the poller skips the others; ${unverified}`;
}

/** A cluster's name, cleaned: it is Atlas's text, printed on a terminal. */
function shownName(cluster: AtlasCluster): string {
  return cleanAtlasName(cluster.name) ?? '(unnamed)';
}

/** `shared tier M0`, `Flex`, `serverless`: why a cluster keeps no access history. */
function tierOf(cluster: AtlasCluster): string {
  const size = cleanAtlasName(cluster.instanceSize);
  switch (cluster.tier) {
    case 'shared':
      return size === undefined ? 'shared tier' : `shared tier ${size}`;
    case 'flex':
      return 'Flex';
    default:
      return cluster.tier;
  }
}
