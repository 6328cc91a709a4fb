import * as z from 'zod';
import { pollsTopLevelSources } from './deploy-connections.js';

/** Where the poller runs: outside any VPC, in a VPC the stack creates, or in subnets of a VPC you name. */
export const NETWORK_MODES = ['public', 'create-vpc', 'existing-vpc'] as const;
export type NetworkMode = (typeof NETWORK_MODES)[number];

/** The kinds of subnet the poller may run in; both are private (Lambda never gets a public address). */
export const FUNCTION_SUBNET_TYPES = ['private-with-egress', 'private-isolated'] as const;

/** The AWS resource ids the network settings name, each with its prefix and an example. */
const RESOURCE_IDS = {
  vpc: { prefix: 'vpc', what: 'a VPC id', example: 'vpc-0a1b2c3d4e5f67890' },
  subnet: { prefix: 'subnet', what: 'a subnet id', example: 'subnet-0a1b2c3d4e5f67890' },
  securityGroup: { prefix: 'sg', what: 'a security group id', example: 'sg-0a1b2c3d4e5f67890' },
  routeTable: { prefix: 'rtb', what: 'a route table id', example: 'rtb-0a1b2c3d4e5f67890' },
} as const;

const ANY_RESOURCE_ID = /^(vpc|subnet|sg|rtb)-[0-9a-f]{8}(?:[0-9a-f]{9})?$/;

/**
 * An EC2 resource id of one kind (`subnet-` and 8 or 17 hexadecimal digits). An id of another kind in
 * its place (a VPC id where a subnet belongs) is named as such, since that is the usual slip.
 */
function resourceIdSchema(kind: keyof typeof RESOURCE_IDS): z.ZodString {
  const { prefix, what, example } = RESOURCE_IDS[kind];
  const pattern = new RegExp(`^${prefix}-[0-9a-f]{8}(?:[0-9a-f]{9})?$`);
  return z.string().check((context) => {
    const value = context.value;
    if (pattern.test(value)) return;
    const other = ANY_RESOURCE_ID.exec(value)?.[1];
    const otherKind = Object.values(RESOURCE_IDS).find((id) => id.prefix === other);
    context.issues.push({
      code: 'custom',
      input: value,
      message:
        otherKind === undefined
          ? `must be ${what} such as ${example} (the VPC console lists them)`
          : `${JSON.stringify(value)} is ${otherKind.what}, not ${what}: name ${what} such as ${example}`,
    });
  });
}

const subnetSchema = z.strictObject({
  /** The subnet's id. */
  id: resourceIdSchema('subnet'),
  /** Its availability zone, such as eu-west-1a (the VPC console shows it next to the subnet). */
  availabilityZone: z
    .string()
    .regex(/^[a-z]{2}(-[a-z]+)+-\d[a-z]$/, 'must be an availability zone name such as eu-west-1a'),
  /** Its route table; needed when the stack adds the DynamoDB gateway endpoint to it. */
  routeTableId: resourceIdSchema('routeTable').optional(),
});

const functionSubnetTypeSchema = z.string().check((context) => {
  if ((FUNCTION_SUBNET_TYPES as readonly string[]).includes(context.value)) return;
  context.issues.push({
    code: 'custom',
    input: context.value,
    message:
      context.value === 'public'
        ? 'cannot be public: Lambda gives a function no public address, so from a public subnet the poller reaches nothing outside the VPC. Name private subnets whose route to the internet goes through a NAT gateway (private-with-egress)'
        : `${JSON.stringify(context.value)} is not allowed here: use one of "private-with-egress", "private-isolated"`,
  });
});

/**
 * Where the poller runs, in the deploy configuration's `network` block. Settings that belong to one
 * mode have no default here, so a setting given for another mode can be told from an absent one;
 * {@link resolveNetworkPlan} fills in the defaults once the settings are valid.
 */
