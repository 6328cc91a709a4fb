import type { App, Stack } from 'aws-cdk-lib';
import { Annotations, Match, type Template } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENI_MANAGEMENT_POLICY } from '../../infra/constructs/poller-function.js';
import { synthesizeDeployment } from './support/deployment.js';
import { acknowledgements, unacknowledgedFindings } from './support/nag.js';
import { egressRulesOf, ingressRulesOf } from './support/security-groups.js';
import { resourceOf, singleLogicalId, type TemplateResource } from './support/template.js';
import { createTestWorkspace, VALID_RULE_FILE } from './support/workspace.js';

/** A synth takes seconds on a quiet machine; the hooks allow for a busy one (a shared CI runner). */
const SYNTH_TIMEOUT_MS = 180_000;

const BASE_SETTINGS = {
  sources: { orgIds: ['5f4e3d2c1b0a998877665544'] },
  alerts: { emails: ['secops@example.com'] },
  operations: { emails: ['platform@example.com'] },
};

const ENI_POLICY_ARN = {
  'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, `:iam::aws:policy/${ENI_MANAGEMENT_POLICY}`]],
};

function idsOf(template: Template, type: string, properties: Record<string, unknown> = {}): string[] {
  return Object.keys(template.findResources(type, { Properties: properties })).sort();
}

function pollerRoleId(template: Template): string {
  return singleLogicalId(template, 'AWS::IAM::Role', {
    Description: 'The atlas-audit-alerts poller',
  });
}

