import { spawnSync } from 'node:child_process';
import { createReadStream, createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { createGzip } from 'node:zlib';
import { emptyAuditCounts, readAuditObject } from '../shared/audit-log/index.js';
import { lambdaHeapOptions } from '../shared/lambda-heap.js';

/**
 * Reading a database audit log object as the object source reads it: a synthetic object of a given
 * size (audit messages of the mix an Atlas cluster writes: authentications, authorization checks,
 * user and role changes, drops), written to a file first, then streamed from it in 64 KiB chunks, as
 * an S3 body arrives, through `readAuditObject`, in a fresh process for each size, with the heap limits
 * of a 256 MiB Lambda function. The object's text is made in another process: the function receives
 * bytes from a socket and makes no text of its own, and text made in the reading process, with no
 * wait for input between chunks, adds garbage of its own to the heap. Reported per size: peak RSS, CPU
 * time, and lines per second of CPU (with the CPU time of streaming the file alone, measured in the
 * same way, taken off). Target: flat memory, the 1 GiB object's peak RSS within 10% of the 10 MiB
 * one's. `--gzip` writes the objects gzip-compressed, as Atlas does; sizes are of the text.
 */

export interface AuditLogRun {
  bytes: number;
  lines: number;
  events: number;
  peakRssMiB: number;
  cpuMs: number;
  /** CPU time of streaming the same file without reading its lines. */
  streamCpuMs: number;
  /**
   * The most heap still in use after a full collection, forced ten times along the object (in a run of
   * its own, since forced collections lower the peak RSS): what the reading keeps, without the garbage
   * V8 lets pile up before it collects.
   */
  liveHeapMiB: number;
  linesPerCpuSecond: number;
}

const MIB = 1024 * 1024;
const CHUNK_BYTES = 64 * 1024;
const ATYPES = [
  'authCheck',
  'authCheck',
  'authCheck',
  'authenticate',
  'createUser',
  'grantRolesToUser',
  'dropCollection',
  'logout',
];

/** One audit message; `index` makes every line different, as connection numbers and times do. */
function line(index: number): string {
  const atype = ATYPES[index % ATYPES.length] ?? 'authCheck';
  return `{"atype":"${atype}","ts":{"$date":"${new Date(1_795_827_600_000 + index).toISOString()}"},"uuid":{"$binary":"hG1k7Zl1Q0mS0uTzv0x0Qw==","$type":"04"},"local":{"ip":"192.168.248.8","port":27017},"remote":{"ip":"203.0.113.${index % 250}","port":${30_000 + (index % 30_000)}},"users":[{"user":"app-user-${index % 40}","db":"admin"}],"roles":[{"role":"readWrite","db":"payments"}],"param":{"command":"find","ns":"payments.charges","args":{"find":"charges","filter":{"customer":"c${index}"},"$db":"payments"}},"result":${index % 17 === 0 ? 13 : 0}}\n`;
}

/** The synthetic object, `bytes` long (to the line), in chunks. */
async function* syntheticObject(bytes: number): AsyncGenerator<Uint8Array> {
  let written = 0;
  let index = 0;
  while (written < bytes) {
    const parts: string[] = [];
    let size = 0;
    while (size < CHUNK_BYTES && written + size < bytes) {
      const text = line(index++);
      parts.push(text);
      size += text.length;
    }
    written += size;
    yield Buffer.from(parts.join(''));
  }
}

/** Writes the synthetic object of `bytes` to `path`, gzip-compressed or not. */
async function writeObject(path: string, bytes: number, gzip: boolean): Promise<void> {
  const text = Readable.from(syntheticObject(bytes), { objectMode: false });
  if (gzip) await pipeline(text, createGzip(), createWriteStream(path));
  else await pipeline(text, createWriteStream(path));
}

/** In this process: read (or only stream) the object in the file at `path`, and print the figures. */
async function measureHere(path: string, bytes: number, mode: ChildMode): Promise<void> {
  const streamOnly = mode === 'stream';
  const body = createReadStream(path, { highWaterMark: CHUNK_BYTES });
  const collect = (globalThis as { gc?: () => void }).gc;
  let liveHeapBytes = 0;
  let nextSample = bytes / 10;
  const cpu = process.cpuUsage();
  const counts = emptyAuditCounts();
  let events = 0;
  let lines = 0;
  if (streamOnly) {
    for await (const chunk of body as AsyncIterable<Buffer>) lines += chunk.length > 0 ? 1 : 0;
  } else {
    const context = { groupId: '5f0000000000000000000003', clusterName: 'payments-main', hostname: 'h1' };
    for await (const batch of readAuditObject(body, { context, counts })) {
      events += batch.length;
      if (mode === 'live' && collect !== undefined && counts.bytes >= nextSample) {
        nextSample += bytes / 10;
        collect();
        liveHeapBytes = Math.max(liveHeapBytes, process.memoryUsage().heapUsed);
      }
    }
    lines = counts.lines;
  }
  const used = process.cpuUsage(cpu);
  process.stdout.write(
    JSON.stringify({
      lines,
      events,
      bytes: counts.bytes,
      cpuMs: (used.user + used.system) / 1000,
      peakRssMiB: process.resourceUsage().maxRSS / 1024,
      liveHeapMiB: liveHeapBytes / MIB,
    }),
  );
}

type ChildMode = 'read' | 'stream' | 'live';

function inFreshProcess(path: string, bytes: number, mode: ChildMode): Record<string, number> {
  const result = spawnSync(
    process.execPath,
    [
      // The heap limits the Lambda runtime gives a 256 MiB function, the stack's default.
      ...lambdaHeapOptions(256),
      ...(mode === 'live' ? ['--expose-gc'] : []),
      '--import',
      'tsx',
      fileURLToPath(import.meta.url),
      '--child',
      path,
      String(bytes),
      mode,
    ],
    { encoding: 'utf8', maxBuffer: 16 * MIB },
  );
  if (result.status !== 0)
    throw new Error(`The audit log benchmark's child failed: ${result.stderr.slice(-2000)}`);
  return JSON.parse(result.stdout) as Record<string, number>;
}

/**
 * Writes a synthetic object of each size to a temporary file and reads it in fresh processes.
 *
 * @example
 * ```ts
 * const runs = await runAuditLogBenchmark([10 * 2 ** 20, 2 ** 30]);
 * ```
 */
export async function runAuditLogBenchmark(
  sizes: readonly number[],
  options: { gzip?: boolean } = {},
): Promise<AuditLogRun[]> {
  const folder = mkdtempSync(join(tmpdir(), 'audit-log-bench-'));
  try {
    const runs: AuditLogRun[] = [];
    for (const bytes of sizes) {
      const path = join(folder, `object-${bytes}.log${options.gzip === true ? '.gz' : ''}`);
      await writeObject(path, bytes, options.gzip === true);
      const read = inFreshProcess(path, bytes, 'read');
      const streamed = inFreshProcess(path, bytes, 'stream');
      const live = inFreshProcess(path, bytes, 'live');
      rmSync(path);
      const cpuMs = read.cpuMs ?? 0;
      const streamCpuMs = streamed.cpuMs ?? 0;
      const lines = read.lines ?? 0;
      runs.push({
        bytes: read.bytes ?? 0,
        lines,
        events: read.events ?? 0,
        peakRssMiB: Math.round((read.peakRssMiB ?? 0) * 10) / 10,
        cpuMs: Math.round(cpuMs),
        streamCpuMs: Math.round(streamCpuMs),
        linesPerCpuSecond: Math.round(lines / Math.max((cpuMs - streamCpuMs) / 1000, 0.001)),
        liveHeapMiB: Math.round((live.liveHeapMiB ?? 0) * 10) / 10,
      });
    }
    return runs;
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

if (process.argv[2] === '--child') {
  await measureHere(process.argv[3] ?? '', Number(process.argv[4]), (process.argv[5] ?? 'read') as ChildMode);
} else if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { values } = parseArgs({
    options: { quick: { type: 'boolean', default: false }, gzip: { type: 'boolean', default: false } },
  });
  const sizes = values.quick ? [10 * MIB, 100 * MIB] : [10 * MIB, 1024 * MIB];
  const gzip = values.gzip;
  const runs = await runAuditLogBenchmark(sizes, { gzip });
  process.stdout.write(
    `audit log objects${gzip ? ' (gzip)' : ''} read as a stream from a file, Node ${process.version}\n`,
  );
  process.stdout.write(
    'size        lines       events     peak RSS   live heap  CPU        file CPU   lines/s of CPU\n',
  );
  for (const run of runs) {
    process.stdout.write(
      `${`${(run.bytes / MIB).toFixed(0)} MiB`.padEnd(12)}${String(run.lines).padEnd(12)}${String(run.events).padEnd(11)}${`${run.peakRssMiB} MiB`.padEnd(11)}${`${run.liveHeapMiB} MiB`.padEnd(11)}${`${run.cpuMs} ms`.padEnd(11)}${`${run.streamCpuMs} ms`.padEnd(11)}${run.linesPerCpuSecond}\n`,
    );
  }
  const [small, large] = runs;
  const ratio = small !== undefined && large !== undefined ? large.peakRssMiB / small.peakRssMiB : Number.NaN;
  const liveRatio =
    small !== undefined && large !== undefined
      ? large.liveHeapMiB / Math.max(small.liveHeapMiB, 0.1)
      : Number.NaN;
  process.stdout.write(
    `peak RSS, largest over smallest: ${ratio.toFixed(3)} (target at most 1.10): ${ratio <= 1.1 ? 'met' : 'not met'}\n`,
  );
  process.stdout.write(`live heap, largest over smallest: ${liveRatio.toFixed(3)}\n`);
  process.stdout.write(`${JSON.stringify({ benchmark: 'audit-log', gzip, runs })}\n`);
}
