import type { PolicyViolation } from 'aws-cdk-lib';
import { Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { IConstruct } from 'constructs';

/**
 * Every AwsSolutions finding in the construct tree that is not acknowledged, errors and warnings alike.
 *
 * @example
 * ```ts
 * expect(unacknowledgedFindings(app)).toEqual([]);
 * ```
 */
export function unacknowledgedFindings(scope: IConstruct): { rule: string; paths: string[] }[] {
  const report = new AwsSolutionsChecks().validateScope(scope);
  return report.violations.map((violation: PolicyViolation) => ({
    rule: violation.ruleName,
    paths: violation.violatingResources.map((resource) => resource.constructPath ?? '?'),
  }));
}

/**
 * Every acknowledgement recorded in the construct tree: the rule and the reason given for it.
 *
 * @example
 * ```ts
 * acknowledgements(app); // [{ path: 'Stack/Secret', rule: 'AwsSolutions-SMG4', reason: '…' }]
 * ```
 */
export function acknowledgements(scope: IConstruct): { path: string; rule: string; reason: string }[] {
  return scope.node.findAll().flatMap((construct) =>
    construct.node.metadata
      .filter((entry) => entry.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY)
      .flatMap((entry) =>
        Object.entries(entry.data as Record<string, string>).map(([rule, reason]) => ({
          path: construct.node.path,
          rule,
          reason,
        })),
      ),
  );
}
