import type { Template } from 'aws-cdk-lib/assertions';
import type { TemplateResource } from './template.js';

/** One security group rule as a test compares it: the protocol, ports, peer and description. */
export type SecurityGroupRule = Record<string, unknown>;

function standaloneRules(template: Template, type: string, groupId: string): SecurityGroupRule[] {
  const rules = Object.values(template.findResources(type)) as TemplateResource[];
  return rules
    .filter(
      (rule) =>
        JSON.stringify(rule.Properties.GroupId) === JSON.stringify({ 'Fn::GetAtt': [groupId, 'GroupId'] }),
    )
    .map(({ Properties: { GroupId: _group, ...rule } }) => rule);
}

/**
 * Every inbound rule of the security group `groupId`: those inside the group and those CloudFormation
 * adds to it as separate `AWS::EC2::SecurityGroupIngress` resources.
 *
 * @example
 * ```ts
 * expect(ingressRulesOf(template, sgId)).toEqual([]);
 * ```
 */
export function ingressRulesOf(template: Template, groupId: string): SecurityGroupRule[] {
  const group = template.findResources('AWS::EC2::SecurityGroup')[groupId] as TemplateResource | undefined;
  if (group === undefined) throw new Error(`No security group ${groupId} in the template`);
  return [
    ...((group.Properties.SecurityGroupIngress as SecurityGroupRule[] | undefined) ?? []),
    ...standaloneRules(template, 'AWS::EC2::SecurityGroupIngress', groupId),
  ];
}

/**
 * Every outbound rule of the security group `groupId`, inline and separate.
 *
 * @example
 * ```ts
 * expect(egressRulesOf(template, sgId)).toEqual([expect.objectContaining({ FromPort: 443 })]);
 * ```
 */
export function egressRulesOf(template: Template, groupId: string): SecurityGroupRule[] {
  const group = template.findResources('AWS::EC2::SecurityGroup')[groupId] as TemplateResource | undefined;
  if (group === undefined) throw new Error(`No security group ${groupId} in the template`);
  return [
    ...((group.Properties.SecurityGroupEgress as SecurityGroupRule[] | undefined) ?? []),
    ...standaloneRules(template, 'AWS::EC2::SecurityGroupEgress', groupId),
  ];
}
