import ipaddr from 'ipaddr.js';
import * as z from 'zod';

const atlasId = z
  .string()
  .regex(
    /^[0-9a-f]{24}$/,
    'must be a 24-character lower-case hexadecimal id, such as 64b5c9e2f1a3d40012ab3c01',
  );

const isoDateTime = z.iso.datetime({
  offset: true,
  message: 'must be an ISO-8601 date and time, such as 2026-01-31T09:15:00Z',
});

/** A role held by an API key or a service account: on an organization or on a project. */
const roleSchema = z.union([
  z.strictObject({
    orgId: atlasId,
    roleName: z.string().regex(/^ORG_[A-Z_]+$/, 'must be an ORG_* role name'),
  }),
  z.strictObject({
    groupId: atlasId,
    roleName: z.string().regex(/^GROUP_[A-Z_]+$/, 'must be a GROUP_* role name'),
  }),
]);

const accessListEntrySchema = z
  .strictObject({
    cidrBlock: z
      .string()
      .refine((value) => ipaddr.isValidCIDR(value), 'must be a CIDR block such as 203.0.113.0/24')
      .optional(),
    ipAddress: z
      .string()
      .refine((value) => ipaddr.isValid(value), 'must be an IPv4 or IPv6 address')
      .optional(),
    created: isoDateTime.optional(),
  })
  .refine((entry) => entry.cidrBlock !== undefined || entry.ipAddress !== undefined, {
    message: 'needs a cidrBlock or an ipAddress',
  });

/** One entry of a project's IP access list: an address, a CIDR block or an AWS security group. */
const projectAccessListEntrySchema = z
  .strictObject({
    cidrBlock: z
      .string()
      .refine((value) => ipaddr.isValidCIDR(value), 'must be a CIDR block such as 203.0.113.0/24')
      .optional(),
    ipAddress: z
      .string()
      .refine((value) => ipaddr.isValid(value), 'must be an IPv4 or IPv6 address')
      .optional(),
    awsSecurityGroup: z
      .string()
      .regex(/^sg-[0-9a-f]+$/, 'must be a security group id such as sg-0123abcd')
      .optional(),
    comment: z.string().max(80).optional(),
  })
  .refine(
    (entry) =>
      [entry.cidrBlock, entry.ipAddress, entry.awsSecurityGroup].filter((value) => value !== undefined)
        .length === 1,
    { message: 'needs exactly one of cidrBlock, ipAddress and awsSecurityGroup' },
  );

const apiKeySchema = z.strictObject({
  id: atlasId,
  desc: z.string(),
  /** Atlas public keys are 8 lower-case letters; any non-empty string is accepted. */
  publicKey: z.string().min(1),
  /** Throwaway values only: the simulator's data is never real credentials. */
  privateKey: z.string().min(1),
  roles: z.array(roleSchema).min(1, 'an API key needs at least one role'),
  accessList: z.array(accessListEntrySchema).default([]),
});

const serviceAccountSchema = z.strictObject({
  clientId: z.string().min(1),
  /** Throwaway values only: the simulator's data is never real credentials. */
  clientSecret: z.string().min(1),
  name: z.string().min(1),
  description: z.string().optional(),
  /** When the account was created; default: when the simulator starts. */
  createdAt: isoDateTime.optional(),
  roles: z.array(roleSchema).min(1, 'a service account needs at least one role'),
  accessList: z.array(accessListEntrySchema).default([]),
});

const userSchema = z.strictObject({
  id: atlasId,
  username: z.string().min(1),
  firstName: z.string().optional(),
  lastName: z.string().optional(),
});

/**
 * An event as the seed holds it: any Atlas event fields, plus either an absolute `created` or
 * `secondsAgo` (relative to the moment the simulator starts, so seeded events are always recent).
 * `id`, `groupId` and `orgId` are filled in from the scope when absent.
 */
const seedEventSchema = z
  .looseObject({
    eventTypeName: z
      .string()
      .regex(/^[A-Z0-9_]+$/, 'must be an upper-case event type name such as API_KEY_CREATED'),
    id: z.string().min(1).optional(),
    created: isoDateTime.optional(),
    secondsAgo: z.number().min(0).optional(),
    links: z.never({ message: 'is filled in by the simulator: remove it' }).optional(),
  })
  .refine((event) => !(event.created !== undefined && event.secondsAgo !== undefined), {
    message: 'give either created or secondsAgo, not both',
  });

