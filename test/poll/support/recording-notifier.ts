import type { Alert } from '../../../shared/notify/alert.js';
import type { Notifier, PublishOptions, PublishResult } from '../../../shared/notify/notifier.js';

/** A planned failure: the next `count` alerts published (of those `only` picks) fail this way. */
export interface PlannedFailure {
  count: number;
  retryable: boolean;
  code?: string;
  /** The alerts the failure applies to; the others go through. Default: every alert. */
  only?: (alert: Alert) => boolean;
}

/**
 * A notifier that keeps every alert it delivers, in order, and fails the alerts a test plans to fail:
 * the notifier port implemented the simplest way, as the console and outbox notifiers are.
 */
export class RecordingNotifier implements Notifier {
  readonly delivered: Alert[] = [];
  readonly calls: number[] = [];
  #failures: PlannedFailure[] = [];
  /** Runs before each publish call returns, to interleave work with a publish in flight. */
  beforeReturn: (() => Promise<void> | void) | undefined;

  /** Makes the next `count` alerts fail. */
  failNext(failure: PlannedFailure): void {
    this.#failures.push({ ...failure });
  }

  async publish(alerts: readonly Alert[], options?: PublishOptions): Promise<PublishResult[]> {
    this.calls.push(alerts.length);
    const results: PublishResult[] = [];
    for (const alert of alerts) {
      const planned = this.#failures[0];
      const failure = planned?.only === undefined || planned.only(alert) ? planned : undefined;
      if (options?.signal?.aborted) {
        results.push({
          status: 'failed',
          fingerprint: alert.fingerprint,
          retryable: true,
          code: 'ABORTED',
          message: 'aborted',
        });
      } else if (failure !== undefined) {
        failure.count -= 1;
        if (failure.count <= 0) this.#failures.shift();
        results.push({
          status: 'failed',
          fingerprint: alert.fingerprint,
          retryable: failure.retryable,
          code: failure.code ?? (failure.retryable ? 'Throttling' : 'INVALID_ENTRY'),
          message: 'planned failure',
        });
      } else {
        this.delivered.push(alert);
        results.push({ status: 'sent', fingerprint: alert.fingerprint });
      }
    }
    await this.beforeReturn?.();
    return results;
  }

  /** Fingerprints delivered, in order. */
  fingerprints(): string[] {
    return this.delivered.map((alert) => alert.fingerprint);
  }

  /** Ids of the events behind the delivered alerts, in order. */
  eventIds(): string[] {
    return this.delivered.flatMap((alert) => alert.events.map((event) => String(event.id)));
  }
}
