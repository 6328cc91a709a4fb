import { describe, expect, it } from 'vitest';
import { parseDeployConfig } from '../../infra/config.js';
import { problemsOf } from './support/deploy-problems.js';

const VPC_ID = 'vpc-0a1b2c3d4e5f67890';
const SUBNET_A = {
  id: 'subnet-0a1b2c3d4e5f67890',
  availabilityZone: 'eu-west-1a',
  routeTableId: 'rtb-0a1b2c3d',
};
const SUBNET_B = { id: 'subnet-1b2c3d4e', availabilityZone: 'eu-west-1b', routeTableId: 'rtb-1b2c3d4e' };

describe('the network settings', () => {
  it('run the poller outside any VPC by default', () => {
    const config = parseDeployConfig({ input: {}, origin: 'test settings' });

    expect(config.network).toEqual({ mode: 'public' });
  });

  it('accept a created VPC with two NAT gateways and interface endpoints', () => {
    const input = { network: { mode: 'create-vpc', natGateways: 2, interfaceEndpoints: true } };

    const config = parseDeployConfig({ input, origin: 'test settings' });

    expect(config.network).toEqual({ mode: 'create-vpc', natGateways: 2, interfaceEndpoints: true });
  });

  it('accept an existing VPC named by ids, with its own security groups and DynamoDB endpoint', () => {
    const input = {
      env: { region: 'eu-west-1' },
      atlas: { flavor: 'ops-manager', baseUrl: 'https://opsmanager.internal.example.com:8443' },
      network: {
        mode: 'existing-vpc',
        vpcId: VPC_ID,
        subnets: [{ id: SUBNET_A.id, availabilityZone: 'eu-west-1a' }, SUBNET_B],
        subnetType: 'private-isolated',
        securityGroupIds: ['sg-0a1b2c3d4e5f67890'],
        dynamoDbGatewayEndpoint: false,
      },
    };

    const config = parseDeployConfig({ input, origin: 'test settings' });

    expect(config.network).toEqual(input.network);
  });

  it('names an id of the wrong kind as such, and other malformed ids by what they must be', () => {
    const input = {
      network: {
        mode: 'existing-vpc',
        vpcId: SUBNET_A.id,
        subnets: [
          { ...SUBNET_A, id: VPC_ID },
          { ...SUBNET_B, id: 'subnet-12345' },
          { ...SUBNET_B, id: 'subnet-0a1b2c3d4e5f6789z', routeTableId: 'sg-1b2c3d4e' },
        ],
        securityGroupIds: ['default'],
      },
    };

    const problems = problemsOf(input);

    expect(problems).toEqual([
      {
        path: 'network.vpcId',
        message: `"${SUBNET_A.id}" is a subnet id, not a VPC id: name a VPC id such as vpc-0a1b2c3d4e5f67890`,
      },
      {
        path: 'network.subnets[0].id',
        message: `"${VPC_ID}" is a VPC id, not a subnet id: name a subnet id such as subnet-0a1b2c3d4e5f67890`,
      },
      {
        path: 'network.subnets[1].id',
        message: 'must be a subnet id such as subnet-0a1b2c3d4e5f67890 (the VPC console lists them)',
      },
      {
        path: 'network.subnets[2].id',
        message: 'must be a subnet id such as subnet-0a1b2c3d4e5f67890 (the VPC console lists them)',
      },
      {
        path: 'network.subnets[2].routeTableId',
        message: expect.stringContaining('is a security group id, not a route table id'),
      },
      {
        path: 'network.securityGroupIds[0]',
        message: expect.stringContaining('must be a security group id such as sg-0a1b2c3d4e5f67890'),
      },
    ]);
  });

  it('refuse public subnets for the function, saying why', () => {
    const input = {
      network: { mode: 'existing-vpc', vpcId: VPC_ID, subnets: [SUBNET_A], subnetType: 'public' },
    };

    const problems = problemsOf(input);

    expect(problems).toEqual([
      {
        path: 'network.subnetType',
        message: expect.stringMatching(
          /^cannot be public: Lambda gives a function no public address.*private-with-egress/,
        ),
      },
    ]);
  });

  it('refuse settings of another mode, each by its path', () => {
    const problems = problemsOf({
      network: { mode: 'public', natGateways: 1, interfaceEndpoints: true, vpcId: VPC_ID },
    });

    expect(problems).toEqual([
      {
        path: 'network.interfaceEndpoints',
        message:
          'applies only to network.mode create-vpc or existing-vpc, not public: remove it or change the mode',
      },
      {
        path: 'network.natGateways',
        message: 'applies only to network.mode create-vpc, not public: remove it or change the mode',
      },
      {
        path: 'network.vpcId',
        message: 'applies only to network.mode existing-vpc, not public: remove it or change the mode',
      },
    ]);
  });

  it('refuse a created VPC given the ids of an existing one', () => {
    const problems = problemsOf({
      network: {
        mode: 'create-vpc',
        vpcId: VPC_ID,
        subnets: [SUBNET_A],
        securityGroupIds: ['sg-0a1b2c3d'],
        dynamoDbGatewayEndpoint: true,
      },
    });

    expect(problems.map((problem) => problem.path)).toEqual([
      'network.vpcId',
      'network.subnets',
      'network.securityGroupIds',
      'network.dynamoDbGatewayEndpoint',
    ]);
    expect(problems[0]?.message).toContain('not create-vpc');
  });

  it('require the VPC and its subnets for an existing VPC', () => {
    const problems = problemsOf({ network: { mode: 'existing-vpc', natGateways: 2 } });

    expect(problems).toEqual([
      {
        path: 'network.natGateways',
        message: expect.stringContaining('applies only to network.mode create-vpc'),
      },
      {
        path: 'network.vpcId',
        message: expect.stringContaining('is required with network.mode existing-vpc'),
      },
      {
        path: 'network.subnets',
        message: expect.stringContaining('is required with network.mode existing-vpc'),
      },
    ]);
  });

  it('list every wrong network setting at once: malformed values and contradictions together', () => {
    const input = {
      env: { region: 'eu-west-1' },
      network: {
        mode: 'existing-vpc',
        natGateways: 3,
        vpcId: 'vpc-xyz',
        subnets: [
          { id: SUBNET_A.id, availabilityZone: 'eu-west-1a' },
          { ...SUBNET_B, availabilityZone: 'us-east-1b' },
          { ...SUBNET_B, id: 'subnet-nope' },
          SUBNET_A,
        ],
        subnetType: 'public',
        securityGroupIds: ['sg-0a1b2c3d', 'sg-0a1b2c3d'],
      },
    };

    const problems = problemsOf(input);

    expect(problems.map((problem) => problem.path)).toEqual([
      'network.natGateways',
      'network.vpcId',
      'network.subnets[2].id',
      'network.subnetType',
      'network.natGateways',
      'network.subnets[3].id',
      'network.securityGroupIds[1]',
      'network.subnets[0].routeTableId',
      'network.subnets[1].availabilityZone',
    ]);
    expect(problems).toContainEqual({
      path: 'network.subnets[1].availabilityZone',
      message:
        'us-east-1b is not in eu-west-1 (the region of env.region): the function and its subnets are in one region',
    });
    expect(problems).toContainEqual({
      path: 'network.subnets[3].id',
      message: `${SUBNET_A.id} is listed twice`,
    });
  });

  it('compare the subnets with the first one when no region is pinned', () => {
    const problems = problemsOf({
      network: {
        mode: 'existing-vpc',
        vpcId: VPC_ID,
        subnets: [SUBNET_A, { ...SUBNET_B, availabilityZone: 'us-east-1b' }],
      },
    });

    expect(problems).toEqual([
      {
        path: 'network.subnets[1].availabilityZone',
        message: expect.stringContaining('is not in eu-west-1 (the region of the first subnet)'),
      },
    ]);
  });

  it('accept subnets without route tables when the VPC has its own DynamoDB endpoint', () => {
    const input = {
      network: {
        mode: 'existing-vpc',
        vpcId: VPC_ID,
        subnets: [{ id: SUBNET_A.id, availabilityZone: 'eu-west-1a' }],
        dynamoDbGatewayEndpoint: false,
      },
    };

    expect(() => parseDeployConfig({ input, origin: 'test settings' })).not.toThrow();
  });

  it('refuse isolated subnets when the poller reads Atlas in the cloud', () => {
    const problems = problemsOf({
      network: {
        mode: 'existing-vpc',
        vpcId: VPC_ID,
        subnets: [SUBNET_A, SUBNET_B],
        subnetType: 'private-isolated',
      },
    });

    expect(problems).toEqual([
      {
        path: 'network.subnetType',
        message: expect.stringContaining(
          'cannot be private-isolated with atlas.baseUrl https://cloud.mongodb.com: the Atlas Administration API is on the internet',
        ),
      },
    ]);
  });

  it('refuse a third NAT gateway and an unknown mode', () => {
    expect(problemsOf({ network: { mode: 'create-vpc', natGateways: 3 } })).toEqual([
      {
        path: 'network.natGateways',
        message: expect.stringContaining('must be 1 (one egress address) or 2'),
      },
    ]);
    expect(problemsOf({ network: { mode: 'vpc' } })).toEqual([
      {
        path: 'network.mode',
        message: '"vpc" is not allowed here: use one of "public", "create-vpc", "existing-vpc"',
      },
    ]);
  });

  it('report an unknown network setting by its path', () => {
    expect(problemsOf({ network: { mode: 'create-vpc', cidr: '10.0.0.0/16' } })).toEqual([
      { path: 'network.cidr', message: expect.stringContaining('is not a known setting') },
    ]);
  });
});
