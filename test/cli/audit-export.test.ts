import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { registerAuditExportCommand } from '../../cli/commands/audit-export.js';
import { PROJECT_ROOT } from '../infra/support/workspace.js';
import { runPollCommand } from './poll-command-harness.js';

const PROJECT = '5f4e3d2c1b0a998877665544';
const OTHER = '6a5b4c3d2e1f0099887766aa';
const ROLE = 'arn:aws:iam::123456789012:role/atlas-audit-logs';

function plan(args: readonly string[]) {
  return runPollCommand(['audit-export', 'plan', ...args], {
    register: registerAuditExportCommand,
    env: {},
    cwd: PROJECT_ROOT,
  });
}

interface PlannedRequest {
  operationId: string;
  method: string;
  url: string;
  body: Record<string, unknown>;
}

interface Plan {
  kind: string;
  bucket: string;
  roleArnKnown: boolean;
  projects: Array<{
    groupId: string;
    prefixPath: string;
    steps: Array<{ id: string; command: string; request?: PlannedRequest }>;
  }>;
}

/** The Atlas Admin API document, beside the repository as the event catalog's generator reads it. */
const OPENAPI = fileURLToPath(new URL('../../../shared/atlas/openapi-v2.yaml', import.meta.url));

/**
 * The operations the plan asks for, as the Admin API document (openapi-v2.yaml) gives them: kept here
 * so the plan is checked against them in every checkout; the last test compares them with the document
 * where it is present.
 */
const DOCUMENTED: Readonly<Record<string, { path: string; method: string }>> = {
  createGroupCloudProviderAccess: {
    path: '/api/atlas/v2/groups/{groupId}/cloudProviderAccess',
    method: 'POST',
  },
  authorizeGroupCloudProviderAccessRole: {
    path: '/api/atlas/v2/groups/{groupId}/cloudProviderAccess/{roleId}',
    method: 'PATCH',
  },
  createGroupLogIntegration: { path: '/api/atlas/v2/groups/{groupId}/logIntegrations', method: 'POST' },
  createGroupPushBasedLogExport: {
    path: '/api/atlas/v2/groups/{groupId}/pushBasedLogExport',
    method: 'POST',
  },
};

type OperationsByPath = Record<string, Record<string, { operationId?: string }>>;

