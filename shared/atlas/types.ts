/**
 * Shapes of what the Atlas Admin API returns, as the client hands them out. Every field the API
 * documents is optional (which ones appear depends on the event type), and fields this file does not
 * name are kept: Atlas adds fields and event types often.
 */

/** A link in a `links` array: `self` always, `next` on a list page that has a following page. */
export interface AtlasLink {
  href: string;
  rel: string;
  [key: string]: unknown;
}

/** One element of an `AUTOMATION_CONFIG_PUBLISHED_AUDIT` event's `diffs`. */
export interface AtlasEventDiff {
  id?: string;
  name?: string | null;
  type?: string;
  status?: string;
  params?: Array<{ display?: string; new?: string; old?: string | null; param?: string }>;
  roles?: Array<{ db?: string; role?: string }>;
  /** Spelled with a doubled i by the API; kept as the API spells it. */
  priviileges?: Array<{ actions?: string[]; resource?: Record<string, unknown> }> | null;
  [key: string]: unknown;
}

/** A project or organization event. */
export interface AtlasEvent {
  id?: string;
  /** ISO-8601 UTC. */
  created?: string;
  eventTypeName?: string;
  groupId?: string;
  orgId?: string;
  alertId?: string;
  alertConfigId?: string;
  apiKeyId?: string;
  publicKey?: string;
  userId?: string;
  username?: string;
  remoteAddress?: string;
  targetPublicKey?: string;
  targetUsername?: string;
  /** Access-list entry as the seed names it. */
  accessListEntry?: string;
  /** Access-list entry as current Atlas names it. */
  whitelistEntry?: string;
  teamId?: string;
  isGlobalAdmin?: boolean;
  clusterId?: string;
  clusterName?: string;
  replicaSetName?: string;
  shardName?: string;
  hostId?: string;
  hostname?: string;
  port?: number;
  database?: string;
  collection?: string;
  opType?: string;
  invoiceId?: string;
  paymentId?: string;
  maintenanceWindowId?: string;
  metricName?: string;
  currentValue?: { number?: number; units?: string; [key: string]: unknown };
  raw?: Record<string, unknown>;
  diffs?: AtlasEventDiff[];
  links?: AtlasLink[];
  [key: string]: unknown;
}

/** A role held by an API key: exactly one of `orgId` and `groupId`. */
export interface AtlasApiKeyRole {
  orgId?: string;
  groupId?: string;
  roleName?: string;
  [key: string]: unknown;
}

/** An organization's API key. `privateKey` is always masked by the client. */
export interface AtlasApiKey {
  id: string;
  desc?: string;
  publicKey?: string;
  /** Masked: asterisks and at most the last four characters, whatever the server sent. */
  privateKey?: string;
  roles?: AtlasApiKeyRole[];
  links?: AtlasLink[];
  [key: string]: unknown;
}

/** One entry of an API key's access list. */
export interface AtlasAccessListEntry {
  cidrBlock?: string;
  ipAddress?: string | null;
  count?: number;
  created?: string;
  lastUsed?: string;
  lastUsedAddress?: string;
  links?: AtlasLink[];
  [key: string]: unknown;
}

/**
 * An organization's service account (`GET /orgs/{orgId}/serviceAccounts`): its organization roles
 * are plain role names. The client drops `secrets`, so no secret, masked or not, travels further.
 */
export interface AtlasServiceAccount {
  clientId: string;
  name?: string;
  description?: string;
  createdAt?: string;
  roles?: string[];
  [key: string]: unknown;
}

/** One entry of a project's IP access list (`GET /groups/{groupId}/accessList`). */
export interface AtlasProjectAccessListEntry {
  cidrBlock?: string;
  ipAddress?: string | null;
  awsSecurityGroup?: string;
  comment?: string;
  deleteAfterDate?: string;
  groupId?: string;
  links?: AtlasLink[];
  [key: string]: unknown;
}

/** An organization, as `GET /orgs/{orgId}` returns it. */
export interface AtlasOrganization {
  id: string;
  /** Atlas-controlled text: clean and bound it before showing it. */
  name?: string;
  isDeleted?: boolean;
  links?: AtlasLink[];
  [key: string]: unknown;
}

