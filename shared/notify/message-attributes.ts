import type { MessageAttributeValue } from '@aws-sdk/client-sns';
import { cleanLine, truncateText } from '../text-cleaning.js';
import { type Alert, severityRank } from './alert.js';

/**
 * The SNS message attributes of an alert, which subscription filter policies match on:
 *
 * | name | type | value |
 * |---|---|---|
 * | `severity` | String | `info`, `low`, `medium`, `high` or `critical` |
 * | `severityRank` | Number | 1 (info) to 5 (critical): `{"severityRank": [{"numeric": [">=", 4]}]}` |
 * | `ruleId` | String | the rule's id |
 * | `eventTypeName` | String | the type of the alert's first event |
 * | `orgId` | String | the organization of the alert's first event |
 * | `groupId` | String | the project of the alert's first event |
 *
 * The last three are left out when the event has no such value: SNS rejects empty attribute values.
 */

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
  alert: Pick<Alert, 'severity' | 'ruleId' | 'events'>,
): MessageAttributes {
  const attributes: MessageAttributes = {
    severity: { DataType: 'String', StringValue: alert.severity },
    severityRank: { DataType: 'Number', StringValue: String(severityRank(alert.severity)) },
  };
  const first: Record<string, unknown> = alert.events[0] ?? {};
  const values: ReadonlyArray<readonly [string, unknown]> = [
    ['ruleId', alert.ruleId],
    ['eventTypeName', first.eventTypeName],
    ['orgId', first.orgId],
    ['groupId', first.groupId],
  ];
  for (const [name, raw] of values) {
    if (typeof raw !== 'string') continue;
    const value = truncateText(
      cleanLine(raw)
        .replace(/[\uFFFE\uFFFF]/g, '')
        .trim(),
      MAX_ATTRIBUTE_VALUE_LENGTH,
      '...',
    );
    if (value !== '') attributes[name] = { DataType: 'String', StringValue: value };
  }
  return attributes;
}
