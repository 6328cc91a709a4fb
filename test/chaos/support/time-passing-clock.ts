import type { Clock } from '../../../shared/clock.js';
import type { TestClock } from '../../poll/support/test-clock.js';

/**
 * A clock on the test clock's time whose `sleep` moves the test clock forward by the wait and returns
 * at once: a retry after `Retry-After: 5` or a latency spike of the simulator takes no real time, but
 * five seconds pass for everything on the test clock (leases, the tick's deadline, nonce expiry).
 * A sleep whose signal aborts, before or while the time passes, rejects with the signal's reason.
 */
export function timePassingClock(clock: TestClock): Clock {
  return {
    now: () => clock.now(),
    sleep: async (ms, signal) => {
      signal?.throwIfAborted();
      if (ms > 0) clock.advance(ms);
      signal?.throwIfAborted();
    },
  };
}
