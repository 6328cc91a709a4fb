import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateBucketCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import S3rver from 's3rver';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { auditExportTargets, checkAuditExports } from '../../cli/audit-bucket-check.js';
import { registerCheckCommand } from '../../cli/commands/check.js';
import { createS3BucketLister } from '../../cli/s3-bucket-lister.js';
import { type AtlasSimulator, startSimulator } from '../../simulator/index.js';
import { runPollCommand } from './poll-command-harness.js';

/** In the default seed: a project, and an Organization Owner key (throwaway values). */
const PROJECT = '64b5ca17f1a3d40012ab3d11';
const OTHER_PROJECT = '64b5ca17f1a3d40012ab3d13';
const OWNER_ENV = {
  MONGODB_ATLAS_PUBLIC_API_KEY: 'qkzvbgyt',
  MONGODB_ATLAS_PRIVATE_API_KEY: 'fake-private-key-ci-automation',
};
const BUCKET = 'atlas-audit-logs';
const EMPTY_BUCKET = 'atlas-audit-logs-empty';

describe('auditExportTargets', () => {
  it('reads each project of the enabled auditLogs, top level and per connection, with its own prefix', () => {
    // Prepare
    const settings = {
      auditLogs: { projects: [{ projectId: OTHER_PROJECT, prefix: 'atlas/other' }] },
      connections: [
        {
          name: 'prod',
          auditLogs: {
            enabled: true,
            projects: [
              {
                projectId: PROJECT,
                prefix: '/atlas/payments/',
                atlasAWSAccountArn: 'arn:aws:iam::123456789012:root',
              },
              { projectId: 42, prefix: 'not/an/id' },
            ],
          },
        },
        { name: 'staging', auditLogs: { enabled: false, projects: [{ projectId: PROJECT, prefix: 's' }] } },
        { name: 'dev', sources: { orgIds: ['5f4e3d2c1b0a998877665544'] } },
        'not a connection',
      ],
    };

    // Act
    const targets = auditExportTargets(settings);

    // Assess
    expect(targets).toEqual([
      { connection: 'default', prefix: 'atlas/other', projectIds: [], project: OTHER_PROJECT },
      { connection: 'prod', prefix: 'atlas/payments', projectIds: [], project: PROJECT },
    ]);
  });

  it('finds nothing in settings without audit logs, or with audit logs of another shape', () => {
    expect(auditExportTargets(undefined)).toEqual([]);
    expect(auditExportTargets({ sources: { projectIds: [PROJECT] } })).toEqual([]);
    expect(auditExportTargets({ connections: { prod: { auditLogs: { enabled: true } } } })).toEqual([]);
    expect(auditExportTargets({ connections: [{ auditLogs: { projects: 'all' } }] })).toEqual([]);
  });
});