export const networkSettingsSchema = z.strictObject({
  /** `public` (no VPC), `create-vpc` or `existing-vpc`. */
  mode: z.enum(NETWORK_MODES).default('public'),
  /**
   * VPC modes: reach Secrets Manager and SNS through interface endpoints the stack creates in the
   * function's subnets, rather than through the NAT gateway. Off by default.
   */
  interfaceEndpoints: z.boolean().optional(),
  /** create-vpc: one NAT gateway (the default) or two, one per availability zone. */
  natGateways: z
    .number()
    .int()
    .refine((count) => count === 1 || count === 2, {
      message: 'must be 1 (one egress address) or 2 (one per availability zone, two addresses)',
    })
    .optional(),
  /** existing-vpc: the VPC's id. */
  vpcId: resourceIdSchema('vpc').optional(),
  /** existing-vpc: the private subnets the function runs in, two or more zones for availability. */
  subnets: z.array(subnetSchema).min(1, 'must name at least one subnet').max(16).optional(),
  /** existing-vpc: what the subnets are; `private-isolated` has no route to the internet. */
  subnetType: functionSubnetTypeSchema.optional(),
  /** existing-vpc: security groups for the function; the stack creates an egress-only one when absent. */
  securityGroupIds: z.array(resourceIdSchema('securityGroup')).min(1).max(5).optional(),
  /**
   * existing-vpc: add a DynamoDB gateway endpoint to the subnets' route tables (the default). Turn it
   * off when the VPC has one there already: a route table takes one per service.
   */
  dynamoDbGatewayEndpoint: z.boolean().optional(),
});

export type NetworkSettings = z.output<typeof networkSettingsSchema>;

/** The settings of the `network` block that only some modes read. */
const MODE_SETTINGS: Record<Exclude<keyof NetworkSettings, 'mode'>, readonly NetworkMode[]> = {
  interfaceEndpoints: ['create-vpc', 'existing-vpc'],
  natGateways: ['create-vpc'],
  vpcId: ['existing-vpc'],
  subnets: ['existing-vpc'],
  subnetType: ['existing-vpc'],
  securityGroupIds: ['existing-vpc'],
  dynamoDbGatewayEndpoint: ['existing-vpc'],
};

/** A rule across settings, run once the settings named in `inputs` are valid (see `config.ts`). */
export interface SettingsCheck<Config> {
  /** The settings it reads, as path prefixes. */
  inputs: readonly (readonly string[])[];
  check(config: Config, fail: (path: (string | number)[], message: string) => void): void;
}

/** The settings of the whole configuration the network checks read. */
export interface NetworkCheckContext {
  network: NetworkSettings;
  atlas: { baseUrl: string };
  sources: { orgIds: readonly string[]; projectIds: readonly string[] };
  connections: readonly { baseUrl: string }[];
  env?: { region?: string | undefined } | undefined;
}

/** Hosts of MongoDB's cloud: the Atlas Administration API, which no private route reaches. */
const MONGODB_CLOUD_HOST = /(^|\.)mongodb\.com$/;
const AVAILABILITY_ZONE = /^([a-z]{2}(?:-[a-z]+)+-\d)[a-z]$/;

/**
 * The subnets as given, for checks that run while other subnet fields may still be wrong: only the
 * entries that are mappings, with their index.
 */
function givenSubnets(
  network: NetworkSettings,
): { index: number; subnet: Partial<Record<string, unknown>> }[] {
  const subnets: unknown = network.subnets;
  if (!Array.isArray(subnets)) return [];
  return subnets.flatMap((subnet: unknown, index) =>
    typeof subnet === 'object' && subnet !== null && !Array.isArray(subnet)
      ? [{ index, subnet: subnet as Partial<Record<string, unknown>> }]
      : [],
  );
}

function listedTwice(
  values: unknown,
  at: (string | number)[],
  fail: (path: (string | number)[], message: string) => void,
  pick: (value: unknown) => unknown = (value) => value,
  suffix: (string | number)[] = [],
): void {
  if (!Array.isArray(values)) return;
  const seen = new Set<string>();
  values.forEach((value: unknown, index) => {
    const key = pick(value);
    if (typeof key !== 'string') return;
    if (seen.has(key)) fail([...at, index, ...suffix], `${key} is listed twice`);
    seen.add(key);
  });
}

function hostOf(url: string): string {
  try {
    return new URL(url).hostname.toLowerCase();
  } catch {
    return '';
  }
}

const MODE = ['network', 'mode'];

