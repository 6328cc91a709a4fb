import { describe, expect, it } from 'vitest';
import { describeAlertConfig } from '../../shared/poll/alert-config-description.js';

describe('describeAlertConfig', () => {
  it('says what a metric alert alerts on: the metric, the side and the threshold with its units', () => {
    // Prepare
    const configs = [
      {
        id: 'a1',
        eventTypeName: 'OUTSIDE_METRIC_THRESHOLD',
        metricThreshold: {
          metricName: 'CONNECTIONS',
          operator: 'GREATER_THAN',
          threshold: 1500,
          units: 'RAW',
        },
      },
      {
        id: 'a2',
        eventTypeName: 'OUTSIDE_METRIC_THRESHOLD',
        metricThreshold: {
          metricName: 'DISK_PARTITION_SPACE_USED_DATA',
          operator: 'LESS_THAN',
          threshold: 5,
          units: 'GIGABYTES',
        },
      },
      {
        id: 'a3',
        eventTypeName: 'OUTSIDE_METRIC_THRESHOLD',
        metricThreshold: { metricName: 'OPCOUNTER_CMD' },
      },
    ];

    // Act
    const descriptions = configs.map(describeAlertConfig);

    // Assess
    expect(descriptions).toEqual([
      'CONNECTIONS above 1500',
      'DISK_PARTITION_SPACE_USED_DATA below 5 gigabytes',
      'OPCOUNTER_CMD',
    ]);
  });

  it('says what an event alert alerts on in words, and nothing for a configuration that names neither', () => {
    // Act
    const descriptions = [
      describeAlertConfig({ id: 'a1', eventTypeName: 'HOST_DOWN' }),
      describeAlertConfig({ id: 'a2', eventTypeName: 'USERS_WITHOUT_MULTI_FACTOR_AUTH' }),
      describeAlertConfig({ id: 'a3' }),
      describeAlertConfig({
        id: 'a4',
        eventTypeName: '<!here>',
        metricThreshold: { metricName: 42 as unknown as string },
      }),
    ];

    // Assess
    expect(descriptions).toEqual(['Host down', 'Users without multi factor auth', undefined, undefined]);
  });
});
