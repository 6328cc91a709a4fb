import { describe, expect, it } from 'vitest';
import { parseDeployConfig } from '../../infra/config.js';
import { deployedConnections } from '../../infra/deploy-connections.js';
import { egressPortsFor, networkWarnings, resolveNetworkPlan } from '../../infra/network-plan.js';

const SUBNET = { id: 'subnet-0a1b2c3d', availabilityZone: 'eu-west-1a', routeTableId: 'rtb-0a1b2c3d' };

function planFor(input: unknown) {
  const config = parseDeployConfig({ input, origin: 'test settings' });
  return resolveNetworkPlan({
    network: config.network,
    atlasBaseUrls: deployedConnections(config).map((connection) => connection.baseUrl),
  });
}

describe('egressPortsFor', () => {
  it('opens HTTPS alone for Atlas and an Ops Manager on the default port', () => {
    expect(egressPortsFor('https://cloud.mongodb.com')).toEqual([443]);
    expect(egressPortsFor('https://opsmanager.example.com:443')).toEqual([443]);
  });

  it("adds the port the base URL names, or plain HTTP's default", () => {
    expect(egressPortsFor('https://opsmanager.example.com:8443')).toEqual([443, 8443]);
    expect(egressPortsFor('http://opsmanager.example.com:8080')).toEqual([443, 8080]);
    expect(egressPortsFor('http://opsmanager.example.com')).toEqual([443, 80]);
  });
});

describe('resolveNetworkPlan', () => {
  it('fills in one NAT gateway and no interface endpoints for a created VPC', () => {
    expect(planFor({ network: { mode: 'create-vpc' } })).toEqual({
      mode: 'create-vpc',
      natGateways: 1,
      interfaceEndpoints: false,
      egressPorts: [443],
    });
  });

  it('fills in egress subnets, a created security group and the DynamoDB endpoint for an existing VPC', () => {
    const plan = planFor({
      atlas: { flavor: 'ops-manager', baseUrl: 'https://opsmanager.example.com:8443' },
      network: { mode: 'existing-vpc', vpcId: 'vpc-0a1b2c3d', subnets: [SUBNET] },
    });

    expect(plan).toEqual({
      mode: 'existing-vpc',
      vpcId: 'vpc-0a1b2c3d',
      subnets: [SUBNET],
      subnetType: 'private-with-egress',
      securityGroupIds: undefined,
      dynamoDbGatewayEndpoint: true,
      interfaceEndpoints: false,
      egressPorts: [443, 8443],
    });
  });
});

describe('networkWarnings', () => {
  it('has nothing to say about the public and created modes', () => {
    expect(networkWarnings(planFor({}))).toEqual([]);
    expect(networkWarnings(planFor({ network: { mode: 'create-vpc' } }))).toEqual([]);
  });

  it('warns that isolated subnets without endpoints rely on the VPC having them, and about a single zone', () => {
    const plan = planFor({
      atlas: { flavor: 'ops-manager', baseUrl: 'https://opsmanager.internal:8443' },
      network: {
        mode: 'existing-vpc',
        vpcId: 'vpc-0a1b2c3d',
        subnets: [SUBNET, { ...SUBNET, id: 'subnet-1a1b2c3d' }],
        subnetType: 'private-isolated',
        dynamoDbGatewayEndpoint: false,
      },
    });

    expect(networkWarnings(plan).map((warning) => warning.id)).toEqual([
      'atlas-audit-alerts:isolatedWithoutEndpoints',
      'atlas-audit-alerts:isolatedWithoutDynamoDb',
      'atlas-audit-alerts:singleAvailabilityZone',
    ]);
  });

  it('is quiet about subnets in two zones that reach the AWS APIs through endpoints the stack creates', () => {
    const plan = planFor({
      atlas: { flavor: 'ops-manager', baseUrl: 'https://opsmanager.internal:8443' },
      network: {
        mode: 'existing-vpc',
        vpcId: 'vpc-0a1b2c3d',
        subnets: [SUBNET, { ...SUBNET, id: 'subnet-1a1b2c3d', availabilityZone: 'eu-west-1b' }],
        subnetType: 'private-isolated',
        interfaceEndpoints: true,
      },
    });

    expect(networkWarnings(plan)).toEqual([]);
  });
});
