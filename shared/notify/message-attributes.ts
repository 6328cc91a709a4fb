import type { MessageAttributeValue } from '@aws-sdk/client-sns';
import { cleanLine, truncateText } from '../text-cleaning.js';
import { type Alert, severityRank } from './alert.js';

/**
 * The SNS message attributes of an alert, which subscription filter policies (and so routes) match on:
 *
 * | name | type | value |
 * |---|---|---|
 * | `severity` | String | `info`, `low`, `medium`, `high` or `critical` |
 * | `severityRank` | Number | 1 (info) to 5 (critical): `{"severityRank": [{"numeric": [">=", 4]}]}` |
 * | `ruleId` | String | the rule's id |
 * | `eventTypeName` | String | the type of the alert's first event |
 * | `orgId` | String | the organization of the alert's first event, or the one Atlas says holds its project |
 * | `groupId` | String | the project of the alert's first event |
 * | `orgName` | String | the organization's name, as the alert shows it |
 * | `groupName` | String | the project's name, as the alert shows it |
 * | `tags` | String.Array | the rule's tags: `{"tags": ["data-explorer"]}` holds when any tag is one of those |
 * | `connection` | String | the connection the alert's event was read through: `default` for the top-level settings |
 *
 * Each but `connection` is left out when the alert has no such value: SNS rejects empty attribute
 * values. Ten, the most SNS carries.
 */

/**
 * The connection of the top-level settings (the poller's `DEFAULT_CONNECTION`, spelt here so that
 * delivery does not depend on polling): an alert that names none came through it.
 */
const DEFAULT_CONNECTION_NAME = 'default';

/** SNS carries at most 10 attributes to every kind of subscription. */
export const MAX_MESSAGE_ATTRIBUTES = 10;
/** This project's cap on attribute string values: filter policies match them whole. */
export const MAX_ATTRIBUTE_VALUE_LENGTH = 256;

export type MessageAttributes = Record<string, MessageAttributeValue>;

/**
 * Builds the message attributes of an alert. Event values are cleaned (one line, no control characters)
 * and cut to {@link MAX_ATTRIBUTE_VALUE_LENGTH}; a value with nothing left is left out. Never throws.
 *
 * @example
 * ```ts
 * buildMessageAttributes(alert).severityRank; // { DataType: 'Number', StringValue: '5' }
 * ```
 */
export function buildMessageAttributes(
  alert: Pick<Alert, 'severity' | 'ruleId' | 'events'> & Partial<Pick<Alert, 'tags' | 'context'>>,
): MessageAttributes {
  const attributes: MessageAttributes = {
    severity: { DataType: 'String', StringValue: alert.severity },
    severityRank: { DataType: 'Number', StringValue: String(severityRank(alert.severity)) },
  };
  const first: Record<string, unknown> = alert.events[0] ?? {};
  const context = alert.context;
  const values: ReadonlyArray<readonly [string, unknown]> = [
    ['ruleId', alert.ruleId],
    ['eventTypeName', first.eventTypeName],
    ['orgId', nonBlank(first.orgId) ?? context?.orgId],
    ['groupId', first.groupId],
    ['orgName', context?.orgName],
    ['groupName', context?.projectName],
    ['connection', context?.connection ?? DEFAULT_CONNECTION_NAME],
  ];
  for (const [name, raw] of values) {
    const value = attributeText(raw);
    if (value !== undefined) attributes[name] = { DataType: 'String', StringValue: value };
  }
  const tags = tagsValue(alert.tags ?? []);
  if (tags !== undefined) attributes.tags = { DataType: 'String.Array', StringValue: tags };
  return attributes;
}

function nonBlank(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value : undefined;
}

/** A value as an attribute carries it: one clean line, cut to the cap; `undefined` when nothing is left. */
function attributeText(raw: unknown): string | undefined {
  if (typeof raw !== 'string') return undefined;
  const value = truncateText(
    cleanLine(raw)
      .replace(/[\uFFFE\uFFFF]/g, '')
      .trim(),
    MAX_ATTRIBUTE_VALUE_LENGTH,
    '...',
  );
  return value === '' ? undefined : value;
}

/**
 * The tags as a JSON array within the value cap: whole tags only, in the rule's order, the ones that
 * no longer fit left out (a filter policy matches a tag whole, so a cut one would match nothing).
 */
function tagsValue(tags: readonly string[]): string | undefined {
  const kept: string[] = [];
  for (const tag of tags) {
    const value = attributeText(tag);
    if (value === undefined || kept.includes(value)) continue;
    if (JSON.stringify([...kept, value]).length > MAX_ATTRIBUTE_VALUE_LENGTH) continue;
    kept.push(value);
  }
  return kept.length === 0 ? undefined : JSON.stringify(kept);
}
