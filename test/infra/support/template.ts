import type { Template } from 'aws-cdk-lib/assertions';

/** A resource of a synthesised template, as JSON. */
export interface TemplateResource {
  Type: string;
  // biome-ignore lint/suspicious/noExplicitAny: template JSON is read by property path in assertions.
  Properties: Record<string, any>;
  DependsOn?: string[];
}

/**
 * The logical id of the one resource of `type` whose properties match `properties`.
 *
 * @throws {Error} when none or more than one matches, naming how many did.
 * @example
 * ```ts
 * const tableId = singleLogicalId(template, 'AWS::DynamoDB::Table', {});
 * ```
 */
export function singleLogicalId(
  template: Template,
  type: string,
  properties: Record<string, unknown>,
): string {
  const found = Object.keys(template.findResources(type, { Properties: properties }));
  if (found.length !== 1 || found[0] === undefined) {
    throw new Error(`Expected one ${type} matching ${JSON.stringify(properties)}, found ${found.length}`);
  }
  return found[0];
}

/**
 * The one resource of `type` (matching `properties` when given).
 *
 * @example
 * ```ts
 * const secret = resourceOf(template, 'AWS::SecretsManager::Secret');
 * ```
 */
export function resourceOf(
  template: Template,
  type: string,
  properties: Record<string, unknown> = {},
): TemplateResource {
  const id = singleLogicalId(template, type, properties);
  return template.findResources(type)[id] as TemplateResource;
}

/**
 * Every statement of the IAM policies attached to the role `roleId`, in order.
 *
 * @example
 * ```ts
 * expect(policyStatementsOf(template, roleId)).toEqual([...]);
 * ```
 */
export function policyStatementsOf(template: Template, roleId: string): unknown[] {
  const policies = Object.values(template.findResources('AWS::IAM::Policy')) as TemplateResource[];
  return policies
    .filter((policy) => JSON.stringify(policy.Properties.Roles) === JSON.stringify([{ Ref: roleId }]))
    .flatMap((policy) => policy.Properties.PolicyDocument.Statement as unknown[]);
}

/**
 * Resolves a string template value (a plain string, or an `Fn::Join` of strings, `Ref`s and
 * `Fn::GetAtt`s) as CloudFormation would at deploy time, asking `lookup` for each reference: the
 * logical id for a `Ref`, `id.Attribute` for an `Fn::GetAtt`.
 *
 * @throws {Error} on an intrinsic it does not know.
 * @example
 * ```ts
 * resolveReferences({ 'Fn::Join': ['', ['a', { Ref: 'T' }]] }, () => 'b'); // 'ab'
 * ```
 */
export function resolveReferences(value: unknown, lookup: (reference: string) => string): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'object' && value !== null) {
    if ('Ref' in value && typeof value.Ref === 'string') return lookup(value.Ref);
    if ('Fn::GetAtt' in value && Array.isArray(value['Fn::GetAtt']))
      return lookup(value['Fn::GetAtt'].join('.'));
    if ('Fn::Join' in value && Array.isArray(value['Fn::Join'])) {
      const [separator, parts] = value['Fn::Join'] as [string, unknown[]];
      return parts.map((part) => resolveReferences(part, lookup)).join(separator);
    }
  }
  throw new Error(`Cannot resolve ${JSON.stringify(value)}`);
}
