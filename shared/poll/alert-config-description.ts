import type { AtlasAlertConfig } from '../atlas/types.js';
import { cleanAtlasName } from '../notify/alert-context.js';
import { eventTypeWords } from '../rules/event-words.js';

const OPERATORS: Readonly<Record<string, string>> = {
  GREATER_THAN: 'above',
  LESS_THAN: 'below',
};

/**
 * What an Atlas alert configuration alerts on, in a few words: the metric and its threshold for a
 * metric alert (`CONNECTIONS above 1500`), else its event type in words (`Host down`). `undefined` when
 * the configuration names neither. The text is Atlas-controlled: cleaned and bounded like a name.
 *
 * @example
 * ```ts
 * describeAlertConfig({ id: 'a1', eventTypeName: 'OUTSIDE_METRIC_THRESHOLD',
 *   metricThreshold: { metricName: 'CONNECTIONS', operator: 'GREATER_THAN', threshold: 1500, units: 'RAW' } });
 * // 'CONNECTIONS above 1500'
 * describeAlertConfig({ id: 'a2', eventTypeName: 'HOST_DOWN' }); // 'Host down'
 * ```
 */
export function describeAlertConfig(config: AtlasAlertConfig): string | undefined {
  const metric = config.metricThreshold;
  const metricName = typeof metric?.metricName === 'string' ? metric.metricName : undefined;
  if (metric !== undefined && metricName !== undefined) {
    const operator = typeof metric.operator === 'string' ? OPERATORS[metric.operator] : undefined;
    const threshold =
      typeof metric.threshold === 'number' && Number.isFinite(metric.threshold)
        ? metric.threshold
        : undefined;
    const units =
      typeof metric.units === 'string' && metric.units !== 'RAW' ? ` ${metric.units.toLowerCase()}` : '';
    const limit =
      operator !== undefined && threshold !== undefined ? ` ${operator} ${threshold}${units}` : '';
    return cleanAtlasName(`${metricName}${limit}`);
  }
  return cleanAtlasName(eventTypeWords(config.eventTypeName));
}
