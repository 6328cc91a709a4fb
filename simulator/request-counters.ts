import { FAULT_KINDS, type FaultKind } from './fault-plan.js';

/** What the simulator has served since it started or since `resetCounters()`. */
export interface SimulatorCounters {
  /** Every HTTP request received. */
  requests: number;
  /** Requests by `METHOD pattern`, e.g. `GET /groups/{groupId}/events`, `POST /api/oauth/token`. */
  byPath: Record<string, number>;
  /** Responses by HTTP status (a reset connection has none). */
  byStatus: Record<string, number>;
  /** 401 digest challenges sent (stale ones included). */
  challenges: number;
  /** Requests whose credentials were sent but refused (wrong key, bad digest, replayed nc, bad token). */
  authFailures: number;
  /** OAuth access tokens issued. */
  tokensIssued: number;
  /** Faults injected, by kind. */
  faults: Record<FaultKind, number>;
}

function emptyFaults(): Record<FaultKind, number> {
  return Object.fromEntries(FAULT_KINDS.map((kind) => [kind, 0])) as Record<FaultKind, number>;
}

/** Mutable counters behind `AtlasSimulator.counters`; reads are snapshots. */
export class RequestCounters {
  private requests = 0;
  private readonly byPath = new Map<string, number>();
  private readonly byStatus = new Map<number, number>();
  private challenges = 0;
  private authFailures = 0;
  private tokensIssued = 0;
  private faults = emptyFaults();

  request(): void {
    this.requests++;
  }

  path(key: string): void {
    this.byPath.set(key, (this.byPath.get(key) ?? 0) + 1);
  }

  status(status: number): void {
    this.byStatus.set(status, (this.byStatus.get(status) ?? 0) + 1);
  }

  challenge(): void {
    this.challenges++;
  }

  authFailure(): void {
    this.authFailures++;
  }

  tokenIssued(): void {
    this.tokensIssued++;
  }

  fault(kind: FaultKind): void {
    this.faults[kind]++;
  }

  /** A copy of the counters, safe to keep and compare. */
  snapshot(): SimulatorCounters {
    return {
      requests: this.requests,
      byPath: Object.fromEntries(this.byPath),
      byStatus: Object.fromEntries([...this.byStatus].map(([status, count]) => [String(status), count])),
      challenges: this.challenges,
      authFailures: this.authFailures,
      tokensIssued: this.tokensIssued,
      faults: { ...this.faults },
    };
  }

  reset(): void {
    this.requests = 0;
    this.byPath.clear();
    this.byStatus.clear();
    this.challenges = 0;
    this.authFailures = 0;
    this.tokensIssued = 0;
    this.faults = emptyFaults();
  }
}