describe('AuditAlertsStack in a VPC it creates, with two NAT gateways, interface endpoints and Ops Manager on 8443', () => {
  const workspace = createTestWorkspace();
  let template: Template;
  let app: App;

  beforeAll(async () => {
    const rules = workspace.write('rules.yaml', VALID_RULE_FILE);
    ({ template, app } = await synthesizeDeployment({
      workspace,
      name: 'create-vpc',
      settings: {
        ...BASE_SETTINGS,
        env: { account: '123456789012', region: 'eu-west-1' },
        atlas: { flavor: 'ops-manager', baseUrl: 'https://opsmanager.example.com:8443' },
        network: { mode: 'create-vpc', natGateways: 2, interfaceEndpoints: true },
        rules: { directories: [rules] },
      },
    }));
  }, SYNTH_TIMEOUT_MS);
  afterAll(() => workspace.remove());

  const publicSubnets = () =>
    idsOf(template, 'AWS::EC2::Subnet', {
      MapPublicIpOnLaunch: false,
      Tags: Match.arrayWith([{ Key: 'aws-cdk:subnet-type', Value: 'Public' }]),
    });
  const privateSubnets = () =>
    idsOf(template, 'AWS::EC2::Subnet', {
      Tags: Match.arrayWith([{ Key: 'aws-cdk:subnet-type', Value: 'Private' }]),
    });
  const pollerGroupId = () =>
    singleLogicalId(template, 'AWS::EC2::SecurityGroup', {
      GroupDescription: Match.stringLikeRegexp('^atlas-audit-alerts poller'),
    });

  it('creates one small VPC over the first two zones of the region, with no lookup at synth', () => {
    expect(app.synth().manifest.missing).toBeUndefined();
    template.resourceCountIs('AWS::EC2::VPC', 1);
    template.hasResourceProperties('AWS::EC2::VPC', {
      CidrBlock: '10.0.0.0/24',
      EnableDnsHostnames: true,
      EnableDnsSupport: true,
    });
    template.resourceCountIs('AWS::EC2::Subnet', 4);
    expect(publicSubnets()).toHaveLength(2);
    expect(privateSubnets()).toHaveLength(2);
    const zones = [...publicSubnets(), ...privateSubnets()].map(
      (id) =>
        (template.findResources('AWS::EC2::Subnet')[id] as TemplateResource).Properties.AvailabilityZone,
    );
    expect(zones).toEqual(
      expect.arrayContaining([
        { 'Fn::Select': [0, { 'Fn::GetAZs': '' }] },
        { 'Fn::Select': [1, { 'Fn::GetAZs': '' }] },
      ]),
    );
  });

  it('puts one NAT gateway on an Elastic IP the stack owns in each public subnet, and routes each private subnet through one', () => {
    const addresses = idsOf(template, 'AWS::EC2::EIP', { Domain: 'vpc' });
    const gateways = Object.values(template.findResources('AWS::EC2::NatGateway')) as TemplateResource[];

    expect(addresses).toHaveLength(2);
    expect(
      gateways
        .map((gateway) => gateway.Properties.AllocationId)
        .sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b))),
    ).toEqual(addresses.map((id) => ({ 'Fn::GetAtt': [id, 'AllocationId'] })));
    expect(gateways.map((gateway) => gateway.Properties.SubnetId.Ref).sort()).toEqual(publicSubnets());
    const natRoutes = Object.values(
      template.findResources('AWS::EC2::Route', { Properties: { NatGatewayId: Match.anyValue() } }),
    ) as TemplateResource[];
    expect(natRoutes).toHaveLength(2);
    expect(new Set(natRoutes.map((route) => JSON.stringify(route.Properties.NatGatewayId))).size).toBe(2);
    for (const route of natRoutes) expect(route.Properties.DestinationCidrBlock).toBe('0.0.0.0/0');
  });

  it('prints both Elastic IPs as the egress addresses', () => {
    const addresses = idsOf(template, 'AWS::EC2::EIP');

    template.hasOutput('EgressIpAddresses', {
      Value: { 'Fn::Join': [',', addresses.map((id) => ({ 'Fn::GetAtt': [id, 'PublicIp'] }))] },
    });
  });

  it('keeps flow logs of all traffic in a log group with the poller log retention', () => {
    const vpcId = singleLogicalId(template, 'AWS::EC2::VPC', {});
    const flowLog = resourceOf(template, 'AWS::EC2::FlowLog');

    expect(flowLog.Properties).toMatchObject({
      ResourceId: { Ref: vpcId },
      ResourceType: 'VPC',
      TrafficType: 'ALL',
      LogDestinationType: 'cloud-watch-logs',
    });
    const groupId = flowLog.Properties.LogGroupName.Ref as string;
    expect(template.findResources('AWS::Logs::LogGroup')[groupId]).toMatchObject({
      Properties: { RetentionInDays: 30 },
    });
  });

  it('reaches DynamoDB through a gateway endpoint on the private route tables', () => {
    const endpoint = resourceOf(template, 'AWS::EC2::VPCEndpoint', { VpcEndpointType: 'Gateway' });
    const privateRouteTables = privateSubnets().map(
      (subnetId) =>
        (
          Object.values(
            template.findResources('AWS::EC2::SubnetRouteTableAssociation', {
              Properties: { SubnetId: { Ref: subnetId } },
            }),
          )[0] as TemplateResource
        ).Properties.RouteTableId,
    );

    expect(endpoint.Properties.ServiceName).toEqual({
      'Fn::Join': ['', ['com.amazonaws.', { Ref: 'AWS::Region' }, '.dynamodb']],
    });
    expect(endpoint.Properties.RouteTableIds).toEqual(expect.arrayContaining(privateRouteTables));
    expect(endpoint.Properties.RouteTableIds).toHaveLength(2);
  });

  it('reaches Secrets Manager and SNS through interface endpoints with private DNS in the private subnets', () => {
    const endpointGroupId = singleLogicalId(template, 'AWS::EC2::SecurityGroup', {
      GroupDescription: Match.stringLikeRegexp('endpoints'),
    });

    for (const service of ['secretsmanager', 'sns']) {
      const endpoint = resourceOf(template, 'AWS::EC2::VPCEndpoint', {
        ServiceName: `com.amazonaws.eu-west-1.${service}`,
      });
      expect(endpoint.Properties).toMatchObject({
        VpcEndpointType: 'Interface',
        PrivateDnsEnabled: true,
        SecurityGroupIds: [{ 'Fn::GetAtt': [endpointGroupId, 'GroupId'] }],
      });
      expect(endpoint.Properties.SubnetIds.map((subnet: { Ref: string }) => subnet.Ref).sort()).toEqual(
        privateSubnets(),
      );
    }
  });

  it("lets the poller out to HTTPS and Ops Manager's port only, and nothing in", () => {
    expect(egressRulesOf(template, pollerGroupId())).toEqual([
      { CidrIp: '0.0.0.0/0', IpProtocol: 'tcp', FromPort: 443, ToPort: 443, Description: expect.any(String) },
      {
        CidrIp: '0.0.0.0/0',
        IpProtocol: 'tcp',
        FromPort: 8443,
        ToPort: 8443,
        Description: expect.any(String),
      },
    ]);
    expect(ingressRulesOf(template, pollerGroupId())).toEqual([]);
  });

  it('lets the endpoints take HTTPS from the poller alone and send nothing out', () => {
    const endpointGroupId = singleLogicalId(template, 'AWS::EC2::SecurityGroup', {
      GroupDescription: Match.stringLikeRegexp('endpoints'),
    });

    expect(ingressRulesOf(template, endpointGroupId)).toEqual([
      {
        IpProtocol: 'tcp',
        FromPort: 443,
        ToPort: 443,
        SourceSecurityGroupId: { 'Fn::GetAtt': [pollerGroupId(), 'GroupId'] },
        Description: expect.any(String),
      },
    ]);
    expect(egressRulesOf(template, endpointGroupId)).toEqual([
      expect.objectContaining({ CidrIp: '255.255.255.255/32', Description: 'Disallow all traffic' }),
    ]);
  });

  it('runs the function in the private subnets with the poller security group', () => {
    const fn = resourceOf(template, 'AWS::Lambda::Function', {
      Description: Match.stringLikeRegexp('Polls the MongoDB Atlas'),
    });

    expect(fn.Properties.VpcConfig.SecurityGroupIds).toEqual([
      { 'Fn::GetAtt': [pollerGroupId(), 'GroupId'] },
    ]);
    expect(fn.Properties.VpcConfig.SubnetIds.map((subnet: { Ref: string }) => subnet.Ref).sort()).toEqual(
      privateSubnets(),
    );
  });

  it("gives the poller's role the managed ENI permissions and no other managed policy", () => {
    const role = template.findResources('AWS::IAM::Role')[pollerRoleId(template)] as TemplateResource;

    expect(role.Properties.ManagedPolicyArns).toEqual([ENI_POLICY_ARN]);
  });

  it('leaves cdk-nag nothing unacknowledged, and gives a reason for each acknowledgement', () => {
    expect(unacknowledgedFindings(app)).toEqual([]);
    const ours = acknowledgements(app).filter(({ rule }) => rule.includes('AwsSolutions-'));
    expect(ours.map(({ rule }) => rule)).toContainEqual(
      expect.stringContaining(
        `AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/${ENI_MANAGEMENT_POLICY}]`,
      ),
    );
    for (const { reason } of ours) expect(reason.length).toBeGreaterThan(40);
  });
});

