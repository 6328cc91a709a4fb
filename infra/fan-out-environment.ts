import {
  FAN_OUT_CONFIG_ENV,
  type FanOutRuntimeConfig,
  fanOutRuntimeSchema,
} from '../shared/fan-out/fan-out-settings.js';
import type { FanOutSettings } from './fan-out-settings.js';
import type { ExtraEnvironment } from './poller-environment.js';

/**
 * The longest URL the source queue can have: at synth it is a CloudFormation token. A FIFO queue name
 * is at most 80 characters, `.fifo` included; the host is the longest a partition and region give.
 */
const LONGEST_QUEUE_URL = `https://sqs.us-gov-west-1.amazonaws.com.cn/123456789012/${'q'.repeat(75)}.fifo`;

export interface FanOutEnvironmentOptions {
  /** The validated `fanOut` setting, in mode `on` or `automatic`. */
  settings: FanOutSettings & { mode: FanOutRuntimeConfig['mode'] };
  /** The source queue's URL, usually a token. */
  queueUrl: string;
  /** The schedule's period (`timing.scheduleMinutes`): the dispatcher names a tick by it. */
  schedulePeriodSeconds: number;
  /** Serialises a value that holds tokens, such as `Stack.of(scope).toJsonString`. */
  toJsonString: (value: unknown) => string;
}

/**
 * The dispatcher's and worker's extra variable, `ATLAS_AUDIT_ALERTS_FAN_OUT` (their run-time fan-out
 * settings as JSON), as deployed and at its longest once the queue URL is known: the poller's 4 KB
 * check counts the longest (see `pollerEnvironment`).
 *
 * @throws {z.ZodError} only if the deploy schema ever accepted a value the run-time schema rejects.
 * @example
 * ```ts
 * const environment = fanOutEnvironment({ settings: config.fanOut, queueUrl: queue.queueUrl,
 *   schedulePeriodSeconds: config.timing.scheduleMinutes * 60,
 *   toJsonString: (value) => Stack.of(this).toJsonString(value) });
 * ```
 */
export function fanOutEnvironment(options: FanOutEnvironmentOptions): ExtraEnvironment {
  const { settings } = options;
  const runtime = (queueUrl: string): FanOutRuntimeConfig => ({
    queueUrl,
    mode: settings.mode,
    automaticAboveSources: settings.automaticAboveSources,
    maxConcurrencyPerOrg: settings.maxConcurrencyPerOrg,
    schedulePeriodSeconds: options.schedulePeriodSeconds,
  });
  const longest = fanOutRuntimeSchema.parse(runtime(LONGEST_QUEUE_URL));
  return {
    variables: { [FAN_OUT_CONFIG_ENV]: options.toJsonString(runtime(options.queueUrl)) },
    longest: { [FAN_OUT_CONFIG_ENV]: JSON.stringify(longest) },
  };
}
