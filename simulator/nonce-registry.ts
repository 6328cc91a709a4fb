import { randomBytes } from 'node:crypto';
import type { Clock } from '../shared/clock.js';

/** What the registry says about a nonce count a client used. */
export type NonceUse = 'accepted' | 'stale' | 'replayed';

interface NonceState {
  readonly expiresAt: number;
  highest: number;
  /** Counts seen within the replay window below `highest`. */
  readonly seen: Set<number>;
}

/**
 * How far below the highest count a client may still use a count it has not used before: clients
 * that share one nonce across concurrent requests send counts that arrive slightly out of order.
 */
const REPLAY_WINDOW = 256;

/**
 * The nonces the simulator has issued, when they expire, and which nonce counts each has seen, so a
 * replayed count is refused and an expired nonce is answered `stale=true`.
 *
 * Nonces are kept in issue order; expired ones are dropped from the front as new ones are issued, and
 * the oldest are dropped beyond `maxNonces`, so memory stays bounded however often clients
 * re-challenge. A dropped nonce is reported as stale, which is what a real server does with a nonce
 * it no longer knows.
 */
export class NonceRegistry {
  private readonly nonces = new Map<string, NonceState>();
  private readonly clock: Clock;
  private readonly ttlMs: number;
  private readonly maxNonces: number;

  constructor(options: { clock: Clock; ttlMs: number; maxNonces?: number }) {
    this.clock = options.clock;
    this.ttlMs = options.ttlMs;
    this.maxNonces = options.maxNonces ?? 100_000;
  }

  /** Issues a fresh random nonce valid for the configured time to live. */
  issue(): string {
    this.prune();
    const nonce = randomBytes(24).toString('base64');
    this.nonces.set(nonce, { expiresAt: this.clock.now() + this.ttlMs, highest: 0, seen: new Set() });
    return nonce;
  }

  /** Whether `nonce` is known and not expired, without recording a use. */
  isLive(nonce: string): boolean {
    const state = this.nonces.get(nonce);
    return state !== undefined && this.clock.now() < state.expiresAt;
  }

  /**
   * Records that a request with valid credentials used `nonce` with count `nc`. Call it only after the
   * digest response has been verified, so a forged request cannot burn a count.
   */
  use(nonce: string, nc: number): NonceUse {
    const state = this.nonces.get(nonce);
    if (state === undefined || this.clock.now() >= state.expiresAt) {
      return 'stale';
    }
    if (nc > state.highest) {
      state.highest = nc;
      state.seen.add(nc);
      if (state.seen.size > 2 * REPLAY_WINDOW) {
        for (const seen of state.seen) {
          if (seen <= state.highest - REPLAY_WINDOW) state.seen.delete(seen);
        }
      }
      return 'accepted';
    }
    if (nc <= state.highest - REPLAY_WINDOW || state.seen.has(nc)) {
      return 'replayed';
    }
    state.seen.add(nc);
    return 'accepted';
  }

  /** Expires one nonce now: its next use is answered `stale=true`. */
  expire(nonce: string): void {
    this.nonces.delete(nonce);
  }

  /** Expires every nonce issued so far. */
  expireAll(): void {
    this.nonces.clear();
  }

  private prune(): void {
    const now = this.clock.now();
    for (const [nonce, state] of this.nonces) {
      if (state.expiresAt > now && this.nonces.size < this.maxNonces) break;
      this.nonces.delete(nonce);
    }
  }
}