describe('AuditAlertsStack in an existing VPC with its own security groups and DynamoDB endpoint', () => {
  const workspace = createTestWorkspace();
  let template: Template;
  let app: App;
  let stack: Stack;

  beforeAll(async () => {
    const rules = workspace.write('rules.yaml', VALID_RULE_FILE);
    ({ template, app, stack } = await synthesizeDeployment({
      workspace,
      name: 'existing-vpc',
      settings: {
        ...BASE_SETTINGS,
        env: { account: '123456789012', region: 'eu-west-1' },
        network: {
          mode: 'existing-vpc',
          vpcId: 'vpc-0a1b2c3d4e5f67890',
          subnets: [{ id: 'subnet-0a1b2c3d4e5f67890', availabilityZone: 'eu-west-1a' }],
          securityGroupIds: ['sg-0a1b2c3d4e5f67890', 'sg-1a1b2c3d4e5f67890'],
          dynamoDbGatewayEndpoint: false,
        },
        rules: { directories: [rules] },
      },
    }));
  }, SYNTH_TIMEOUT_MS);
  afterAll(() => workspace.remove());

  it('creates no network resource: no VPC, subnet, NAT gateway, address, endpoint, security group or flow log', () => {
    for (const type of [
      'AWS::EC2::VPC',
      'AWS::EC2::Subnet',
      'AWS::EC2::NatGateway',
      'AWS::EC2::EIP',
      'AWS::EC2::VPCEndpoint',
      'AWS::EC2::SecurityGroup',
      'AWS::EC2::FlowLog',
    ]) {
      template.resourceCountIs(type, 0);
    }
  });

  it('runs the function in the named subnet with the named security groups, without any lookup', () => {
    const fn = resourceOf(template, 'AWS::Lambda::Function');

    expect(fn.Properties.VpcConfig).toEqual({
      SubnetIds: ['subnet-0a1b2c3d4e5f67890'],
      SecurityGroupIds: ['sg-0a1b2c3d4e5f67890', 'sg-1a1b2c3d4e5f67890'],
    });
    expect(app.synth().manifest.missing).toBeUndefined();
  });

  it("gives the poller's role the managed ENI permissions", () => {
    const role = template.findResources('AWS::IAM::Role')[pollerRoleId(template)] as TemplateResource;

    expect(role.Properties.ManagedPolicyArns).toEqual([ENI_POLICY_ARN]);
  });

  it("prints no egress address: the VPC's own NAT decides it", () => {
    expect(Object.keys(template.findOutputs('*'))).not.toContain('EgressIpAddresses');
  });

  it('warns that a single availability zone stops the poller with that zone', () => {
    Annotations.fromStack(stack).hasWarning(
      '/AtlasAuditAlerts/Default',
      Match.stringLikeRegexp('one availability zone'),
    );
  });

  it('leaves cdk-nag nothing unacknowledged', () => {
    expect(unacknowledgedFindings(app)).toEqual([]);
  });
});
