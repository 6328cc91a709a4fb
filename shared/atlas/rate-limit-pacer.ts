import type { Clock } from '../clock.js';

/** Options of {@link RateLimitPacer}. */
export interface RateLimitPacerOptions {
  clock: Clock;
  /**
   * The window Atlas's `RateLimit-Limit` counts over when the answer names none (no `RateLimit-Reset`):
   * Atlas documents its limits per minute. Default 60 s.
   */
  defaultWindowMs?: number;
  /** The longest pause before one request (default 10 s): pacing slows a tick, never stalls it. */
  maxDelayMs?: number;
  /** Share of the limit kept in reserve: pacing starts when no more requests remain (default 0.1). */
  reserveShare?: number;
  /** Scopes remembered at most; the oldest is forgotten first (default 1,000). */
  maxScopes?: number;
}

interface ScopeState {
  limit: number;
  remaining: number;
  /** When the window resets, on the local clock; undefined when Atlas did not say. */
  resetAt: number | undefined;
}

const MAX_HEADER_NUMBER = 1_000_000_000;

/**
 * Paces requests by the `RateLimit-Limit` / `RateLimit-Remaining` (and, when sent, `RateLimit-Reset`,
 * delta seconds) headers of Atlas's answers, before a 429 happens. Atlas's limits are token buckets
 * per endpoint set and scope, so the state is kept per scope (`orgs/{id}`, `groups/{id}`, or the host
 * for anything else): one busy project never slows another.
 *
 * Once no more than the reserve remain, each request of that scope waits for the time the bucket takes
 * to win one token back: the rest of the reset time shared over the requests left, or the window over
 * the limit when Atlas names no reset. The wait never exceeds `maxDelayMs`, and it ends at once when
 * the caller's signal (the tick's deadline) aborts. Headers that are absent or not whole numbers leave
 * the pace alone.
 *
 * @example
 * ```ts
 * const pacer = new RateLimitPacer({ clock });
 * await pacer.wait('/orgs/5f4e3d2c1b0a998877665544/events', signal);
 * pacer.observe('/orgs/5f4e3d2c1b0a998877665544/events', response.headers);
 * ```
 */
export class RateLimitPacer {
  readonly #clock: Clock;
  readonly #defaultWindowMs: number;
  readonly #maxDelayMs: number;
  readonly #reserveShare: number;
  readonly #maxScopes: number;
  readonly #scopes = new Map<string, ScopeState>();
  #paused = 0;
  /** The scope of the last resource asked about: a client asks for the same path again and again. */
  #lastScope: { resource: string; scope: string } | undefined;

  constructor(options: RateLimitPacerOptions) {
    this.#clock = options.clock;
    this.#defaultWindowMs = options.defaultWindowMs ?? 60_000;
    this.#maxDelayMs = options.maxDelayMs ?? 10_000;
    this.#reserveShare = options.reserveShare ?? 0.1;
    this.#maxScopes = options.maxScopes ?? 1_000;
  }

  /** Requests that waited before being sent, since the pacer was created. */
  get paused(): number {
    return this.#paused;
  }

  /** How long the next request to `resource` should wait, in milliseconds (0: send now). */
  delayFor(resource: string): number {
    const scope = this.#scopeOf(resource);
    const state = this.#scopes.get(scope);
    if (state === undefined) return 0;
    const now = this.#clock.now();
    if (state.resetAt !== undefined && now >= state.resetAt) {
      this.#scopes.delete(scope);
      return 0;
    }
    const reserve = Math.max(1, Math.ceil(state.limit * this.#reserveShare));
    if (state.remaining > reserve) return 0;
    const delay =
      state.resetAt === undefined
        ? this.#defaultWindowMs / state.limit
        : (state.resetAt - now) / Math.max(1, state.remaining);
    return Math.min(this.#maxDelayMs, Math.ceil(delay));
  }

  /**
   * Waits as long as {@link delayFor} says.
   *
   * @throws The signal's reason when it aborts during the wait.
   */
  async wait(resource: string, signal?: AbortSignal): Promise<void> {
    const delay = this.delayFor(resource);
    if (delay <= 0) return;
    this.#paused += 1;
    await this.#clock.sleep(delay, signal);
  }

  /** Records what an answer to `resource` said of the scope's limit. */
  observe(resource: string, headers: Readonly<Record<string, string | string[] | undefined>>): void {
    const limit = headerNumber(headers['ratelimit-limit']);
    const remaining = headerNumber(headers['ratelimit-remaining']);
    if (limit === undefined || remaining === undefined || limit === 0) return;
    const reset = headerNumber(headers['ratelimit-reset']);
    const scope = this.#scopeOf(resource);
    this.#scopes.delete(scope);
    this.#scopes.set(scope, {
      limit,
      remaining: Math.min(remaining, limit),
      resetAt: reset === undefined ? undefined : this.#clock.now() + reset * 1_000,
    });
    if (this.#scopes.size > this.#maxScopes) {
      const oldest = this.#scopes.keys().next();
      if (oldest.done !== true) this.#scopes.delete(oldest.value);
    }
  }

  #scopeOf(resource: string): string {
    const last = this.#lastScope;
    if (last !== undefined && last.resource === resource) return last.scope;
    const scope = scopeOf(resource);
    this.#lastScope = { resource, scope };
    return scope;
  }
}

/** `orgs/{id}` or `groups/{id}` of a resource path, or `host` for anything else. */
function scopeOf(resource: string): string {
  const match = /\/(orgs|groups)\/([^/?]+)/.exec(resource);
  return match === null ? 'host' : `${match[1]}/${match[2]}`;
}

function headerNumber(value: string | string[] | undefined): number | undefined {
  if (typeof value !== 'string' || !/^\s*\d{1,10}\s*$/.test(value)) return undefined;
  const number = Number(value);
  return number > MAX_HEADER_NUMBER ? undefined : number;
}
