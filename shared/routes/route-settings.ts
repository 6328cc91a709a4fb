import * as z from 'zod';
import { SEVERITIES, severityRank } from '../notify/alert.js';
import { DIGEST_EVERY } from '../notify/digest-period.js';

/** Atlas organization and project ids: 24 hexadecimal characters. A route value of any other form is a name. */
export const ATLAS_ID = /^[0-9a-f]{24}$/;

/** Route and connection names: what alarms, subscriptions and `routes test` show. */
export const NAME_PATTERN = /^[a-z][a-z0-9-]{0,31}$/;

const nameSchema = z
  .string()
  .regex(NAME_PATTERN, 'must be 1 to 32 lowercase letters, digits and hyphens, starting with a letter');

const severitySchema = z.enum(SEVERITIES);

/** A list in a route's match: at least one value, each once. */
function matchList(what: string) {
  return z
    .array(z.string().min(1, `must not be empty`).max(256, 'must be at most 256 characters'))
    .min(1, `must list at least one ${what}, or be left out to match every ${what}`)
    .superRefine((values, context) => {
      const seen = new Set<string>();
      values.forEach((value, index) => {
        if (seen.has(value)) {
          context.addIssue({ code: 'custom', path: [index], message: `${value} is listed twice` });
        }
        seen.add(value);
      });
    });
}

/**
 * Which alerts a route takes. Every condition that is set must hold (and); within one condition, any
 * value may (or). A route without conditions takes every alert.
 */
export const routeMatchSchema = z.strictObject({
  /** Connection names. */
  connections: matchList('connection').optional(),
  /** Organization ids (24 hexadecimal characters) or names, as Atlas shows them. */
  orgs: matchList('organization').optional(),
  /** Project ids (24 hexadecimal characters) or names, as Atlas shows them. */
  projects: matchList('project').optional(),
  /** Rule ids. */
  rules: matchList('rule').optional(),
  /** Rule tags: an alert whose rule has any of them. */
  tags: matchList('tag').optional(),
  /** The lowest severity the route takes. */
  minSeverity: severitySchema.optional(),
});

const emailDestinationSchema = z.strictObject({
  /** Addresses that receive the route's alerts by email; each confirms its subscription once. */
  to: z.array(z.email('must be an email address')).min(1, 'must list at least one address'),
  /** A floor of this destination's own, above the route's. */
  minSeverity: severitySchema.optional(),
});

/**
 * Where AWS Chatbot posts: the Slack workspace and channel. What every Slack setting (a route's, the
 * deployment's `alerts.slack`) holds, with a severity floor of its own beside.
 */
export const slackChannelShape = {
  /** The Slack workspace (team) id AWS Chatbot shows once the workspace is authorised, such as T012AB3CD. */
  workspaceId: z
    .string()
    .regex(
      /^[0-9A-Z]{1,255}$/,
      'must be a Slack workspace id such as T012AB3CD (the AWS Chatbot console shows it)',
    ),
  /** The channel id, such as C0123ABCDEF (Slack shows it under the channel's details). */
  channelId: z
    .string()
    .regex(
      /^[A-Za-z0-9]{1,255}$/,
      'must be a Slack channel id such as C0123ABCDEF (see the channel details)',
    ),
};

const slackDestinationSchema = z.strictObject({
  ...slackChannelShape,
  /** A floor of this destination's own, above the route's. */
  minSeverity: severitySchema.optional(),
});

/** The kinds of destination a route can name, as its settings spell them. */
export const DESTINATION_KINDS = ['email', 'slack', 'eventBridge', 'securityHub'] as const;

export type DestinationKind = (typeof DESTINATION_KINDS)[number];

/**
 * A destination the poller itself delivers to, in the account it runs in (the EventBridge bus the
 * deployment's `eventBridge.bus` names, the account's Security Hub): `{}` takes every alert of the
 * route, `minSeverity` adds a floor of its own.
 */
export const accountDestinationSchema = z.strictObject({
  /** A floor of this destination's own, above the route's. */
  minSeverity: severitySchema.optional(),
});

/**
 * A route's digest: its email and Slack receive the alerts below `below` as one message `every` hour
 * or day (UTC) instead of one by one. Critical and high alerts are never digested: `below` is at most
 * `high`. EventBridge and Security Hub still take every alert one by one.
 */
export const digestSettingsSchema = z
  .strictObject({
    /** Alerts below this severity go to the digest: `low` digests info, `high` digests info to medium. */
    below: z.enum(SEVERITIES, {
      error: `must be one of ${SEVERITIES.join(', ')}: alerts below it go to the digest`,
    }),
    /** How often the digest is sent: hourly or daily (UTC). */
    every: z.enum(DIGEST_EVERY, { error: 'must be hourly or daily' }),
  })
  .superRefine((digest, context) => {
    if (severityRank(digest.below) > severityRank('high')) {
      context.addIssue({
        code: 'custom',
        path: ['below'],
        message: `is ${digest.below}, which would digest high alerts: critical and high alerts are never digested, so below is at most high`,
      });
    }
    if (digest.below === 'info') {
      context.addIssue({
        code: 'custom',
        path: ['below'],
        message:
          'is info, below which there is no severity: name low, medium or high, or leave the digest out',
      });
    }
  });

export type DigestSettings = z.output<typeof digestSettingsSchema>;

/** One route: a name, which alerts it takes, and where they go. */
export const routeSchema = z
  .strictObject({
    name: nameSchema,
    /** Every alert when left out. */
    match: routeMatchSchema.prefault({}),
    email: emailDestinationSchema.optional(),
    slack: slackDestinationSchema.optional(),
    /** The deployment's EventBridge bus (see `eventBridge.bus`): one entry per alert. */
    eventBridge: accountDestinationSchema.optional(),
    /** The account's Security Hub: one finding per alert, archived when a posture problem is fixed. */
    securityHub: accountDestinationSchema.optional(),
    /** Alerts below a severity reach the route's email and Slack as a digest (see {@link digestSettingsSchema}). */
    digest: digestSettingsSchema.optional(),
  })
  .refine((route) => DESTINATION_KINDS.some((kind) => route[kind] !== undefined), {
    message:
      'names no destination: give it email (to: [addresses]), slack (workspaceId, channelId), eventBridge ({}) or securityHub ({})',
  })
  .refine((route) => route.digest === undefined || route.email !== undefined || route.slack !== undefined, {
    path: ['digest'],
    message:
      'is set, but the route has no email or slack to send the digest to: add one, or leave the digest out',
  });

export type RouteMatch = z.output<typeof routeMatchSchema>;
export type RouteSettings = z.output<typeof routeSchema>;
export type EmailDestination = z.output<typeof emailDestinationSchema>;
export type SlackDestination = z.output<typeof slackDestinationSchema>;
export type AccountDestination = z.output<typeof accountDestinationSchema>;

/** The list of routes: names unique. */
export const routesSchema = z.array(routeSchema).superRefine((routes, context) => {
  const seen = new Set<string>();
  routes.forEach((route, index) => {
    if (seen.has(route.name)) {
      context.addIssue({
        code: 'custom',
        path: [index, 'name'],
        message: `route ${route.name} is named twice`,
      });
    }
    seen.add(route.name);
  });
});