describe('audit-export plan', () => {
  it('prints the Atlas requests of each project in order, with the paths and methods the Admin API document gives', async () => {
    // Prepare
    const args = ['--project', `${PROJECT},${OTHER}`, '--bucket', 'my-atlas-audit-logs', '--role-arn', ROLE];

    // Act
    const run = await plan([...args, '--json']);

    // Assess
    expect(run.code).toBe(0);
    const printed = JSON.parse(run.stdout) as Plan;
    expect(printed.projects.map((project) => project.groupId)).toEqual([PROJECT, OTHER]);
    const asked = new Set<string>();
    for (const project of printed.projects) {
      expect(project.steps.map((step) => step.id)).toEqual([
        'register-role',
        'settings',
        'authorize-role',
        'export',
        'check',
      ]);
      for (const step of project.steps) {
        if (step.request === undefined) continue;
        const documented = DOCUMENTED[step.request.operationId];
        expect(documented, step.request.operationId).toBeDefined();
        asked.add(step.request.operationId);
        const path = (documented?.path ?? '')
          .replace('{groupId}', project.groupId)
          .replace('{roleId}', '<roleId>');
        expect(step.request.url).toBe(`https://cloud.mongodb.com${path}`);
        expect(step.request.method).toBe(documented?.method);
      }
    }
    expect([...asked].sort()).toEqual([
      'authorizeGroupCloudProviderAccessRole',
      'createGroupCloudProviderAccess',
      'createGroupLogIntegration',
    ]);
  });

  it.skipIf(!existsSync(OPENAPI))(
    'asks for operations whose paths and methods are those of the Admin API document (skipped when it is absent)',
    () => {
      // Act
      const { paths } = parse(readFileSync(OPENAPI, 'utf8'), { maxAliasCount: -1 }) as {
        paths: OperationsByPath;
      };
      const found: Record<string, { path: string; method: string }> = {};
      for (const [path, methods] of Object.entries(paths)) {
        for (const [method, spec] of Object.entries(methods)) {
          const id = spec?.operationId;
          if (id !== undefined && id in DOCUMENTED) found[id] = { path, method: method.toUpperCase() };
        }
      }

      // Assess
      expect(found).toEqual(DOCUMENTED);
    },
    // Parsing the 4 MB document takes seconds, more on a busy machine.
    180_000,
  );

  it('gives each project its own prefix, and the log integration the bucket, the role and the audit log types', async () => {
    // Act
    const run = await plan([
      '--project',
      PROJECT,
      '--bucket',
      'my-atlas-audit-logs',
      '--prefix',
      '/exports/atlas/',
      '--role-arn',
      ROLE,
      '--json',
    ]);

    // Assess
    const printed = JSON.parse(run.stdout) as Plan;
    const project = printed.projects[0];
    expect(project?.prefixPath).toBe(`exports/atlas/${PROJECT}`);
    const steps = new Map(project?.steps.map((step) => [step.id, step]));
    expect(steps.get('register-role')?.request?.body).toEqual({ providerName: 'AWS' });
    expect(steps.get('authorize-role')?.request?.body).toEqual({
      providerName: 'AWS',
      iamAssumedRoleArn: ROLE,
    });
    expect(steps.get('export')?.request?.body).toEqual({
      type: 'S3_LOG_EXPORT',
      bucketName: 'my-atlas-audit-logs',
      iamRoleId: '<roleId>',
      prefixPath: `exports/atlas/${PROJECT}`,
      logTypes: ['MONGOD_AUDIT', 'MONGOS_AUDIT'],
    });
    expect(steps.get('settings')?.command).toMatch(/^auditLogs\.projects\[\]: /);
    expect(steps.get('settings')?.command).toContain(
      `projectId: ${PROJECT}, prefix: "exports/atlas/${PROJECT}"`,
    );
  });

  it('asks for the push-based log export with the body its create operation requires', async () => {
    // Act
    const run = await plan([
      '--project',
      PROJECT,
      '--bucket',
      'my-atlas-audit-logs',
      '--export',
      'push-based',
      '--json',
    ]);

    // Assess
    const printed = JSON.parse(run.stdout) as Plan;
    const exported = printed.projects[0]?.steps.find((step) => step.id === 'export');
    expect(exported?.request?.operationId).toBe('createGroupPushBasedLogExport');
    expect(exported?.request?.body).toEqual({
      bucketName: 'my-atlas-audit-logs',
      iamRoleId: '<roleId>',
      prefixPath: `atlas-audit-logs/${PROJECT}`,
    });
    expect(printed.roleArnKnown).toBe(false);
    const authorize = printed.projects[0]?.steps.find((step) => step.id === 'authorize-role');
    expect(authorize?.request?.body).toEqual({ providerName: 'AWS', iamAssumedRoleArn: '<auditLogRoleArn>' });
  });

  it('prints numbered steps for people, with the trust values to keep and what to replace', async () => {
    // Act
    const run = await plan(['--project', PROJECT, '--bucket', 'my-atlas-audit-logs']);

    // Assess
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`Project ${PROJECT}, objects under atlas-audit-logs/${PROJECT}/`);
    expect(run.stdout).toContain(`1. Register a Cloud Provider Access role for AWS`);
    expect(run.stdout).toContain(`atlas cloudProviders accessRoles aws create --projectId ${PROJECT}`);
    expect(run.stdout).toContain('atlasAWSAccountArn and atlasAssumedRoleExternalId');
    expect(run.stdout).toContain(
      `POST https://cloud.mongodb.com/api/atlas/v2/groups/${PROJECT}/logIntegrations`,
    );
    expect(run.stdout).toContain('Replace <roleId>');
    expect(run.stdout).toContain('<auditLogRoleArn> with the ARN');
  });

  it.each([
    [['--bucket', 'b-bucket'], /needs --project/],
    [['--project', PROJECT], /needs --bucket/],
    [['--project', PROJECT, '--bucket', 'Not_A_Bucket'], /is not an S3 bucket name/],
    [['--project', PROJECT, '--bucket', 'my-bucket', '--prefix', 'a//b'], /is not a key prefix/],
    [['--project', 'nope', '--bucket', 'my-bucket'], /is not an Atlas id/],
    [
      ['--project', PROJECT, '--bucket', 'my-bucket', '--role-arn', 'arn:aws:s3:::bucket'],
      /ARN of an IAM role/,
    ],
    [['--project', PROJECT, '--bucket', 'my-bucket', '--export', 'ftp'], /Allowed choices/],
  ])('refuses %j with a usage error that says what to give', async (args, message) => {
    // Act
    const run = await plan(args);

    // Assess
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(message);
    expect(run.stdout).toBe('');
  });
});