/** A team of an organization (`GET /orgs/{orgId}/teams/{teamId}`). */
const teamSchema = z.strictObject({
  id: atlasId,
  name: z.string().min(1),
});

/**
 * An alert configuration of a project (`GET /groups/{groupId}/alertConfigs/{alertConfigId}`): its id
 * and what it alerts on, plus any other field Atlas returns (`enabled`, `metricThreshold`...), served
 * as written.
 */
const alertConfigSchema = z.looseObject({
  id: atlasId,
  eventTypeName: z.string().regex(/^[A-Z0-9_]+$/, 'must be an upper-case event type name such as HOST_DOWN'),
});

const orgSchema = z.strictObject({
  id: atlasId,
  name: z.string().min(1),
  teams: z.array(teamSchema).default([]),
  events: z.array(seedEventSchema).default([]),
});

/** Cloud providers of dedicated clusters, and the backing providers of shared ones. */
const cloudProvider = z.enum(['AWS', 'AZURE', 'GCP']);

/**
 * `providerSettings` of a cluster (`ClusterProviderSettings` in the OpenAPI document, discriminated by
 * `providerName`): a dedicated tier on AWS, Azure or GCP, a shared tier (`TENANT`: M0, M2, M5), or a
 * Flex cluster (`FLEX`). Shared and Flex clusters have no database access history.
 */
const providerSettingsSchema = z.discriminatedUnion('providerName', [
  z.strictObject({
    providerName: cloudProvider,
    instanceSizeName: z
      .string()
      .regex(/^[MR]\d{2,3}(?:_[A-Z0-9_]+)?$/, 'must be a dedicated tier such as M10, M30 or R40'),
    regionName: z.string().min(1).optional(),
  }),
  z.strictObject({
    providerName: z.literal('TENANT'),
    instanceSizeName: z.enum(['M0', 'M2', 'M5']),
    backingProviderName: cloudProvider,
    regionName: z.string().min(1).optional(),
  }),
  z.strictObject({
    providerName: z.literal('FLEX'),
    instanceSizeName: z.literal('FLEX').default('FLEX'),
    backingProviderName: cloudProvider,
    regionName: z.string().min(1).optional(),
  }),
]);

/**
 * One authentication attempt of a cluster's access history (`MongoDBAccessLogs`), as the seed holds
 * it: `username`, `ipAddress` and `authResult` at least, and either an absolute `timestamp` or
 * `secondsAgo` (relative to the moment the simulator starts). `authSource` defaults to `admin`,
 * `hostname` to one of the cluster's hosts in turn, `failureReason` (failures only) to a wrong
 * password, and `logLine` to the mongod log line of the attempt.
 */
const accessLogSchema = z
  .strictObject({
    username: z.string().min(1),
    ipAddress: z.string().refine((value) => ipaddr.isValid(value), 'must be an IPv4 or IPv6 address'),
    authResult: z.boolean(),
    authSource: z.string().min(1).default('admin'),
    failureReason: z.string().min(1).optional(),
    hostname: z.string().min(1).optional(),
    logLine: z.string().min(1).optional(),
    timestamp: isoDateTime.optional(),
    secondsAgo: z.number().min(0).optional(),
  })
  .refine((line) => !(line.timestamp !== undefined && line.secondsAgo !== undefined), {
    message: 'give either timestamp or secondsAgo, not both',
  })
  .refine((line) => !(line.authResult && line.failureReason !== undefined), {
    message: 'a successful attempt has no failureReason',
    path: ['failureReason'],
  });

/** A cluster name as Atlas allows it (`clusterName` in the OpenAPI document). */
export const CLUSTER_NAME = /^[a-zA-Z0-9][a-zA-Z0-9-]*$/;

/**
 * A cluster of a project (`GET /groups/{groupId}/clusters`): its `name`, `clusterType`,
 * `providerSettings`, optionally its `connectionStrings.standardSrv` (which names its hosts), and for a
 * dedicated cluster the lines of its database access history.
 */
