import type { CheckResult } from './preflight-checks.js';

/** Where one connection's audit log export writes, as its settings (or the flags) say. */
export interface AuditExportTarget {
  /** The connection the settings are under; none for flags alone. */
  connection?: string;
  /** The bucket; unknown when neither the settings nor `--audit-bucket` name it. */
  bucket?: string;
  /** The export's key prefix (a project's `auditLogs.projects[].prefix`, or `--audit-prefix`), without slashes at either end. */
  prefix: string;
  /** The projects whose folders `{prefix}/{groupId}/` to look in; none: anywhere under the prefix. */
  projectIds: readonly string[];
  /** The one project whose own prefix `prefix` is (the settings' `auditLogs.projects[]`). */
  project?: string;
}

/** Lists a bucket: the first keys under a prefix. */
export interface BucketLister {
  /**
   * Up to `max` keys under `prefix`, with when they were written.
   *
   * @throws what the store throws: the bucket missing, access refused, the network.
   */
  list(
    bucket: string,
    prefix: string,
    max: number,
    signal: AbortSignal,
  ): Promise<Array<{ key: string; lastModified?: Date | undefined }>>;
  /** Lets go of its connections. */
  close(): void;
}

/**
 * The audit log exports a configuration file turns on, read tolerantly: one per project of the
 * top-level `auditLogs.projects` (the connection `default`) and of every `connections[].auditLogs.projects`
 * whose `enabled` is not `false`, each looked for under the project's own `prefix`. The bucket is the
 * stack's (its `AuditLogBucketName` output), so it comes from `--audit-bucket`. Anything else in the
 * file is left to the settings' own checks.
 *
 * @example
 * ```ts
 * auditExportTargets({ auditLogs: { projects: [{ projectId: '64b5…', prefix: 'atlas/payments' }] } });
 * // [{ connection: 'default', prefix: 'atlas/payments', projectIds: [], project: '64b5…' }]
 * ```
 */
export function auditExportTargets(settings: unknown): AuditExportTarget[] {
  const connections = field(settings, 'connections');
  const blocks = [
    { name: 'default', auditLogs: field(settings, 'auditLogs') },
    ...(Array.isArray(connections)
      ? connections.map((connection: unknown, index) => {
          const name = field(connection, 'name');
          return {
            name: typeof name === 'string' ? name : `connections[${index}]`,
            auditLogs: field(connection, 'auditLogs'),
          };
        })
      : []),
  ];
  return blocks.flatMap(({ name, auditLogs }): AuditExportTarget[] => {
    const projects = field(auditLogs, 'projects');
    if (field(auditLogs, 'enabled') === false || !Array.isArray(projects)) return [];
    return projects.flatMap((project: unknown): AuditExportTarget[] => {
      const projectId = field(project, 'projectId');
      const prefix = field(project, 'prefix');
      if (typeof projectId !== 'string' || typeof prefix !== 'string') return [];
      return [{ connection: name, prefix: trimSlashes(prefix), projectIds: [], project: projectId }];
    });
  });
}

/** Options of {@link checkAuditExports}. */
export interface CheckAuditExportsOptions {
  targets: readonly AuditExportTarget[];
  /** Lists the bucket; undefined when no S3 client can be made (the reason in `listerProblem`). */
  lister: BucketLister | undefined;
  listerProblem?: string;
  signal: AbortSignal;
}

/**
 * Checks that each audit log export's bucket has received an object from Atlas under the export's
 * prefix (in each project's folder, `{prefix}/{groupId}/`, when the projects are named). Atlas
 * documents no name for the object it writes when an export is set up (the push-based export's state
 * turns `BUCKET_VERIFIED`), so any object there counts: `ok` naming the newest key seen; `warn`, with
 * what to do, for an empty prefix, an unknown bucket, or a bucket that cannot be listed. Never fails
 * the check: the export is set up in Atlas, after the deploy.
 *
 * @example
 * ```ts
 * const results = await checkAuditExports({ targets, lister: new S3BucketLister(s3), signal });
 * ```
 */
export async function checkAuditExports(options: CheckAuditExportsOptions): Promise<CheckResult[]> {
  const results: CheckResult[] = [];
  for (const target of options.targets) {
    const base = {
      check: 'audit-log',
      ...(target.connection === undefined ? {} : { connection: target.connection }),
    } as const;
    if (target.bucket === undefined) {
      results.push({
        ...base,
        status: 'warn',
        subject: `audit log export under ${target.prefix === '' ? 'the bucket root' : `${target.prefix}/`}`,
        message:
          'no bucket to look in: give --audit-bucket NAME, the bucket the stack made for the audit logs (in its outputs)',
      });
      continue;
    }
    const folders =
      target.projectIds.length === 0
        ? [{ prefix: withSlash(target.prefix), project: target.project }]
        : target.projectIds.map((groupId) => ({
            prefix: withSlash(target.prefix === '' ? groupId : `${target.prefix}/${groupId}`),
            project: groupId,
          }));
    for (const folder of folders) {
      const subject = `audit log export s3://${target.bucket}/${folder.prefix}`;
      if (options.lister === undefined) {
        results.push({
          ...base,
          status: 'warn',
          subject,
          message: `cannot list the bucket: ${options.listerProblem ?? 'no S3 client'}`,
        });
        continue;
      }
      try {
        const objects = await options.lister.list(target.bucket, folder.prefix, 50, options.signal);
        const newest = [...objects].sort(
          (a, b) => (b.lastModified?.getTime() ?? 0) - (a.lastModified?.getTime() ?? 0),
        )[0];
        results.push(
          newest === undefined
            ? {
                ...base,
                status: 'warn',
                subject,
                message: `no object yet: Atlas writes one once the export is set up and has access to the bucket. Run the steps of audit-export plan${folder.project === undefined ? '' : ` --project ${folder.project}`}; if they ran, the role Atlas assumes may not trust its account and external id (auditLogs settings) or may lack s3:PutObject`,
              }
            : {
                ...base,
                status: 'ok',
                subject,
                message: `Atlas writes here: ${newest.key}${newest.lastModified === undefined ? '' : `, ${newest.lastModified.toISOString()}`}`,
              },
        );
      } catch (error) {
        if (options.signal.aborted) throw error;
        results.push({
          ...base,
          status: 'warn',
          subject,
          message: `cannot list the bucket: ${describeListError(error)}`,
        });
      }
    }
  }
  return results;
}

/** What a listing failure means, and what to do about it. */
function describeListError(error: unknown): string {
  const name = error instanceof Error ? error.name : '';
  const message = error instanceof Error ? error.message : String(error);
  if (name === 'NoSuchBucket') return 'no such bucket: check --audit-bucket against the stack outputs';
  if (name === 'AccessDenied' || name === 'Forbidden' || /access denied/i.test(message)) {
    return `access denied: these AWS credentials need s3:ListBucket on the bucket (${message})`;
  }
  if (name === 'CredentialsProviderError' || /credential/i.test(message)) {
    return `no AWS credentials: set AWS_PROFILE, or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (${message})`;
  }
  return `${name === '' || name === 'Error' ? '' : `${name}: `}${message}`;
}

function field(value: unknown, key: string): unknown {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)[key]
    : undefined;
}

function trimSlashes(prefix: string): string {
  return prefix.replace(/^\/+|\/+$/g, '');
}

function withSlash(prefix: string): string {
  return prefix === '' ? '' : `${prefix}/`;
}
