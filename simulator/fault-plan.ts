import * as z from 'zod';
import { SimulatorOptionsError } from './errors.js';

/** The faults the simulator can inject. */
export const FAULT_KINDS = [
  /** 429 `RATE_LIMITED` with a `Retry-After` header. */
  'rateLimited',
  /** 429 `RATE_LIMITED` without `Retry-After`. */
  'rateLimitedNoRetryAfter',
  /** 500 with the Atlas error body. */
  'internalServerError',
  /** 502 with a plain-text body, as a load balancer sends it. */
  'badGateway',
  /** 503 with a plain-text body, as a load balancer sends it. */
  'serviceUnavailable',
  /** 504 with a plain-text body, as a load balancer sends it. */
  'gatewayTimeout',
  /** A delay (on the simulator's clock) before the normal answer. */
  'latency',
  /** The connection is reset (TCP RST) before any answer. */
  'connectionReset',
  /** Headers declare the full `Content-Length`; half the body is sent, then the connection closes. */
  'truncatedBody',
  /** A request with valid digest credentials is answered 401 `stale=true`, as if its nonce expired. */
  'nonceExpired',
] as const;

export type FaultKind = (typeof FAULT_KINDS)[number];

/** One step of a fault schedule: `count` consecutive eligible requests get `kind` (`none`: no fault). */
export interface FaultStep {
  kind: FaultKind | 'none';
  /** Default 1. */
  count?: number;
}

/**
 * What faults to inject, reproducibly. Eligible requests (those on `routes`, that passed
 * authentication) first consume the `schedule`, step by step; after it, each eligible request draws
 * one number from a PRNG seeded with `seed` and gets a fault with the given `probabilities`. The same
 * plan and the same sequence of requests always give the same faults.
 *
 * @example
 * ```ts
 * // The next 2 requests are rate limited, then 10% of requests fail with 503.
 * sim.setFaults({ seed: 7, schedule: [{ kind: 'rateLimited', count: 2 }], probabilities: { serviceUnavailable: 0.1 } });
 * ```
 */
export interface FaultPlan {
  /** PRNG seed for `probabilities` and latency ranges. Default 1. */
  seed?: number;
  /** Chance per eligible request of each fault kind, 0 to 1; they must add up to at most 1. */
  probabilities?: Partial<Record<FaultKind, number>>;
  /** Explicit faults for the first eligible requests, in order. */
  schedule?: readonly FaultStep[];
  /**
   * Only requests on these routes are eligible: `METHOD pattern` as in the counters, such as
   * `GET /groups/{groupId}/events` or `POST /api/oauth/token`. Default: every route.
   */
  routes?: readonly string[];
  /** The `Retry-After` of `rateLimited`, in seconds. Default 1. */
  retryAfterSeconds?: number;
  /** Send `Retry-After` as seconds (default) or as an HTTP date. */
  retryAfterFormat?: 'seconds' | 'http-date';
  /** The delay of `latency`, in milliseconds: fixed, or drawn from a range. Default 250. */
  latencyMs?: number | { min: number; max: number };
}

const faultKindSchema = z.enum(FAULT_KINDS);

const faultPlanSchema = z.strictObject({
  seed: z.number().int().optional(),
  probabilities: z
    .partialRecord(faultKindSchema, z.number().min(0).max(1))
    .refine(
      (probabilities) => Object.values(probabilities).reduce((sum, p) => sum + (p ?? 0), 0) <= 1 + 1e-9,
      {
        message: 'must add up to at most 1',
      },
    )
    .optional(),
  schedule: z
    .array(
      z.strictObject({
        kind: z.union([faultKindSchema, z.literal('none')]),
        count: z.number().int().min(1).optional(),
      }),
    )
    .optional(),
  routes: z.array(z.string().regex(/^[A-Z]+ \//, 'must look like "GET /groups/{groupId}/events"')).optional(),
  retryAfterSeconds: z.number().int().min(0).max(86_400).optional(),
  retryAfterFormat: z.enum(['seconds', 'http-date']).optional(),
  latencyMs: z
    .union([
      z.number().min(0).max(600_000),
      z
        .strictObject({ min: z.number().min(0).max(600_000), max: z.number().min(0).max(600_000) })
        .refine((range) => range.min <= range.max, { message: 'min must not exceed max' }),
    ])
    .optional(),
});

/**
 * Checks a fault plan.
 *
 * @throws {SimulatorOptionsError} naming each field that is out of range or unknown.
 * @example
 * ```ts
 * validateFaultPlan({ probabilities: { rateLimited: 0.2 } });
 * ```
 */
export function validateFaultPlan(plan: FaultPlan): FaultPlan {
  const result = faultPlanSchema.safeParse(plan);
  if (!result.success) {
    const issues = result.error.issues.map(
      (issue) => `${issue.path.map(String).join('.') || 'plan'}: ${issue.message}`,
    );
    throw new SimulatorOptionsError(`Invalid fault plan: ${issues.join('; ')}.`, { cause: result.error });
  }
  return plan;
}
