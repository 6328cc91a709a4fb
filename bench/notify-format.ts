import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { silentLogger } from '../shared/logger.js';
import type { Alert } from '../shared/notify/alert.js';
import { fingerprintDigest } from '../shared/notify/fingerprint-digest.js';
import type { FormatContext } from '../shared/notify/format-context.js';
import { prepareEntries } from '../shared/notify/prepare-entries.js';
import { generateAlertMix } from './support/alert-mix.js';
import { median, renderTable } from './support/table.js';

/**
 * Alert formatting: the first step of every notifier (`prepareEntries`: subject, Chatbot JSON, email
 * text, attributes, size fitting, then the validator) over alerts the default pack raises on the
 * benchmark's event mix, on one thread, in batches of the size the poller publishes. Reports alerts per
 * second of CPU time and CPU milliseconds per alert (the process's CPU, garbage collection included),
 * the median of the timed runs after a warm-up run, and wall-clock throughput next to it.
 */

export interface NotifyFormatBenchOptions {
  /** Alerts per run. */
  alerts?: number;
  /** Timed runs; the median is reported. */
  runs?: number;
}

export interface NotifyFormatBenchResult {
  alerts: number;
  /** Entries the validator accepted in the last run: every alert, unless formatting has a bug. */
  prepared: number;
  runs: number;
  /** Median CPU time of a run, in milliseconds. */
  medianCpuMs: number;
  cpuMsPerAlert: number;
  /** Alerts per second of CPU time. */
  alertsPerSecond: number;
  /** Alerts per second of wall-clock time. */
  alertsPerWallSecond: number;
  /** Mean bytes of an entry's message. */
  meanMessageBytes: number;
}

/** Alerts per publish call: the poller hands a notifier the alerts of one claimed batch. */
const BATCH = 100;
/** Formatting as the poller does for current Atlas. */
const CONTEXT: FormatContext = {
  now: Date.UTC(2024, 2, 19),
  console: { flavor: 'atlas-v2', baseUrl: 'https://cloud.mongodb.com' },
};

/**
 * Formats the alerts `runs + 1` times (the first warms the JIT up and is not counted) and returns the
 * figures.
 *
 * @example
 * ```ts
 * const result = await runNotifyFormatBenchmark({ alerts: 10_000, runs: 5 });
 * ```
 */
export async function runNotifyFormatBenchmark(
  options: NotifyFormatBenchOptions = {},
): Promise<NotifyFormatBenchResult> {
  const count = options.alerts ?? 10_000;
  const runs = options.runs ?? 5;
  const alerts = await generateAlertMix({ count, seed: 7 });
  const cpuTimes: number[] = [];
  const wallTimes: number[] = [];
  let prepared = 0;
  let messageBytes = 0;
  for (let run = 0; run <= runs; run++) {
    const timing = formatAll(alerts);
    if (run > 0) {
      cpuTimes.push(timing.cpuMs);
      wallTimes.push(timing.wallMs);
    }
    prepared = timing.prepared;
    messageBytes = timing.messageBytes;
  }
  const medianCpuMs = median(cpuTimes);
  return {
    alerts: alerts.length,
    prepared,
    runs,
    medianCpuMs: Math.round(medianCpuMs * 10) / 10,
    cpuMsPerAlert: Math.round((medianCpuMs / alerts.length) * 10_000) / 10_000,
    alertsPerSecond: Math.round((alerts.length / medianCpuMs) * 1000),
    alertsPerWallSecond: Math.round((alerts.length / median(wallTimes)) * 1000),
    meanMessageBytes: Math.round(messageBytes / Math.max(1, prepared)),
  };
}

function formatAll(alerts: readonly Alert[]): {
  cpuMs: number;
  wallMs: number;
  prepared: number;
  messageBytes: number;
} {
  let prepared = 0;
  let messageBytes = 0;
  const startedCpu = process.cpuUsage();
  const started = performance.now();
  for (let offset = 0; offset < alerts.length; offset += BATCH) {
    const batch = prepareEntries(alerts.slice(offset, offset + BATCH), {
      context: CONTEXT,
      entryId: (alert, index) => `alert-${fingerprintDigest(alert.fingerprint)}-${index}`,
      logger: silentLogger,
    });
    prepared += batch.prepared.length;
    for (const { entry } of batch.prepared) messageBytes += entry.Message.length;
  }
  const wallMs = performance.now() - started;
  const cpu = process.cpuUsage(startedCpu);
  return { cpuMs: (cpu.user + cpu.system) / 1000, wallMs, prepared, messageBytes };
}

/**
 * The result as a table.
 *
 * @example
 * ```ts
 * process.stdout.write(notifyFormatTable(await runNotifyFormatBenchmark()));
 * ```
 */
export function notifyFormatTable(result: NotifyFormatBenchResult): string {
  return renderTable(
    ['alerts', 'valid entries', 'CPU ms per alert', 'alerts/s (CPU)', 'alerts/s (wall)', 'message bytes'],
    [
      [
        result.alerts.toLocaleString('en-US'),
        result.prepared.toLocaleString('en-US'),
        result.cpuMsPerAlert.toFixed(4),
        result.alertsPerSecond.toLocaleString('en-US'),
        result.alertsPerWallSecond.toLocaleString('en-US'),
        result.meanMessageBytes.toLocaleString('en-US'),
      ],
    ],
    0,
  );
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const alerts = Number(process.argv[2] ?? 10_000);
  const result = await runNotifyFormatBenchmark({ alerts });
  process.stdout.write(
    `alert formatting (prepareEntries), one thread, Node ${process.version}, batches of ${BATCH}, median of ${result.runs} runs\n`,
  );
  process.stdout.write(notifyFormatTable(result));
  process.stdout.write(`${JSON.stringify({ benchmark: 'notify-format', result })}\n`);
}
