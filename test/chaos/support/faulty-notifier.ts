import type { Alert } from '../../../shared/notify/alert.js';
import type {
  Notifier,
  PublishFailed,
  PublishOptions,
  PublishResult,
} from '../../../shared/notify/notifier.js';

/**
 * The notifier port around a real notifier (the outbox in the chaos run): fails some alerts as SNS
 * throttling would (retryable, nothing delivered), now and then a whole call as an outage would, and
 * passes the others through. It counts every alert the real notifier reports as sent, by fingerprint:
 * a count above one is an alert sent twice.
 */
export class FaultyNotifier implements Notifier {
  readonly #inner: Notifier;
  readonly #random: () => number;
  /** Chance that one alert of a call fails. */
  alertFailureRate = 0;
  /** Chance that a whole call fails. */
  outageRate = 0;
  /**
   * Chance that an alert is reported sent but never delivered: a broken notifier, for checking that
   * the chaos checks catch one. Never set in the seeds themselves.
   */
  lieRate = 0;
  /** Alerts reported sent but not delivered. */
  lies = 0;
  /** Deliveries by fingerprint. */
  readonly delivered = new Map<string, number>();
  /** Alerts failed on purpose one by one (outages not included). */
  failuresInjected = 0;
  /** Whole calls failed on purpose. */
  outagesInjected = 0;

  constructor(inner: Notifier, random: () => number) {
    this.#inner = inner;
    this.#random = random;
  }

  async publish(alerts: readonly Alert[], options?: PublishOptions): Promise<PublishResult[]> {
    const outage = this.outageRate > 0 && this.#random() < this.outageRate;
    if (outage) this.outagesInjected += 1;
    const results: Array<PublishResult | undefined> = alerts.map((alert) => {
      if (outage) return throttled(alert, true);
      if (this.lieRate > 0 && this.#random() < this.lieRate) {
        this.lies += 1;
        return { status: 'sent', fingerprint: alert.fingerprint };
      }
      if (!(this.alertFailureRate > 0 && this.#random() < this.alertFailureRate)) return undefined;
      this.failuresInjected += 1;
      return throttled(alert, false);
    });
    const passed = alerts.filter((_, index) => results[index] === undefined);
    const passedResults = passed.length === 0 ? [] : await this.#inner.publish(passed, options);
    let next = 0;
    return results.map((result) => {
      if (result !== undefined) return result;
      const inner = passedResults[next++] as PublishResult;
      if (inner.status === 'sent') {
        this.delivered.set(inner.fingerprint, (this.delivered.get(inner.fingerprint) ?? 0) + 1);
      }
      return inner;
    });
  }

  /** Whether the alert with this fingerprint was delivered at least once. */
  wasDelivered(fingerprint: string): boolean {
    return (this.delivered.get(fingerprint) ?? 0) > 0;
  }
}

function throttled(alert: Alert, outage: boolean): PublishFailed {
  return {
    status: 'failed',
    fingerprint: alert.fingerprint,
    retryable: true,
    code: outage ? 'InternalError' : 'Throttling',
    message: outage ? 'injected outage of the notifier' : 'injected throttling of one alert',
  };
}