describe('the audit log export check, against an S3 emulator', () => {
  let server: S3rver;
  let directory: string;
  let endpoint: string;
  let s3: S3Client;
  let sim: AtlasSimulator;

  beforeAll(async () => {
    directory = await mkdtemp(join(tmpdir(), 'atlas-audit-alerts-check-s3-'));
    server = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory });
    const { port } = await server.run();
    endpoint = `http://127.0.0.1:${port}`;
    s3 = new S3Client({
      endpoint,
      region: 'eu-west-1',
      forcePathStyle: true,
      credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
      requestChecksumCalculation: 'WHEN_REQUIRED',
    });
    await s3.send(new CreateBucketCommand({ Bucket: BUCKET }));
    await s3.send(new CreateBucketCommand({ Bucket: EMPTY_BUCKET }));
    await s3.send(
      new PutObjectCommand({
        Bucket: BUCKET,
        Key: `atlas/${PROJECT}/payments-main/payments-main-shard-00-00.abcde.mongodb.net/mongodb-audit-log/1795827600-1795827660.log.gz`,
        Body: 'written by the export',
      }),
    );
    sim = await startSimulator();
  });
  afterAll(async () => {
    s3?.destroy();
    await server?.close();
    await sim?.stop();
    if (directory !== undefined) await rm(directory, { recursive: true, force: true });
  });
  beforeEach(() => {
    // The S3 client takes its credentials from the process, as the command's does.
    vi.stubEnv('AWS_ACCESS_KEY_ID', 'S3RVER');
    vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'S3RVER');
    vi.stubEnv('AWS_PROFILE', '');
  });
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  const s3Env = () => ({ AWS_ENDPOINT_URL_S3: endpoint, AWS_REGION: 'eu-west-1' });

  it('is ok for a project folder Atlas wrote to, and warns with what to do for one it did not', async () => {
    // Prepare
    const { lister } = await createS3BucketLister(s3Env());

    // Act
    const results = await checkAuditExports({
      targets: [
        { connection: 'prod', bucket: BUCKET, prefix: 'atlas', projectIds: [PROJECT, OTHER_PROJECT] },
      ],
      lister,
      signal: new AbortController().signal,
    }).finally(() => lister?.close());

    // Assess
    expect(results.map(({ status, subject }) => [status, subject])).toEqual([
      ['ok', `audit log export s3://${BUCKET}/atlas/${PROJECT}/`],
      ['warn', `audit log export s3://${BUCKET}/atlas/${OTHER_PROJECT}/`],
    ]);
    expect(results[0]?.message).toContain('/mongodb-audit-log/1795827600-1795827660.log.gz');
    expect(results[1]?.message).toContain(`audit-export plan --project ${OTHER_PROJECT}`);
    expect(results.every((result) => result.check === 'audit-log' && result.connection === 'prod')).toBe(
      true,
    );
  });

  it('warns, saying what to do, for a bucket that does not exist and for an export with no bucket named', async () => {
    // Prepare
    const { lister } = await createS3BucketLister(s3Env());

    // Act
    const results = await checkAuditExports({
      targets: [
        { bucket: 'no-such-bucket', prefix: 'atlas', projectIds: [] },
        { connection: 'lab', prefix: 'lab', projectIds: [] },
      ],
      lister,
      signal: new AbortController().signal,
    }).finally(() => lister?.close());

    // Assess
    expect(results.map(({ status }) => status)).toEqual(['warn', 'warn']);
    expect(results[0]?.message).toMatch(/no such bucket: check --audit-bucket/);
    expect(results[1]?.message).toMatch(/give --audit-bucket NAME/);
  });

  it('warns when no region is set, rather than failing on the first request', async () => {
    // Prepare
    vi.stubEnv('AWS_REGION', '');
    vi.stubEnv('AWS_DEFAULT_REGION', '');
    vi.stubEnv('AWS_CONFIG_FILE', join(directory, 'no-config'));

    // Act
    const made = await createS3BucketLister({ AWS_ENDPOINT_URL_S3: endpoint });

    // Assess
    expect(made.lister).toBeUndefined();
    expect(made.problem).toMatch(/no AWS region is set: export AWS_REGION=/);
  });

  it('runs within check: the bucket of --audit-bucket under --audit-prefix, after the Atlas checks', async () => {
    // Act
    const found = await runPollCommand(
      [
        'check',
        '--base-url',
        sim.baseUrl,
        '--project',
        PROJECT,
        '--audit-bucket',
        BUCKET,
        '--audit-prefix',
        'atlas',
        '--json',
      ],
      { register: registerCheckCommand, env: { ...OWNER_ENV, ...s3Env() }, cwd: process.cwd() },
    );
    const empty = await runPollCommand(
      [
        'check',
        '--base-url',
        sim.baseUrl,
        '--project',
        PROJECT,
        '--audit-bucket',
        EMPTY_BUCKET,
        '--audit-prefix',
        'atlas',
      ],
      { register: registerCheckCommand, env: { ...OWNER_ENV, ...s3Env() }, cwd: process.cwd() },
    );

    // Assess
    expect(found.code, found.stderr).toBe(0);
    const checks = (JSON.parse(found.stdout) as { checks: Array<{ check: string; status: string }> }).checks;
    expect(checks.at(-1)).toMatchObject({ check: 'audit-log', status: 'ok' });
    expect(checks.slice(0, -1).every((check) => check.check !== 'audit-log')).toBe(true);
    expect(empty.code, empty.stderr).toBe(0);
    expect(empty.stdout).toMatch(
      new RegExp(`^warn audit log export s3://${EMPTY_BUCKET}/atlas/${PROJECT}/: no object yet`, 'm'),
    );
  });

  it('reads the exports from the deploy settings of --config, each project under its own prefix', async () => {
    // Prepare
    const config = join(directory, 'audit-logs.yaml');
    await writeFile(
      config,
      [
        'sources:',
        `  projectIds: ["${PROJECT}"]`,
        'auditLogs:',
        '  projects:',
        `    - projectId: "${PROJECT}"`,
        `      prefix: atlas/${PROJECT}`,
        '      atlasAWSAccountArn: arn:aws:iam::536727724300:root',
        '      atlasAssumedRoleExternalId: 3f5d9c2e-8a41-4c6b-9e0f-2b7d1a6c4e88',
        '',
      ].join('\n'),
    );

    // Act
    const run = await runPollCommand(
      ['check', '--config', config, '--base-url', sim.baseUrl, '--audit-bucket', BUCKET, '--json'],
      { register: registerCheckCommand, env: { ...OWNER_ENV, ...s3Env() }, cwd: process.cwd() },
    );

    // Assess
    expect(run.code, run.stderr).toBe(0);
    const checks = (JSON.parse(run.stdout) as { checks: Array<Record<string, unknown>> }).checks;
    expect(checks.filter((check) => check.check === 'audit-log')).toEqual([
      expect.objectContaining({
        status: 'ok',
        connection: 'default',
        subject: `audit log export s3://${BUCKET}/atlas/${PROJECT}/`,
      }),
    ]);
  });
});
