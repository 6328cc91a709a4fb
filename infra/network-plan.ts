import { InfraError } from './errors.js';
import type { NetworkSettings } from './network-settings.js';

/** A subnet of an existing VPC, as the settings name it. */
export interface ExistingSubnet {
  id: string;
  availabilityZone: string;
  routeTableId?: string | undefined;
}

/** What every VPC mode shares. */
interface VpcPlanBase {
  /** Reach Secrets Manager and SNS through interface endpoints in the function's subnets. */
  interfaceEndpoints: boolean;
  /** The TCP ports the poller's security group may connect out to: 443, and Ops Manager's port. */
  egressPorts: readonly number[];
}

/** The stack creates the VPC, its NAT gateways and their Elastic IPs. */
export interface CreateVpcPlan extends VpcPlanBase {
  mode: 'create-vpc';
  natGateways: 1 | 2;
}

/** The poller runs in subnets of a VPC the user names. */
export interface ExistingVpcPlan extends VpcPlanBase {
  mode: 'existing-vpc';
  vpcId: string;
  subnets: readonly ExistingSubnet[];
  subnetType: 'private-with-egress' | 'private-isolated';
  /** The user's security groups; the stack creates one when undefined. */
  securityGroupIds: readonly string[] | undefined;
  /** Add a DynamoDB gateway endpoint to the subnets' route tables. */
  dynamoDbGatewayEndpoint: boolean;
}

/** Where the poller runs, with every default filled in, for the constructs to build. */
export type NetworkPlan = { mode: 'public' } | CreateVpcPlan | ExistingVpcPlan;

export interface ResolveNetworkPlanOptions {
  /** The validated `network` settings. */
  network: NetworkSettings;
  /** The base URL of every connection polled (see `deployedConnections`): their ports are opened. */
  atlasBaseUrls: readonly string[];
}

/**
 * Turns validated `network` settings into the plan the stack builds, one shape per mode, with the
 * defaults filled in.
 *
 * @throws {InfraError} when existing-vpc settings lack the VPC or its subnets, which validation rules out.
 * @example
 * ```ts
 * resolveNetworkPlan({ network: { mode: 'create-vpc' }, atlasBaseUrls: ['https://cloud.mongodb.com'] });
 * // { mode: 'create-vpc', natGateways: 1, interfaceEndpoints: false, egressPorts: [443] }
 * ```
 */
export function resolveNetworkPlan({ network, atlasBaseUrls }: ResolveNetworkPlanOptions): NetworkPlan {
  if (network.mode === 'public') return { mode: 'public' };
  const base: VpcPlanBase = {
    interfaceEndpoints: network.interfaceEndpoints ?? false,
    egressPorts: [...new Set([443, ...atlasBaseUrls.flatMap(egressPortsFor)])],
  };
  if (network.mode === 'create-vpc') {
    return { mode: 'create-vpc', ...base, natGateways: network.natGateways === 2 ? 2 : 1 };
  }
  if (network.vpcId === undefined || network.subnets === undefined) {
    throw new InfraError(
      'network.mode existing-vpc needs network.vpcId and network.subnets: validate the settings with parseDeployConfig first',
    );
  }
  return {
    mode: 'existing-vpc',
    ...base,
    vpcId: network.vpcId,
    subnets: network.subnets,
    subnetType: network.subnetType === 'private-isolated' ? 'private-isolated' : 'private-with-egress',
    securityGroupIds: network.securityGroupIds,
    dynamoDbGatewayEndpoint: network.dynamoDbGatewayEndpoint ?? true,
  };
}

/**
 * The TCP ports the poller connects out to: 443 for Atlas and the AWS APIs, and the port of the Atlas
 * base URL when it names another one (an Ops Manager on 8443, or 8080 over plain HTTP).
 *
 * @example
 * ```ts
 * egressPortsFor('https://opsmanager.example.com:8443'); // [443, 8443]
 * egressPortsFor('http://opsmanager.internal'); // [443, 80]
 * ```
 */
export function egressPortsFor(baseUrl: string): number[] {
  const url = new URL(baseUrl);
  const port = url.port === '' ? (url.protocol === 'http:' ? 80 : 443) : Number(url.port);
  return port === 443 ? [443] : [443, port];
}

/** A setting that is valid but leaves something for the user to provide or accept. */
export interface NetworkWarning {
  id: string;
  message: string;
}

/**
 * What a network plan leaves to the user's own VPC: AWS APIs the isolated subnets cannot reach
 * unless the VPC already has endpoints for them, or a single availability zone.
 *
 * @example
 * ```ts
 * networkWarnings({ mode: 'public' }); // []
 * ```
 */
export function networkWarnings(plan: NetworkPlan): NetworkWarning[] {
  if (plan.mode !== 'existing-vpc') return [];
  const warnings: NetworkWarning[] = [];
  if (plan.subnetType === 'private-isolated' && !plan.interfaceEndpoints) {
    warnings.push({
      id: 'atlas-audit-alerts:isolatedWithoutEndpoints',
      message:
        'network.subnetType is private-isolated and network.interfaceEndpoints is off: the VPC must already have interface endpoints with private DNS for Secrets Manager and SNS, or the poller can neither read its secret nor publish. Set network.interfaceEndpoints: true to create them.',
    });
  }
  if (plan.subnetType === 'private-isolated' && !plan.dynamoDbGatewayEndpoint) {
    warnings.push({
      id: 'atlas-audit-alerts:isolatedWithoutDynamoDb',
      message:
        'network.subnetType is private-isolated and network.dynamoDbGatewayEndpoint is off: the route tables of the subnets must already have a DynamoDB gateway endpoint, or the poller cannot reach its state table.',
    });
  }
  if (new Set(plan.subnets.map((subnet) => subnet.availabilityZone)).size < 2) {
    warnings.push({
      id: 'atlas-audit-alerts:singleAvailabilityZone',
      message:
        'All of network.subnets are in one availability zone: the poller stops when that zone does. Add a subnet in a second zone.',
    });
  }
  return warnings;
}