export const clusterSchema = z
  .strictObject({
    name: z
      .string()
      .max(64)
      .regex(CLUSTER_NAME, 'must start with a letter or digit and hold only letters, digits and hyphens'),
    clusterType: z.enum(['REPLICASET', 'SHARDED', 'GEOSHARDED']).default('REPLICASET'),
    providerSettings: providerSettingsSchema,
    connectionStrings: z
      .strictObject({
        standardSrv: z
          .string()
          .regex(
            /^mongodb\+srv:\/\/[a-z0-9-]+\.[a-z0-9-]+(?:\.[a-z0-9-]+)+$/,
            'must be an SRV connection string such as mongodb+srv://cluster0.x7kq2.mongodb.net',
          ),
      })
      .optional(),
    accessLogs: z.array(accessLogSchema).default([]),
  })
  .refine(
    (cluster) =>
      cluster.accessLogs.length === 0 ||
      (cluster.providerSettings.providerName !== 'TENANT' &&
        cluster.providerSettings.providerName !== 'FLEX'),
    {
      message: 'a shared-tier or Flex cluster has no database access history: remove its accessLogs',
      path: ['accessLogs'],
    },
  );

const projectSchema = z.strictObject({
  id: atlasId,
  name: z.string().min(1),
  orgId: atlasId,
  created: isoDateTime.optional(),
  /** What `GET /groups/{groupId}` reports; default: the number of `clusters`. */
  clusterCount: z.number().int().min(0).optional(),
  /** The project's clusters (`GET /groups/{groupId}/clusters`) and their access history. */
  clusters: z.array(clusterSchema).default([]),
  /** The project's IP access list (`GET /groups/{groupId}/accessList`). */
  accessList: z.array(projectAccessListEntrySchema).default([]),
  alertConfigs: z.array(alertConfigSchema).default([]),
  events: z.array(seedEventSchema).default([]),
});

/** What `X-MongoDB-Service-Version` reports. */
const serviceVersionSchema = z.strictObject({
  gitHash: z.string().regex(/^[0-9a-f]{7,40}$/, 'must be 7 to 40 hexadecimal digits'),
  versionString: z.string().min(1),
});

type SeedShape = {
  orgs: Array<{ id: string; events: Array<{ id?: string | undefined }> }>;
  projects: Array<{
    id: string;
    orgId: string;
    clusterCount?: number | undefined;
    clusters: Array<{ name: string }>;
    events: Array<{ id?: string | undefined }>;
  }>;
  users: Array<{ id: string }>;
  apiKeys: Array<{ id: string; publicKey: string; roles: Array<{ orgId?: string; groupId?: string }> }>;
  serviceAccounts: Array<{ clientId: string; roles: Array<{ orgId?: string; groupId?: string }> }>;
};

