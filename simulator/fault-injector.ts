import { type FaultKind, type FaultPlan, validateFaultPlan } from './fault-plan.js';
import { createPrng } from './prng.js';

/** The fault chosen for one request. */
export interface FaultDecision {
  readonly kind: FaultKind;
  /** For `latency`: how long to wait. */
  readonly latencyMs: number;
  /** For `rateLimited`: the `Retry-After` value in seconds. */
  readonly retryAfterSeconds: number;
  readonly retryAfterFormat: 'seconds' | 'http-date';
}

/**
 * Decides, request by request, which fault of a `FaultPlan` to inject: the schedule first, then the
 * seeded probabilities. Deterministic for a given plan and order of eligible requests.
 */
export class FaultInjector {
  private readonly plan: FaultPlan;
  private readonly random: () => number;
  private readonly routes: ReadonlySet<string> | undefined;
  private readonly weighted: ReadonlyArray<readonly [FaultKind, number]>;
  private step = 0;
  private usedInStep = 0;

  /** @throws {SimulatorOptionsError} when the plan is invalid. */
  constructor(plan: FaultPlan = {}) {
    this.plan = validateFaultPlan(plan);
    this.random = createPrng(plan.seed ?? 1);
    this.routes = plan.routes === undefined ? undefined : new Set(plan.routes);
    this.weighted = Object.entries(plan.probabilities ?? {}).filter(
      (entry): entry is [FaultKind, number] => typeof entry[1] === 'number' && entry[1] > 0,
    );
  }

  /** Whether the plan can inject anything at all (lets the server skip the work when not). */
  get active(): boolean {
    return (this.plan.schedule?.length ?? 0) > this.step || this.weighted.length > 0;
  }

  /** The fault for the next eligible request on `routeKey` (`METHOD pattern`), if any. */
  next(routeKey: string): FaultDecision | undefined {
    if (this.routes !== undefined && !this.routes.has(routeKey)) return undefined;
    const kind = this.nextKind();
    if (kind === undefined) return undefined;
    return {
      kind,
      latencyMs: kind === 'latency' ? this.latency() : 0,
      retryAfterSeconds: this.plan.retryAfterSeconds ?? 1,
      retryAfterFormat: this.plan.retryAfterFormat ?? 'seconds',
    };
  }

  private nextKind(): FaultKind | undefined {
    const schedule = this.plan.schedule ?? [];
    const current = schedule[this.step];
    if (current !== undefined) {
      this.usedInStep++;
      if (this.usedInStep >= (current.count ?? 1)) {
        this.step++;
        this.usedInStep = 0;
      }
      return current.kind === 'none' ? undefined : current.kind;
    }
    if (this.weighted.length === 0) return undefined;
    let draw = this.random();
    for (const [kind, probability] of this.weighted) {
      if (draw < probability) return kind;
      draw -= probability;
    }
    return undefined;
  }

  private latency(): number {
    const latency = this.plan.latencyMs ?? 250;
    if (typeof latency === 'number') return latency;
    return Math.round(latency.min + this.random() * (latency.max - latency.min));
  }
}
