import { describe, expect, it } from 'vitest';
import { buildDigestEntries } from '../../shared/notify/digest-message.js';
import { digestPeriodAt } from '../../shared/notify/digest-period.js';
import { buildMessageAttributes } from '../../shared/notify/message-attributes.js';
import {
  digestTakes,
  filterPolicyMatches,
  planDigests,
  planRoutes,
  routeAlert,
  routesSchema,
} from '../../shared/routes/index.js';
import { makeAlert } from '../notify/support/alerts.js';

const security = {
  name: 'security',
  email: { to: ['secops@example.com'] },
  slack: { workspaceId: 'T012AB3CD', channelId: 'C0123ABCDEF' },
  digest: { below: 'high', every: 'daily' },
};
const platform = { name: 'platform', email: { to: ['platform@example.com'] } };

function digestMessageAttributes(route: string) {
  const [part] = buildDigestEntries({
    route,
    period: digestPeriodAt('daily', Date.UTC(2026, 10, 27)),
    entries: [
      {
        fingerprint: 'f',
        ruleId: 'r',
        ruleName: 'R',
        severity: 'low',
        raisedAt: Date.UTC(2026, 10, 27),
        title: 't',
      },
    ],
  });
  if (part === undefined) throw new Error('expected a part');
  return part.MessageAttributes;
}

describe('route digest settings', () => {
  it('refuses a digest that would take high or critical alerts, or nothing, with what to do', () => {
    const result = routesSchema.safeParse([
      { ...security, digest: { below: 'critical', every: 'daily' } },
      { ...platform, name: 'p2', digest: { below: 'info', every: 'hourly' } },
      { name: 'p3', eventBridge: {}, digest: { below: 'low', every: 'weekly' } },
    ]);

    expect(result.success).toBe(false);
    const messages = result.error?.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
    expect(messages).toEqual(
      expect.arrayContaining([
        '0.digest.below: is critical, which would digest high alerts: critical and high alerts are never digested, so below is at most high',
        '1.digest.below: is info, below which there is no severity: name low, medium or high, or leave the digest out',
        '2.digest.every: must be hourly or daily',
      ]),
    );
  });

  it('refuses a digest on a route without email or Slack', () => {
    const result = routesSchema.safeParse([
      { name: 'bus', eventBridge: {}, digest: { below: 'low', every: 'daily' } },
    ]);

    expect(result.error?.issues.map((issue) => issue.message)).toEqual([
      'is set, but the route has no email or slack to send the digest to: add one, or leave the digest out',
    ]);
  });
});

describe('planRoutes with digests', () => {
  it("subscribes the digest route's email and Slack to its alerts at high and above and to its own digest", () => {
    const routes = routesSchema.parse([security, platform]);

    const plan = planRoutes(routes);

    expect(plan.problems).toEqual([]);
    const secops = plan.destinations.find((d) => d.routes.includes('security'));
    expect(secops?.filterPolicy).toEqual({
      $or: [{ severityRank: [{ numeric: ['>=', 4] }] }, { digest: ['security'] }],
    });
    const platformPlan = plan.destinations.find((d) => d.routes.includes('platform'));
    expect(platformPlan?.filterPolicy).toEqual({ severityRank: [{ numeric: ['>=', 1] }] });
  });

  it("delivers a digest message only to its own route's subscriptions, and a low alert to none of the digest route's", () => {
    const routes = routesSchema.parse([security, platform]);
    const plan = planRoutes(routes);
    const low = buildMessageAttributes(makeAlert({ severity: 'low' }));
    const high = buildMessageAttributes(makeAlert({ severity: 'high' }));

    const takes = (attributes: ReturnType<typeof buildMessageAttributes>) =>
      plan.destinations
        .filter((d) => filterPolicyMatches(d.filterPolicy, attributes))
        .flatMap((d) => d.routes);

    expect(takes(digestMessageAttributes('security'))).toEqual(['security', 'security']);
    expect(takes(digestMessageAttributes('other'))).toEqual([]);
    expect(takes(low)).toEqual(['platform']);
    expect(takes(high)).toEqual(['security', 'security', 'platform']);
  });

  it('tells which alerts a digest takes, and routes test says so', () => {
    const routes = routesSchema.parse([security, platform]);
    const [plan] = planDigests(routes);
    const medium = buildMessageAttributes(makeAlert({ severity: 'medium' }));
    const high = buildMessageAttributes(makeAlert({ severity: 'high' }));

    expect(plan).toEqual({ route: 'security', every: 'daily', belowRank: 4, policy: null });
    expect(digestTakes(plan as NonNullable<typeof plan>, medium)).toBe(true);
    expect(digestTakes(plan as NonNullable<typeof plan>, high)).toBe(false);
    expect(routeAlert(routes, medium)).toEqual([
      { route: 'security', reaches: [], digest: 'daily' },
      { route: 'platform', reaches: [{ kind: 'email', address: 'platform@example.com' }] },
    ]);
  });
});
