import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { parse } from 'yaml';
import { AtlasClient } from '../../shared/atlas/index.js';
import { DEFAULT_CONNECTION } from '../../shared/poll/index.js';
import { type AuditExportTarget, auditExportTargets, checkAuditExports } from '../audit-bucket-check.js';
import { formatCheckJson, formatCheckReport } from '../check-report.js';
import type { CheckOptions } from '../commands/check.js';
import { formatDuration } from '../duration-option.js';
import { CommandFailed, ExitCode } from '../errors.js';
import { type PollCommandIo, processCommandIo } from '../poll-command-io.js';
import { type CheckResult, runPreflight } from '../preflight-checks.js';
import { resolveRunSettings } from '../run-options.js';
import { exitCodeForFailures } from '../tick-exit-code.js';

/**
 * Runs `check` (see `registerCheckCommand`): its flags, the command they were given to, and the
 * process's streams and environment unless `io` replaces them.
 */
export async function checkAction(
  options: CheckOptions,
  command: Command,
  io?: PollCommandIo,
): Promise<void> {
  const { stdout, env, cwd } = io ?? processCommandIo();
  const settings = await resolveRunSettings({
    options,
    flavorGiven: command.getOptionValueSource('flavor') === 'cli',
    env,
    cwd,
  });
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(new Error('timeout')), options.timeout);
  const named = settings.connections.some(({ connection }) => connection.name !== DEFAULT_CONNECTION);
  const results: CheckResult[] = [];
  try {
    // One connection after the other, each with its own credentials, within one --timeout.
    for (const { connection, atlas } of settings.connections) {
      const client = new AtlasClient(atlas);
      try {
        const checked = await runPreflight({
          client,
          config: {
            ...settings.config,
            atlas: { baseUrl: connection.baseUrl, flavor: connection.flavor },
            sources: connection.sources,
            timing: connection.timing,
            inventory: connection.inventory,
          },
          credentialsKind: atlas.credentials.kind,
          credentialsId:
            atlas.credentials.kind === 'digest' ? atlas.credentials.publicKey : atlas.credentials.clientId,
          signal: deadline.signal,
        });
        results.push(
          ...(named ? checked.map((result) => ({ ...result, connection: connection.name })) : checked),
        );
      } finally {
        await client.close();
      }
    }
    const targets = await auditTargets(options, cwd);
    if (targets.length > 0) {
      const { createS3BucketLister } = await import('../s3-bucket-lister.js');
      const { lister, problem } = await createS3BucketLister(env);
      try {
        results.push(
          ...(await checkAuditExports({
            targets,
            lister,
            ...(problem === undefined ? {} : { listerProblem: problem }),
            signal: deadline.signal,
          })),
        );
      } finally {
        lister?.close();
      }
    }
  } catch (error) {
    if (!deadline.signal.aborted) throw error;
    throw new CommandFailed(
      `gave up after ${formatDuration(options.timeout)} (--timeout): Atlas or S3 answered too slowly; run again with a longer --timeout`,
      ExitCode.network,
    );
  } finally {
    clearTimeout(timer);
  }
  stdout.write(options.json ? formatCheckJson(results) : formatCheckReport(results));
  const failures = results.filter((result) => result.status === 'fail');
  // As run and fetch exit: 3 when Atlas refused the credentials, their permissions or this address.
  if (failures.length > 0) throw new CommandFailed('', exitCodeForFailures(failures));
}

/**
 * The audit log exports to check: those the config file turns on (read tolerantly, so a file the
 * settings accepted is never refused here), the bucket of `--audit-bucket` filling in any they do not
 * name; or, with no export in the file, the one `--audit-bucket` and `--audit-prefix` describe, for
 * the projects of `--project`.
 */
async function auditTargets(options: CheckOptions, cwd: string): Promise<AuditExportTarget[]> {
  let fromFile: AuditExportTarget[] = [];
  if (options.config !== undefined) {
    try {
      fromFile = auditExportTargets(parse(await readFile(resolve(cwd, options.config), 'utf8')));
    } catch {
      // The settings were read already: a file they accepted and this cannot read holds no export.
    }
  }
  const bucket = options.auditBucket;
  if (fromFile.length > 0) {
    return fromFile.map((target) =>
      target.bucket === undefined && bucket !== undefined ? { ...target, bucket } : target,
    );
  }
  if (bucket === undefined) return [];
  return [
    {
      bucket,
      prefix: (options.auditPrefix ?? '').replace(/^\/+|\/+$/g, ''),
      projectIds: options.project ?? [],
    },
  ];
}