/** A team of an organization, as `GET /orgs/{orgId}/teams/{teamId}` returns it. */
export interface AtlasTeam {
  id: string;
  /** Atlas-controlled text: clean and bound it before showing it. */
  name?: string;
  links?: AtlasLink[];
  [key: string]: unknown;
}

/**
 * A project's alert configuration, as `GET /groups/{groupId}/alertConfigs/{alertConfigId}` returns it:
 * what it alerts on (`eventTypeName`, and for a metric alert `metricThreshold`), whether it is on.
 */
export interface AtlasAlertConfig {
  id: string;
  eventTypeName?: string;
  enabled?: boolean;
  metricThreshold?: {
    metricName?: string;
    operator?: string;
    threshold?: number;
    units?: string;
    [key: string]: unknown;
  };
  threshold?: { operator?: string; threshold?: number; units?: string; [key: string]: unknown };
  links?: AtlasLink[];
  [key: string]: unknown;
}

/** A project, as the org projects list (`/orgs/{orgId}/groups`) and `GET /groups/{groupId}` return it. */
export interface AtlasProject {
  id: string;
  name?: string;
  orgId?: string;
  created?: string;
  links?: AtlasLink[];
  [key: string]: unknown;
}

/**
 * What kind of deployment a cluster is, which decides whether it keeps database access history:
 * `dedicated` (M10 and up on AWS, Azure or GCP) does; `shared` (M0, M2, M5: `TENANT`), `flex`,
 * `serverless` and `self-managed` (an Ops Manager cluster) do not. `unknown`: Atlas described it in a
 * way the client does not recognise; its access history is read, and Atlas says if there is none.
 */
export type AtlasClusterTier = 'dedicated' | 'shared' | 'flex' | 'serverless' | 'self-managed' | 'unknown';

/** A cluster of a project (`GET /groups/{groupId}/clusters`), as far as access history needs it. */
export interface AtlasCluster {
  /** Its name: what `dbAccessHistory/clusters/{clusterName}` takes. */
  name: string;
  tier: AtlasClusterTier;
  /** Whether its database access history can be read: every tier but shared, flex, serverless and self-managed. */
  accessHistory: boolean;
  /** `AWS`, `AZURE`, `GCP`, `TENANT`, `FLEX`... as Atlas wrote it, when it did. */
  providerName?: string;
  /** `M10`, `M0`, `FLEX`... as Atlas wrote it, when it did. */
  instanceSize?: string;
}

/**
 * The `source` of the events this tool builds from the lines of a cluster's database access history
 * (`DB_AUTH_*`); Atlas events have none.
 */
export const ACCESS_HISTORY_SOURCE = 'access-history';

/**
 * One authentication attempt against a cluster (`MongoDBAccessLogs`): every field Atlas documents,
 * checked, and `timestampMs`, the client's reading of `timestamp`.
 */
export interface AtlasAccessLogLine {
  authResult: boolean;
  authSource: string;
  /** Why the attempt failed; null for a success (and for a failure Atlas gave no reason for). */
  failureReason: string | null;
  groupId?: string;
  hostname: string;
  ipAddress: string;
  /** The mongod log line of the attempt, as Atlas sent it. */
  logLine: string;
  /** As Atlas sent it. */
  timestamp: string;
  /** `timestamp` in milliseconds since the epoch. */
  timestampMs: number;
  username: string;
}

/** One read of a cluster's access history: the lines that could be read, and how many could not. */
export interface AtlasAccessHistory {
  /** Newest first as Atlas sends them (sort them yourself: no order is promised). */
  lines: AtlasAccessLogLine[];
  /** Lines left out because they were not objects, or lacked a field or had one of the wrong type. */
  dropped: number;
}

/** One event type of `GET /eventTypes` (Atlas v2): whether Atlas can raise an alert for it. */
export interface AtlasEventTypeDetails {
  eventType: string;
  alertable: boolean;
  description?: string;
}

/** A JSON object of the API read as it is: alert configurations and integrations the setup commands compare. */
export type AtlasResource = Record<string, unknown>;
