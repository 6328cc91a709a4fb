import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCdkApp } from './support/cdk-app.js';
import { egressRulesOf, ingressRulesOf } from './support/security-groups.js';
import { resourceOf, singleLogicalId, type TemplateResource } from './support/template.js';
import { cdkJsonContext, createTestWorkspace } from './support/workspace.js';

interface ExampleSynth {
  status: number | null;
  stderr: string;
  /** The findings of every validation plugin (cdk-nag) and every warning annotation. */
  pluginReports: unknown[];
  template: Template;
}

/**
 * A synth in a child process takes a few seconds on a quiet machine; the hooks allow for a busy one
 * (a shared CI runner), since a timeout here says nothing about the example.
 */
const SYNTH_TIMEOUT_MS = 240_000;

/** Synthesizes an example configuration file offline, as `cdk synth --context config=…` does. */
function synthesizeExample(file: string, outdir: string): ExampleSynth {
  const run = runCdkApp({ ...cdkJsonContext(), config: file }, outdir);
  const report = JSON.parse(readFileSync(join(outdir, 'validation-report.json'), 'utf8')) as {
    pluginReports: unknown[];
  };
  const template = Template.fromJSON(
    JSON.parse(readFileSync(join(outdir, 'AtlasAuditAlerts.template.json'), 'utf8')) as Record<
      string,
      unknown
    >,
  );
  return { ...run, pluginReports: report.pluginReports, template };
}

const pollerGroupId = (template: Template) =>
  singleLogicalId(template, 'AWS::EC2::SecurityGroup', {
    GroupDescription: Match.stringLikeRegexp('^atlas-audit-alerts poller'),
  });

describe('the create-vpc example, synthesized offline', () => {
  const workspace = createTestWorkspace();
  let synth: ExampleSynth;

  beforeAll(() => {
    synth = synthesizeExample('infra/examples/network-create-vpc.yaml', join(workspace.directory, 'create'));
  }, SYNTH_TIMEOUT_MS);
  afterAll(() => workspace.remove());

  it('synthesizes without AWS credentials, with no warning and no cdk-nag finding', () => {
    expect(synth.stderr).toBe('');
    expect(synth.status).toBe(0);
    expect(synth.pluginReports).toEqual([]);
  });

  it('has one NAT gateway on one Elastic IP, which every private subnet routes through and the output prints', () => {
    const { template } = synth;
    const addressId = singleLogicalId(template, 'AWS::EC2::EIP', {});
    const gatewayId = singleLogicalId(template, 'AWS::EC2::NatGateway', {
      AllocationId: { 'Fn::GetAtt': [addressId, 'AllocationId'] },
    });

    template.resourceCountIs('AWS::EC2::Subnet', 4);
    const natRoutes = template.findResources('AWS::EC2::Route', {
      Properties: { NatGatewayId: Match.anyValue() },
    });
    expect(Object.values(natRoutes).map((route) => (route as TemplateResource).Properties)).toEqual([
      expect.objectContaining({ DestinationCidrBlock: '0.0.0.0/0', NatGatewayId: { Ref: gatewayId } }),
      expect.objectContaining({ DestinationCidrBlock: '0.0.0.0/0', NatGatewayId: { Ref: gatewayId } }),
    ]);
    template.hasOutput('EgressIpAddresses', {
      Value: { 'Fn::GetAtt': [addressId, 'PublicIp'] },
    });
  });

  it('has the DynamoDB gateway endpoint and no interface endpoint: Secrets Manager and SNS go through the NAT gateway', () => {
    const { template } = synth;

    template.resourceCountIs('AWS::EC2::VPCEndpoint', 1);
    template.hasResourceProperties('AWS::EC2::VPCEndpoint', { VpcEndpointType: 'Gateway' });
  });

  it('lets the poller out to HTTPS alone, and nothing in', () => {
    const { template } = synth;

    expect(egressRulesOf(template, pollerGroupId(template))).toEqual([
      expect.objectContaining({ CidrIp: '0.0.0.0/0', IpProtocol: 'tcp', FromPort: 443, ToPort: 443 }),
    ]);
    expect(ingressRulesOf(template, pollerGroupId(template))).toEqual([]);
  });
});

describe('the existing-vpc example, synthesized offline', () => {
  const workspace = createTestWorkspace();
  let synth: ExampleSynth;

  beforeAll(() => {
    synth = synthesizeExample(
      'infra/examples/network-existing-vpc.yaml',
      join(workspace.directory, 'existing'),
    );
  }, SYNTH_TIMEOUT_MS);
  afterAll(() => workspace.remove());

  it('synthesizes without AWS credentials or lookups, with no warning and no cdk-nag finding', () => {
    expect(synth.stderr).toBe('');
    expect(synth.status).toBe(0);
    expect(synth.pluginReports).toEqual([]);
  });

  it('creates no VPC, subnet, NAT gateway or address, and prints no egress address', () => {
    const { template } = synth;

    for (const type of ['AWS::EC2::VPC', 'AWS::EC2::Subnet', 'AWS::EC2::NatGateway', 'AWS::EC2::EIP']) {
      template.resourceCountIs(type, 0);
    }
    expect(Object.keys(template.findOutputs('*'))).not.toContain('EgressIpAddresses');
  });

  it('runs the function in the named subnets with a security group that only connects out, to 443 and 8443', () => {
    const { template } = synth;
    const groupId = pollerGroupId(template);
    const fn = resourceOf(template, 'AWS::Lambda::Function');

    expect(fn.Properties.VpcConfig).toEqual({
      SubnetIds: ['subnet-0a1b2c3d4e5f67890', 'subnet-0b1c2d3e4f5a67890'],
      SecurityGroupIds: [{ 'Fn::GetAtt': [groupId, 'GroupId'] }],
    });
    template.hasResourceProperties('AWS::EC2::SecurityGroup', {
      GroupDescription: Match.stringLikeRegexp('^atlas-audit-alerts poller'),
      VpcId: 'vpc-0a1b2c3d4e5f67890',
    });
    expect(egressRulesOf(template, groupId)).toEqual([
      expect.objectContaining({ CidrIp: '0.0.0.0/0', IpProtocol: 'tcp', FromPort: 443, ToPort: 443 }),
      expect.objectContaining({ CidrIp: '0.0.0.0/0', IpProtocol: 'tcp', FromPort: 8443, ToPort: 8443 }),
    ]);
    expect(ingressRulesOf(template, groupId)).toEqual([]);
  });

  it('adds the DynamoDB gateway endpoint to the named route tables and interface endpoints in the named subnets', () => {
    const { template } = synth;

    template.hasResourceProperties('AWS::EC2::VPCEndpoint', {
      VpcEndpointType: 'Gateway',
      VpcId: 'vpc-0a1b2c3d4e5f67890',
      RouteTableIds: ['rtb-0a1b2c3d4e5f67890', 'rtb-0b1c2d3e4f5a67890'],
    });
    for (const service of ['secretsmanager', 'sns']) {
      template.hasResourceProperties('AWS::EC2::VPCEndpoint', {
        VpcEndpointType: 'Interface',
        ServiceName: `com.amazonaws.eu-west-1.${service}`,
        PrivateDnsEnabled: true,
        SubnetIds: ['subnet-0a1b2c3d4e5f67890', 'subnet-0b1c2d3e4f5a67890'],
      });
    }
  });
});
