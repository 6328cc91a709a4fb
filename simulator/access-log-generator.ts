import { SimulatorOptionsError } from './errors.js';
import { createPrng } from './prng.js';
import type { NewAccessLog, SimulatorData } from './simulator-data.js';

/** How `generateAccessLogs` fills one cluster's access history with bulk traffic (benchmarks, load tests). */
export interface GenerateAccessLogsOptions {
  groupId: string;
  clusterName: string;
  /** How many authentication attempts to add. */
  count: number;
  /** PRNG seed: the same seed and options give the same lines. Default 1. */
  seed?: number;
  /** The lines' times fall in `[endMs - spanMs, endMs]`. Default one hour. */
  spanMs?: number;
  /** Default: the simulator clock's now. */
  endMs?: number;
  /** The share of failed attempts (a wrong password), 0 to 1. Default 0.02. */
  failureShare?: number;
}

/** What `generateAccessLogs` added. */
export interface GeneratedAccessLogs {
  count: number;
  failures: number;
  /** ISO-8601 times of the oldest and newest line, when any. */
  oldest: string | undefined;
  newest: string | undefined;
}

const USERS = ['app-writer', 'app-reader', 'reporting-svc', 'etl-batch', 'backup-agent'];
const ADDRESSES = ['10.20.1.15', '10.20.1.16', '10.20.1.17', '10.20.3.40', '10.20.3.41', '10.20.7.9'];

/**
 * Adds `count` routine authentication attempts to one dedicated cluster, reproducibly: a few
 * application users from a few private addresses, mostly successes, a share of wrong passwords.
 *
 * @throws {SimulatorOptionsError} for a count, span or share out of range.
 * @throws {SimulatorEventError} for an unknown project or cluster, or a shared-tier or Flex cluster.
 * @example
 * ```ts
 * generateAccessLogs(data, { groupId, clusterName: 'payments-main', count: 20_000 }, clock.now());
 * ```
 */
export function generateAccessLogs(
  data: SimulatorData,
  options: GenerateAccessLogsOptions,
  now: number,
): GeneratedAccessLogs {
  const { count } = options;
  const spanMs = options.spanMs ?? 3_600_000;
  const share = options.failureShare ?? 0.02;
  if (!Number.isInteger(count) || count < 0 || !(spanMs >= 0) || !(share >= 0 && share <= 1)) {
    throw new SimulatorOptionsError(
      `generateAccessLogs needs a whole count >= 0, spanMs >= 0 and failureShare from 0 to 1 (got count ${count}, spanMs ${spanMs}, failureShare ${share}).`,
    );
  }
  const random = createPrng(options.seed ?? 1);
  const endMs = options.endMs ?? now;
  const lines: NewAccessLog[] = [];
  let failures = 0;
  let oldest = Number.POSITIVE_INFINITY;
  let newest = Number.NEGATIVE_INFINITY;
  for (let i = 0; i < count; i++) {
    const timestamp = Math.floor(endMs - random() * spanMs);
    const authResult = random() >= share;
    if (!authResult) failures += 1;
    oldest = Math.min(oldest, timestamp);
    newest = Math.max(newest, timestamp);
    lines.push({
      username: USERS[Math.floor(random() * USERS.length)] as string,
      ipAddress: ADDRESSES[Math.floor(random() * ADDRESSES.length)] as string,
      authResult,
      timestamp,
    });
  }
  data.addAccessLogs(options.groupId, options.clusterName, lines, now);
  return {
    count,
    failures,
    oldest: count === 0 ? undefined : new Date(oldest).toISOString(),
    newest: count === 0 ? undefined : new Date(newest).toISOString(),
  };
}
