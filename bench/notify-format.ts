import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { silentLogger } from '../shared/logger.js';
import type { Alert } from '../shared/notify/alert.js';
import { fingerprintDigest } from '../shared/notify/fingerprint-digest.js';
import type { FormatContext } from '../shared/notify/format-context.js';
import { prepareEntries } from '../shared/notify/prepare-entries.js';
import { buildSnsEntry } from '../shared/notify/sns-entry.js';
import { generateAlertMix } from './support/alert-mix.js';
import { median, renderTable } from './support/table.js';

/**
 * Alert formatting, on one thread, over alerts the default pack raises on the benchmark's event mix:
 * building each alert's SNS entry (`buildSnsEntry`: subject, Chatbot JSON, email text, attributes, size
 * fitting), and the first step of every notifier (`prepareEntries`: the same, then the validator, in
 * batches of the size the poller publishes). Reports CPU milliseconds per alert and alerts per second
 * of CPU time (the process's CPU, garbage collection included), the median of the timed runs after a
 * warm-up run, and wall-clock throughput next to it.
 */

export interface NotifyFormatBenchOptions {
  /** Alerts per run. */
  alerts?: number;
  /** Timed runs; the median is reported. */
  runs?: number;
}

/** The figures of one step, the median of the timed runs. */
export interface FormatStepFigures {
  /** Median CPU time of a run, in milliseconds. */
  medianCpuMs: number;
  cpuMsPerAlert: number;
  /** Alerts per second of CPU time. */
  alertsPerSecond: number;
  /** Alerts per second of wall-clock time. */
  alertsPerWallSecond: number;
}

export interface NotifyFormatBenchResult {
  alerts: number;
  /** Entries the validator accepted in the last run: every alert, unless formatting has a bug. */
  prepared: number;
  runs: number;
  /** `buildSnsEntry` alone: the entry of each alert. */
  build: FormatStepFigures;
  /** `prepareEntries`: the entries, then the validator on each, as every notifier does. */
  prepare: FormatStepFigures;
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
  const times = {
    build: { cpu: [] as number[], wall: [] as number[] },
    prepare: { cpu: [] as number[], wall: [] as number[] },
  };
  let prepared = 0;
  let messageBytes = 0;
  for (let run = 0; run <= runs; run++) {
    const build = timed(() => buildAll(alerts));
    const prepare = timed(() => prepareAll(alerts));
    if (run > 0) {
      times.build.cpu.push(build.cpuMs);
      times.build.wall.push(build.wallMs);
      times.prepare.cpu.push(prepare.cpuMs);
      times.prepare.wall.push(prepare.wallMs);
    }
    prepared = prepare.result.prepared;
    messageBytes = prepare.result.messageBytes;
  }
  return {
    alerts: alerts.length,
    prepared,
    runs,
    build: figures(alerts.length, times.build.cpu, times.build.wall),
    prepare: figures(alerts.length, times.prepare.cpu, times.prepare.wall),
    meanMessageBytes: Math.round(messageBytes / Math.max(1, prepared)),
  };
}

function figures(
  alerts: number,
  cpuTimes: readonly number[],
  wallTimes: readonly number[],
): FormatStepFigures {
  const medianCpuMs = median(cpuTimes);
  return {
    medianCpuMs: Math.round(medianCpuMs * 10) / 10,
    cpuMsPerAlert: Math.round((medianCpuMs / alerts) * 10_000) / 10_000,
    alertsPerSecond: Math.round((alerts / medianCpuMs) * 1000),
    alertsPerWallSecond: Math.round((alerts / median(wallTimes)) * 1000),
  };
}

function timed<T>(work: () => T): { cpuMs: number; wallMs: number; result: T } {
  const startedCpu = process.cpuUsage();
  const started = performance.now();
  const result = work();
  const wallMs = performance.now() - started;
  const cpu = process.cpuUsage(startedCpu);
  return { cpuMs: (cpu.user + cpu.system) / 1000, wallMs, result };
}

function buildAll(alerts: readonly Alert[]): number {
  let bytes = 0;
  alerts.forEach((alert, index) => {
    bytes += buildSnsEntry(alert, { id: entryId(alert, index % BATCH), context: CONTEXT }).Message.length;
  });
  return bytes;
}

function prepareAll(alerts: readonly Alert[]): { prepared: number; messageBytes: number } {
  let prepared = 0;
  let messageBytes = 0;
  for (let offset = 0; offset < alerts.length; offset += BATCH) {
    const batch = prepareEntries(alerts.slice(offset, offset + BATCH), {
      context: CONTEXT,
      entryId,
      logger: silentLogger,
    });
    prepared += batch.prepared.length;
    for (const { entry } of batch.prepared) messageBytes += entry.Message.length;
  }
  return { prepared, messageBytes };
}

/** The entry id the outbox notifier gives. */
function entryId(alert: Alert, index: number): string {
  return `alert-${fingerprintDigest(alert.fingerprint)}-${index}`;
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
  const row = (step: string, figures: FormatStepFigures): string[] => [
    step,
    result.alerts.toLocaleString('en-US'),
    figures.cpuMsPerAlert.toFixed(4),
    figures.alertsPerSecond.toLocaleString('en-US'),
    figures.alertsPerWallSecond.toLocaleString('en-US'),
  ];
  return renderTable(
    ['step', 'alerts', 'CPU ms per alert', 'alerts/s (CPU)', 'alerts/s (wall)'],
    [row('buildSnsEntry', result.build), row('prepareEntries (+ validator)', result.prepare)],
  );
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const alerts = Number(process.argv[2] ?? 10_000);
  const result = await runNotifyFormatBenchmark({ alerts });
  process.stdout.write(
    `alert formatting, one thread, Node ${process.version}, batches of ${BATCH}, median of ${result.runs} runs\n`,
  );
  process.stdout.write(notifyFormatTable(result));
  process.stdout.write(
    `${result.prepared.toLocaleString('en-US')} valid entries, ${result.meanMessageBytes.toLocaleString('en-US')} message bytes each on average\n`,
  );
  process.stdout.write(`${JSON.stringify({ benchmark: 'notify-format', result })}\n`);
}
