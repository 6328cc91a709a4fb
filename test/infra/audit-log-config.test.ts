import { describe, expect, it } from 'vitest';
import { parseDeployConfig } from '../../infra/config.js';
import { resolveDeployConfig } from '../../infra/config-source.js';
import { DeployConfigError } from '../../infra/errors.js';
import { problemsOf } from './support/deploy-problems.js';
import { createTestWorkspace } from './support/workspace.js';

const ORG = '5f4e3d2c1b0a998877665544';
const PROD_ORG = '5f4e3d2c1b0a998877665545';
const PROJECT = '6a1b2c3d4e5f60718293a4b5';
const OTHER_PROJECT = '6a1b2c3d4e5f60718293a4b6';
const ATLAS_ARN = 'arn:aws:iam::536727724300:root';
const EXTERNAL_ID = '3f5d9c2e-8a41-4c6b-9e0f-2b7d1a6c4e88';

const project = (overrides: Record<string, unknown> = {}) => ({
  projectId: PROJECT,
  prefix: 'atlas-logs/payments',
  atlasAWSAccountArn: ATLAS_ARN,
  atlasAssumedRoleExternalId: EXTERNAL_ID,
  ...overrides,
});

describe('parseDeployConfig auditLogs', () => {
  it('reads the audit log settings of the top-level connection and of a connection, with their defaults', () => {
    // Act
    const config = parseDeployConfig({
      input: {
        sources: { orgIds: [ORG] },
        auditLogs: { projects: [project()] },
        connections: [
          {
            name: 'prod',
            sources: { orgIds: [PROD_ORG] },
            auditLogs: {
              enabled: false,
              retentionDays: 30,
              encryption: 'kms',
              projects: [project({ projectId: OTHER_PROJECT, prefix: 'logs/' })],
            },
          },
        ],
      },
      origin: 'test settings',
    });

    // Assess
    expect(config.auditLogs).toEqual({
      enabled: true,
      retentionDays: 90,
      encryption: 's3-managed',
      projects: [project()],
    });
    expect(config.connections[0]?.auditLogs).toEqual({
      enabled: false,
      retentionDays: 30,
      encryption: 'kms',
      projects: [project({ projectId: OTHER_PROJECT, prefix: 'logs/' })],
    });
  });

  it('leaves audit logs out when no setting names them', () => {
    // Act
    const config = parseDeployConfig({ input: { sources: { orgIds: [ORG] } }, origin: 'test settings' });

    // Assess
    expect(config.auditLogs).toBeUndefined();
  });

  it('refuses values Atlas never gives, each at its path with what to copy', () => {
    // Act
    const problems = problemsOf({
      sources: { orgIds: [ORG] },
      auditLogs: {
        projects: [
          project({
            projectId: 'payments',
            prefix: '/atlas-logs',
            atlasAWSAccountArn: 'arn:aws:s3:::atlas',
            atlasAssumedRoleExternalId: 'x',
          }),
        ],
        retentionDays: 0,
        encryption: 'aws-kms',
      },
    });

    // Assess
    expect(problems.map((problem) => problem.path)).toEqual([
      'auditLogs.projects[0].projectId',
      'auditLogs.projects[0].prefix',
      'auditLogs.projects[0].atlasAWSAccountArn',
      'auditLogs.projects[0].atlasAssumedRoleExternalId',
      'auditLogs.retentionDays',
      'auditLogs.encryption',
    ]);
    expect(problems[2]?.message).toContain('atlasAWSAccountArn');
    expect(problems[3]?.message).toContain('atlasAssumedRoleExternalId');
  });

  it('refuses audit logs with no project, and an unknown setting in them', () => {
    // Act
    const problems = problemsOf({
      sources: { orgIds: [ORG] },
      auditLogs: { projects: [], bucketName: 'mine' },
    });

    // Assess
    expect(problems).toEqual([
      {
        path: 'auditLogs.projects',
        message: expect.stringContaining('must name at least one project'),
      },
      { path: 'auditLogs.bucketName', message: expect.stringContaining('is not a known setting') },
    ]);
  });

  it('refuses a project listed twice, and two projects under one prefix, at the second', () => {
    // Act
    const problems = problemsOf({
      sources: { orgIds: [ORG] },
      auditLogs: {
        projects: [project(), project({ projectId: OTHER_PROJECT, prefix: 'atlas-logs/payments/' })],
      },
      connections: [
        {
          name: 'prod',
          sources: { orgIds: [PROD_ORG] },
          auditLogs: { projects: [project({ prefix: 'elsewhere' })] },
        },
      ],
    });

    // Assess
    expect(problems).toEqual([
      {
        path: 'auditLogs.projects[1].prefix',
        message: expect.stringContaining('is the prefix of projects[0] too'),
      },
      {
        path: 'connections[0].auditLogs.projects[0].projectId',
        message: `project ${PROJECT} exports its audit logs to the bucket of connection "default" already: list each project once`,
      },
    ]);
  });

  it('refuses top-level audit logs when the top-level sources are not polled', () => {
    // Act
    const problems = problemsOf({
      auditLogs: { projects: [project()] },
      connections: [{ name: 'prod', sources: { orgIds: [PROD_ORG] } }],
    });

    // Assess
    expect(problems).toEqual([
      { path: 'auditLogs', message: expect.stringContaining('belongs to the connection default') },
    ]);
  });

  it('names the file, line and column of a wrong audit log setting in a configuration file', () => {
    // Prepare
    const workspace = createTestWorkspace();
    const file = workspace.write(
      'prod.yaml',
      [
        'sources:',
        `  orgIds: ["${ORG}"]`,
        'auditLogs:',
        '  projects:',
        `    - projectId: "${PROJECT}"`,
        '      prefix: atlas-logs',
        `      atlasAWSAccountArn: "${ATLAS_ARN}"`,
        '      atlasAssumedRoleExternalId: "?"',
        '',
      ].join('\n'),
    );

    // Act
    let error: unknown;
    try {
      resolveDeployConfig({ context: undefined, configFile: file, projectRoot: workspace.directory });
    } catch (caught) {
      error = caught;
    } finally {
      workspace.remove();
    }

    // Assess
    expect(error).toBeInstanceOf(DeployConfigError);
    expect((error as DeployConfigError).problems).toEqual([
      {
        path: 'auditLogs.projects[0].atlasAssumedRoleExternalId',
        message: expect.stringContaining('atlasAssumedRoleExternalId'),
        location: { file, line: 8, column: 7 },
      },
    ]);
  });
});
