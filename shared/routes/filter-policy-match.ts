import type { MessageAttributeValue } from '@aws-sdk/client-sns';
import type { SnsFilterPolicy } from './filter-policy.js';

/** A filter policy this evaluator does not understand: an operator SNS has that routes never write. */
export class UnsupportedFilterPolicyError extends Error {
  readonly code = 'UNSUPPORTED_FILTER_POLICY';

  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'UnsupportedFilterPolicyError';
  }
}

type Attributes = Readonly<Record<string, MessageAttributeValue>>;

/**
 * Whether SNS would deliver a message with these attributes to a subscription with this filter policy
 * (attribute scope). It follows SNS's documented semantics for what route policies use: lists of exact
 * strings (any of them; case-sensitive), `numeric` comparisons, `exists`, `anything-but` and `prefix`
 * on strings, several keys (all must hold) and `$or` (any path). A `String.Array` attribute matches when
 * any of its elements does; an attribute a condition needs but the message lacks fails it, unless the
 * condition is `{"exists": false}`. `undefined` (no policy) takes every message.
 *
 * @throws {UnsupportedFilterPolicyError} for an operator outside that list (suffix, cidr,
 *   equals-ignore-case...), so a test never passes on a policy it does not read.
 * @example
 * ```ts
 * filterPolicyMatches({ severityRank: [{ numeric: ['>=', 4] }] }, { severityRank: { DataType: 'Number', StringValue: '5' } }); // true
 * ```
 */
export function filterPolicyMatches(policy: SnsFilterPolicy | undefined, attributes: Attributes): boolean {
  if (policy === undefined) return true;
  return pathMatches(policy, attributes);
}

function pathMatches(policy: SnsFilterPolicy, attributes: Attributes): boolean {
  for (const [key, rule] of Object.entries(policy)) {
    if (key === '$or' && Array.isArray(rule) && rule.length >= 2) {
      if (!rule.some((path) => pathMatches(path as SnsFilterPolicy, attributes))) return false;
      continue;
    }
    if (!Array.isArray(rule)) {
      throw new UnsupportedFilterPolicyError(
        `filter policy key ${key} holds ${typeof rule}, not a list of conditions: nested (message body) policies are not used by routes`,
      );
    }
    if (!keyMatches(rule, attributes[key])) return false;
  }
  return true;
}

function keyMatches(conditions: readonly unknown[], attribute: MessageAttributeValue | undefined): boolean {
  const values = attributeValues(attribute);
  return conditions.some((condition) => {
    if (isObject(condition) && 'exists' in condition) {
      return (values !== undefined) === (condition.exists === true);
    }
    if (values === undefined) return false;
    return values.some((value) => conditionMatches(condition, value));
  });
}

interface AttributeValue {
  text: string;
  number: number | undefined;
}

function attributeValues(attribute: MessageAttributeValue | undefined): AttributeValue[] | undefined {
  if (attribute?.StringValue === undefined) return undefined;
  const { DataType, StringValue } = attribute;
  if (DataType === 'String.Array') {
    let parsed: unknown;
    try {
      parsed = JSON.parse(StringValue) as unknown;
    } catch {
      return undefined;
    }
    if (!Array.isArray(parsed)) return undefined;
    return parsed.flatMap((element): AttributeValue[] =>
      typeof element === 'string'
        ? [{ text: element, number: undefined }]
        : typeof element === 'number'
          ? [{ text: String(element), number: element }]
          : [],
    );
  }
  if (DataType?.startsWith('Number') === true) {
    const number = Number(StringValue);
    return [{ text: StringValue, number: Number.isFinite(number) ? number : undefined }];
  }
  return [{ text: StringValue, number: undefined }];
}

function conditionMatches(condition: unknown, value: AttributeValue): boolean {
  if (typeof condition === 'string') return value.number === undefined && value.text === condition;
  if (typeof condition === 'number') return value.number === condition;
  if (!isObject(condition)) {
    throw new UnsupportedFilterPolicyError(
      `filter policy condition ${JSON.stringify(condition)} is not supported`,
    );
  }
  const [operator, ...others] = Object.keys(condition);
  if (operator === undefined || others.length > 0) {
    throw new UnsupportedFilterPolicyError(
      `filter policy condition ${JSON.stringify(condition)} must hold exactly one operator`,
    );
  }
  const argument = condition[operator];
  switch (operator) {
    case 'numeric':
      return value.number !== undefined && numericMatches(argument, value.number);
    case 'prefix':
      return typeof argument === 'string' && value.number === undefined && value.text.startsWith(argument);
    case 'anything-but': {
      const excluded = Array.isArray(argument) ? argument : [argument];
      return !excluded.some((item) => conditionMatches(item, value));
    }
    default:
      throw new UnsupportedFilterPolicyError(
        `filter policy operator ${operator} is not supported here (routes write exact values, numeric, exists, prefix and anything-but)`,
      );
  }
}

function numericMatches(argument: unknown, value: number): boolean {
  if (!Array.isArray(argument) || argument.length % 2 !== 0 || argument.length === 0) {
    throw new UnsupportedFilterPolicyError(
      `numeric condition ${JSON.stringify(argument)} is not [operator, number, ...]`,
    );
  }
  for (let index = 0; index < argument.length; index += 2) {
    const operator = argument[index] as unknown;
    const bound = argument[index + 1] as unknown;
    if (typeof bound !== 'number') {
      throw new UnsupportedFilterPolicyError(
        `numeric condition ${JSON.stringify(argument)} compares with a non-number`,
      );
    }
    const holds =
      operator === '='
        ? value === bound
        : operator === '<'
          ? value < bound
          : operator === '<='
            ? value <= bound
            : operator === '>'
              ? value > bound
              : operator === '>='
                ? value >= bound
                : undefined;
    if (holds === undefined) {
      throw new UnsupportedFilterPolicyError(
        `numeric operator ${String(operator)} is not one of =, <, <=, >, >=`,
      );
    }
    if (!holds) return false;
  }
  return true;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
