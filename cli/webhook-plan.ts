import type { RuleCoverage } from '../shared/rules/lint/index.js';

/**
 * What Atlas needs so that its alerts push to the receiver: per project, a Webhook integration (the
 * receiver's URL and the connection's webhook secret) and an alert configuration with a Webhook
 * notification for each event type the enabled rules match that Atlas can alert on. Types the rules
 * need that Atlas cannot alert on stay poll-only: the scheduled tick reads them as before.
 */

/** The body of `POST /groups/{groupId}/integrations/WEBHOOK`; `secret` is a reference, never the value. */
export interface WebhookIntegrationBody {
  readonly type: 'WEBHOOK';
  readonly url: string;
  readonly secret: string;
}

/** The body of `POST /groups/{groupId}/alertConfigs` for one event type. */
export interface WebhookAlertConfigBody {
  readonly eventTypeName: string;
  readonly enabled: true;
  readonly notifications: readonly [{ readonly typeName: 'WEBHOOK'; readonly delayMin: 0 }];
}

/** What one project of one connection needs. */
export interface WebhookProjectPlan {
  readonly connection: string;
  readonly groupId: string;
  readonly integration: WebhookIntegrationBody;
  readonly alertConfigs: readonly WebhookAlertConfigBody[];
}

/** The plan of `webhooks plan` and `webhooks apply`. */
export interface WebhookPlan {
  /** Event types the enabled rules name that Atlas can alert on: each gets an alert configuration. */
  readonly pushable: readonly string[];
  /** Event types the enabled rules name that Atlas cannot alert on: read by the scheduled poll only. */
  readonly pollOnly: readonly string[];
  readonly projects: readonly WebhookProjectPlan[];
}

/** One connection's projects and where its pushes go. */
export interface WebhookPlanTarget {
  readonly connection: string;
  readonly groupIds: readonly string[];
  /** The receiver's URL for this connection. */
  readonly url: string;
  /** What stands for the webhook secret in the plan, such as `$ATLAS_AUDIT_ALERTS_WEBHOOK_SECRET`. */
  readonly secretReference: string;
}

/** Options of {@link planWebhooks}. */
export interface PlanWebhooksOptions {
  /** The coverage of the enabled rules: the event types they name. */
  readonly coverage: RuleCoverage;
  /** Whether Atlas can raise an alert for a type (`alertable` of `GET /eventTypes`). */
  readonly alertable: (eventTypeName: string) => boolean;
  readonly targets: readonly WebhookPlanTarget[];
}

/**
 * The alert configuration body for one event type: enabled, one Webhook notification sent at once
 * (`delayMin: 0`) to the project's Webhook integration, no matchers (every event of the type).
 *
 * @example
 * ```ts
 * webhookAlertConfig('JOINED_GROUP').notifications[0].typeName; // 'WEBHOOK'
 * ```
 */
export function webhookAlertConfig(eventTypeName: string): WebhookAlertConfigBody {
  return { eventTypeName, enabled: true, notifications: [{ typeName: 'WEBHOOK', delayMin: 0 }] };
}

/**
 * Plans the Atlas side of push: the event types the enabled rules name (rules that name none are not
 * counted, as in `rules coverage`), split into those Atlas can alert on and the poll-only rest, and per
 * project of each target the Webhook integration and one alert configuration per alertable type.
 * Projects and types are sorted, so a plan reads the same each time.
 *
 * @example
 * ```ts
 * const plan = planWebhooks({ coverage, alertable: (type) => types.has(type), targets });
 * plan.pollOnly; // ['API_KEY_CREATED', ...]
 * ```
 */
export function planWebhooks(options: PlanWebhooksOptions): WebhookPlan {
  const needed = new Set<string>();
  for (const rule of options.coverage.rules) {
    if (rule.namesEventTypes) for (const type of rule.eventTypes) needed.add(type);
  }
  const sorted = [...needed].sort();
  const pushable = sorted.filter((type) => options.alertable(type));
  const pollOnly = sorted.filter((type) => !options.alertable(type));
  const projects = options.targets.flatMap((target) =>
    [...new Set(target.groupIds)].sort().map((groupId) => ({
      connection: target.connection,
      groupId,
      integration: { type: 'WEBHOOK' as const, url: target.url, secret: target.secretReference },
      alertConfigs: pushable.map(webhookAlertConfig),
    })),
  );
  return { pushable, pollOnly, projects };
}