function checkReferences(seed: SeedShape, ctx: z.RefinementCtx): void {
  const issue = (path: PropertyKey[], message: string): void => {
    ctx.addIssue({ code: 'custom', path, message });
  };
  const duplicates = (
    values: readonly string[],
    path: (index: number) => PropertyKey[],
    what: string,
  ): void => {
    const seen = new Set<string>();
    values.forEach((value, index) => {
      if (seen.has(value)) issue(path(index), `duplicate ${what} ${value}`);
      seen.add(value);
    });
  };
  const orgIds = new Set(seed.orgs.map((org) => org.id));
  const projectIds = new Set(seed.projects.map((project) => project.id));
  duplicates(
    seed.orgs.map((org) => org.id),
    (i) => ['orgs', i, 'id'],
    'organization id',
  );
  duplicates(
    seed.projects.map((project) => project.id),
    (i) => ['projects', i, 'id'],
    'project id',
  );
  duplicates(
    seed.users.map((user) => user.id),
    (i) => ['users', i, 'id'],
    'user id',
  );
  duplicates(
    seed.apiKeys.map((key) => key.id),
    (i) => ['apiKeys', i, 'id'],
    'API key id',
  );
  duplicates(
    seed.apiKeys.map((key) => key.publicKey),
    (i) => ['apiKeys', i, 'publicKey'],
    'public key',
  );
  duplicates(
    seed.serviceAccounts.map((account) => account.clientId),
    (i) => ['serviceAccounts', i, 'clientId'],
    'client id',
  );
  seed.projects.forEach((project, i) => {
    if (!orgIds.has(project.orgId)) {
      issue(['projects', i, 'orgId'], `names organization ${project.orgId}, which is not in orgs`);
    }
    duplicates(
      project.clusters.map((cluster) => cluster.name.toLowerCase()),
      (c) => ['projects', i, 'clusters', c, 'name'],
      'cluster name',
    );
    if (
      project.clusters.length > 0 &&
      project.clusterCount !== undefined &&
      project.clusterCount !== project.clusters.length
    ) {
      issue(
        ['projects', i, 'clusterCount'],
        `is ${project.clusterCount} but the project lists ${project.clusters.length} clusters: leave clusterCount out`,
      );
    }
  });
  const checkRoles = (
    list: 'apiKeys' | 'serviceAccounts',
    i: number,
    roles: SeedShape['apiKeys'][number]['roles'],
  ): void => {
    roles.forEach((role, r) => {
      if (role.orgId !== undefined && !orgIds.has(role.orgId)) {
        issue([list, i, 'roles', r, 'orgId'], `names organization ${role.orgId}, which is not in orgs`);
      }
      if (role.groupId !== undefined && !projectIds.has(role.groupId)) {
        issue([list, i, 'roles', r, 'groupId'], `names project ${role.groupId}, which is not in projects`);
      }
    });
  };
  seed.apiKeys.forEach((key, i) => {
    checkRoles('apiKeys', i, key.roles);
  });
  seed.serviceAccounts.forEach((account, i) => {
    checkRoles('serviceAccounts', i, account.roles);
  });
  for (const [list, scopes] of [
    ['orgs', seed.orgs],
    ['projects', seed.projects],
  ] as const) {
    scopes.forEach((scope, s) => {
      duplicates(
        scope.events.flatMap((event) => (event.id === undefined ? [] : [event.id])),
        (e) => [list, s, 'events', e, 'id'],
        'event id',
      );
    });
  }
}

/**
 * The seed file: organizations, their projects, the people who appear in events, API keys with their
 * roles and access lists, service accounts, and the events each org and project already holds.
 * Unknown keys are errors (a typo must not silently drop data), except inside events, which keep
 * every field as Atlas would return it.
 */
export const seedSchema = z
  .strictObject({
    $schema: z.string().optional(),
    description: z.string().optional(),
    serviceVersion: serviceVersionSchema.optional(),
    orgs: z.array(orgSchema).min(1, 'a seed needs at least one organization'),
    projects: z.array(projectSchema).default([]),
    users: z.array(userSchema).default([]),
    apiKeys: z.array(apiKeySchema).default([]),
    serviceAccounts: z.array(serviceAccountSchema).default([]),
  })
  .superRefine(checkReferences);

/** Seed data as a caller writes it (defaults may be left out). */
export type SeedData = z.input<typeof seedSchema>;
/** Seed data after validation, defaults filled in. */
export type ValidSeed = z.output<typeof seedSchema>;
/** One seeded event, before the simulator resolves its time and id. */
export type SeedEvent = ValidSeed['orgs'][number]['events'][number];
/** A role of an API key or a service account. */
export type SeedRole = ValidSeed['apiKeys'][number]['roles'][number];
/** One access-list entry of an API key or a service account. */
export type SeedAccessListEntry = ValidSeed['apiKeys'][number]['accessList'][number];
/** One cluster of a project, as the seed holds it. */
export type SeedCluster = ValidSeed['projects'][number]['clusters'][number];
/** A cluster as a caller writes it (defaults may be left out). */
export type SeedClusterInput = z.input<typeof clusterSchema>;
/** One line of a cluster's access history, as the seed holds it. */
export type SeedAccessLog = SeedCluster['accessLogs'][number];
/** One entry of a project's IP access list. */
export type SeedProjectAccessListEntry = ValidSeed['projects'][number]['accessList'][number];
