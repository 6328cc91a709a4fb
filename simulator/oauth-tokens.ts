import { randomBytes } from 'node:crypto';
import type { Clock } from '../shared/clock.js';
import type { Principal } from './simulator-data.js';

/**
 * The OAuth access tokens issued to service accounts, with their expiry on the simulator's clock.
 * Expired tokens are dropped as new ones are issued.
 */
export class OAuthTokenStore {
  private readonly tokens = new Map<string, { principal: Principal; expiresAt: number }>();
  private readonly clock: Clock;
  private readonly ttlSeconds: number;

  constructor(options: { clock: Clock; ttlSeconds: number }) {
    this.clock = options.clock;
    this.ttlSeconds = options.ttlSeconds;
  }

  /** Issues a random bearer token for a service account. */
  issue(principal: Principal): { accessToken: string; expiresIn: number } {
    const now = this.clock.now();
    for (const [token, entry] of this.tokens) {
      if (entry.expiresAt > now) break;
      this.tokens.delete(token);
    }
    const accessToken = randomBytes(32).toString('base64url');
    this.tokens.set(accessToken, { principal, expiresAt: now + this.ttlSeconds * 1000 });
    return { accessToken, expiresIn: this.ttlSeconds };
  }

  /** The service account a live token belongs to, or `undefined` for an unknown or expired token. */
  lookup(token: string): Principal | undefined {
    const entry = this.tokens.get(token);
    return entry !== undefined && this.clock.now() < entry.expiresAt ? entry.principal : undefined;
  }

  /** Revokes every token: the next bearer request gets 401 and the client must fetch a new one. */
  revokeAll(): void {
    this.tokens.clear();
  }
}
