import { describe, expect, it } from 'vitest';
import { emptyAlertCounts } from '../../shared/poll/alert-delivery.js';
import { emitAlertMetrics, type MetricsSink } from '../../shared/poll/index.js';
import type { AlertCounts } from '../../shared/poll/tick-types.js';

type Recorded = [name: string, value: number, dimensions?: Readonly<Record<string, string>>];

function recordingSink(): { sink: MetricsSink; recorded: Recorded[] } {
  const recorded: Recorded[] = [];
  return {
    recorded,
    sink: {
      addMetric: (name, _unit, value, dimensions) => {
        recorded.push(dimensions === undefined ? [name, value] : [name, value, dimensions]);
      },
    },
  };
}

/** Alert counts with the severities given, every other at zero. */
function counts(
  published: Partial<AlertCounts['published']>,
  failed: Partial<AlertCounts['failed']> = {},
): AlertCounts {
  const zero = emptyAlertCounts();
  return {
    ...zero,
    published: { ...zero.published, ...published },
    failed: { ...zero.failed, ...failed },
  };
}

describe('emitAlertMetrics', () => {
  it('writes the alerts per severity that had some, in all, the failed, and each destination', () => {
    const { sink, recorded } = recordingSink();

    emitAlertMetrics({
      alerts: counts({ low: 3, critical: 1 }, { high: 2 }),
      destinations: {
        eventbridge: counts({ low: 3, critical: 1 }),
        securityhub: counts({ critical: 1 }, { low: 2, medium: 1 }),
      },
      sink,
    });

    expect(recorded).toEqual([
      ['AlertsPublished', 3, { severity: 'low' }],
      ['AlertsPublished', 1, { severity: 'critical' }],
      ['AlertsPublished', 4],
      ['AlertsFailed', 2],
      ['DestinationAlertsPublished', 4, { destination: 'eventbridge' }],
      ['DestinationAlertsFailed', 0, { destination: 'eventbridge' }],
      ['DestinationAlertsPublished', 1, { destination: 'securityhub' }],
      ['DestinationAlertsFailed', 3, { destination: 'securityhub' }],
    ]);
  });

  it('writes zeros for a delivery of nothing, so the alarms read a value rather than a gap', () => {
    const { sink, recorded } = recordingSink();

    emitAlertMetrics({ alerts: emptyAlertCounts(), destinations: {}, sink });

    expect(recorded).toEqual([
      ['AlertsPublished', 0],
      ['AlertsFailed', 0],
    ]);
  });
});
