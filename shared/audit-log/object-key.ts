/** Where an object sits in the export, read off its key. */
export interface AuditObjectKey {
  clusterName: string;
  hostname: string;
  /** The log type folder: `mongodb-audit-log` or `mongos-audit-log` for audit logs. */
  logType: string;
}

/** The log type folders that hold audit logs (the others hold mongod and mongos diagnostic logs). */
export const AUDIT_LOG_TYPES: ReadonlySet<string> = new Set(['mongodb-audit-log', 'mongos-audit-log']);

/**
 * Reads an exported log object's key, `{prefix}/{cluster}/{hostname}/{logType}/...` as Atlas writes it.
 *
 * @returns undefined when the key is not under `prefix`, has too few parts, or its log type is not an
 *   audit log (a diagnostic log exported to the same bucket): such objects are skipped.
 * @example
 * ```ts
 * parseAuditObjectKey('atlas-logs/payments-main/payments-main-shard-00-01.abcde.mongodb.net/mongodb-audit-log/2026-11-28T01:00:00.log.gz', 'atlas-logs');
 * // { clusterName: 'payments-main', hostname: 'payments-main-shard-00-01.abcde.mongodb.net', logType: 'mongodb-audit-log' }
 * ```
 */
export function parseAuditObjectKey(key: string, prefix: string): AuditObjectKey | undefined {
  const base = prefix.replace(/\/+$/, '');
  const rest = base === '' ? key : key.startsWith(`${base}/`) ? key.slice(base.length + 1) : undefined;
  if (rest === undefined) return undefined;
  const [clusterName, hostname, logType, ...file] = rest.split('/');
  if (clusterName === undefined || hostname === undefined || logType === undefined || file.length === 0)
    return undefined;
  if (clusterName === '' || hostname === '' || !AUDIT_LOG_TYPES.has(logType)) return undefined;
  return { clusterName, hostname, logType };
}
