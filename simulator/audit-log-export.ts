import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { createPrng } from './prng.js';

/** One message to write into a host's audit log, before the fields every line carries are added. */
export interface AuditLogMessage {
  /** When mongod wrote it. */
  at: number;
  atype: string;
  /** The connection's user, `user@db` (`mallory@admin`); none for an unauthenticated connection. */
  user?: string;
  /** The client's address. */
  remote?: string;
  param?: Record<string, unknown>;
  /** 0 (the default) for success, else the error code. */
  result?: number;
}

/** A cluster whose hosts write audit logs, and what they write. */
export interface AuditLogCluster {
  name: string;
  /** Its hosts; each message goes to one of them, chosen by the seed. */
  hosts: readonly string[];
  messages: readonly AuditLogMessage[];
}

export interface WriteAuditLogExportOptions {
  /** The folder that stands for buckets: objects go to `<folder>/<bucket>/<key>` (see `FolderObjectStore`). */
  folder: string;
  bucket: string;
  /** The log integration's prefix: keys are `{prefix}/{cluster}/{hostname}/mongodb-audit-log/{from}-{to}.log.gz`. */
  prefix: string;
  clusters: readonly AuditLogCluster[];
  /** How much of the log an object holds, as Atlas batches it. Default 60 s. */
  objectSeconds?: number;
  /**
   * Atlas delivers at least once: each object is also written again under a second name with this
   * chance (default 0). And a line may be cut at an object's end and continue in the next one.
   */
  duplicateChance?: number;
  /** Seeds the choice of host and of duplicates. Default 1. */
  seed?: number;
}

/** The objects written, by key, with how many lines each holds. */
export interface WrittenAuditLogExport {
  objects: { key: string; lines: number; duplicateOf?: string }[];
}

/**
 * Writes audit log objects the way Atlas's log integration does: per host, gzip objects of a minute
 * (by default) of the host's audit log under `{prefix}/{cluster}/{hostname}/mongodb-audit-log/`, one
 * audit message a line in relaxed extended JSON (`atype`, `ts` with `$date`, `local`, `remote`,
 * `users`, `roles`, `param`, `result`), and, at the chance given, the same object again under another
 * name, as at-least-once delivery does. Deterministic for a seed.
 *
 * @example
 * ```ts
 * writeAuditLogExport({ folder, bucket: 'atlas-logs', prefix: 'exports/payments', clusters: [{ name: 'payments-main', hosts, messages }] });
 * ```
 */
export function writeAuditLogExport(options: WriteAuditLogExportOptions): WrittenAuditLogExport {
  const random = createPrng(options.seed ?? 1);
  const objectMs = (options.objectSeconds ?? 60) * 1_000;
  const written: WrittenAuditLogExport['objects'] = [];
  for (const cluster of options.clusters) {
    const byObject = new Map<string, { host: string; from: number; lines: string[] }>();
    for (const message of [...cluster.messages].sort((a, b) => a.at - b.at)) {
      const host = cluster.hosts[Math.floor(random() * cluster.hosts.length)] ?? cluster.hosts[0] ?? 'host';
      const from = Math.floor(message.at / objectMs) * objectMs;
      const id = `${host}\u0000${from}`;
      const object = byObject.get(id) ?? { host, from, lines: [] };
      object.lines.push(auditLine(message));
      byObject.set(id, object);
    }
    for (const { host, from, lines } of byObject.values()) {
      const name = `${Math.floor(from / 1_000)}-${Math.floor((from + objectMs) / 1_000)}`;
      const key = `${options.prefix.replace(/\/+$/, '')}/${cluster.name}/${host}/mongodb-audit-log/${name}.log.gz`;
      const body = gzipSync(`${lines.join('\n')}\n`);
      write(options.folder, options.bucket, key, body);
      written.push({ key, lines: lines.length });
      if (random() < (options.duplicateChance ?? 0)) {
        const again = key.replace(/\.log\.gz$/, '-redelivered.log.gz');
        write(options.folder, options.bucket, again, body);
        written.push({ key: again, lines: lines.length, duplicateOf: key });
      }
    }
  }
  return { objects: written };
}

/** One audit message as mongod writes it. */
export function auditLine(message: AuditLogMessage): string {
  const [user, db] = (message.user ?? '').split('@');
  return JSON.stringify({
    atype: message.atype,
    ts: { $date: new Date(message.at).toISOString().replace('Z', '+00:00') },
    local: { ip: '192.168.248.8', port: 27017 },
    remote: { ip: message.remote ?? '203.0.113.7', port: 40_000 + (message.at % 20_000) },
    users: user === undefined || user === '' ? [] : [{ user, db: db ?? 'admin' }],
    roles: user === undefined || user === '' ? [] : [{ role: 'readWrite', db: 'app' }],
    param: message.param ?? {},
    result: message.result ?? 0,
  });
}

function write(folder: string, bucket: string, key: string, body: Buffer): void {
  const path = join(folder, bucket, key);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, body);
}