/**
 * The rules across the `network` settings and the settings they depend on: each setting fits the
 * mode, each mode has what it needs, and the subnets agree with each other and with the region. Each
 * rule reads as little as it can, so one synth lists every wrong network setting at once.
 *
 * @example
 * ```ts
 * parseDeployConfig({ input: { network: { mode: 'public', natGateways: 2 } }, origin: 'test' });
 * // DeployConfigError: network.natGateways: applies only to network.mode create-vpc, not public: …
 * ```
 */
export const NETWORK_CHECKS: readonly SettingsCheck<NetworkCheckContext>[] = [
  {
    inputs: [MODE],
    check({ network }, fail) {
      for (const [key, modes] of Object.entries(MODE_SETTINGS)) {
        if (network[key as keyof typeof MODE_SETTINGS] === undefined || modes.includes(network.mode))
          continue;
        fail(
          ['network', key],
          `applies only to network.mode ${modes.join(' or ')}, not ${network.mode}: remove it or change the mode`,
        );
      }
      if (network.mode !== 'existing-vpc') return;
      if (network.vpcId === undefined) {
        fail(
          ['network', 'vpcId'],
          'is required with network.mode existing-vpc: name the VPC the subnets are in',
        );
      }
      if (network.subnets === undefined) {
        fail(
          ['network', 'subnets'],
          'is required with network.mode existing-vpc: list the private subnets the poller runs in, each with its id, availabilityZone and routeTableId',
        );
      }
    },
  },
  {
    inputs: [MODE],
    check({ network }, fail) {
      if (network.mode !== 'existing-vpc') return;
      listedTwice(
        network.subnets,
        ['network', 'subnets'],
        fail,
        (subnet) => (subnet as { id?: unknown } | null)?.id,
        ['id'],
      );
      listedTwice(network.securityGroupIds, ['network', 'securityGroupIds'], fail);
    },
  },
  {
    inputs: [MODE, ['network', 'dynamoDbGatewayEndpoint']],
    check({ network }, fail) {
      if (network.mode !== 'existing-vpc' || network.dynamoDbGatewayEndpoint === false) return;
      for (const { index, subnet } of givenSubnets(network)) {
        if (subnet.routeTableId !== undefined) continue;
        fail(
          ['network', 'subnets', index, 'routeTableId'],
          'is needed to add the DynamoDB gateway endpoint to the route table of this subnet; or set network.dynamoDbGatewayEndpoint: false if the VPC has one there already',
        );
      }
    },
  },
  {
    inputs: [MODE, ['env']],
    check({ network, env }, fail) {
      if (network.mode !== 'existing-vpc') return;
      const zones = givenSubnets(network).flatMap(({ index, subnet }) => {
        const region =
          typeof subnet.availabilityZone === 'string'
            ? AVAILABILITY_ZONE.exec(subnet.availabilityZone)?.[1]
            : undefined;
        return region === undefined ? [] : [{ index, zone: subnet.availabilityZone as string, region }];
      });
      const expected = env?.region ?? zones[0]?.region;
      const from = env?.region === undefined ? 'the first subnet' : 'env.region';
      for (const { index, zone, region } of zones) {
        if (region === expected) continue;
        fail(
          ['network', 'subnets', index, 'availabilityZone'],
          `${zone} is not in ${expected} (the region of ${from}): the function and its subnets are in one region`,
        );
      }
    },
  },
  {
    inputs: [MODE, ['network', 'subnetType'], ['atlas', 'baseUrl'], ['sources'], ['connections']],
    check(config, fail) {
      const { network } = config;
      if (network.mode !== 'existing-vpc' || network.subnetType !== 'private-isolated') return;
      const baseUrls = [
        ...(pollsTopLevelSources(config) ? [{ setting: 'atlas.baseUrl', url: config.atlas.baseUrl }] : []),
        ...config.connections.map(({ baseUrl }, index) => ({
          setting: `connections[${index}].baseUrl`,
          url: baseUrl,
        })),
      ];
      const internet = baseUrls.find(({ url }) => MONGODB_CLOUD_HOST.test(hostOf(url)));
      if (internet === undefined) return;
      fail(
        ['network', 'subnetType'],
        `cannot be private-isolated with ${internet.setting} ${internet.url}: the Atlas Administration API is on the internet, so the subnets need a route through a NAT gateway (private-with-egress)`,
      );
    },
  },
];
