import { afterAll, describe, expect, it } from 'vitest';
import { type DeployConfigInput, parseDeployConfig } from '../../infra/config.js';
import { resolveDeployConfig } from '../../infra/config-source.js';
import { deployedConnections } from '../../infra/deploy-connections.js';
import { DeployConfigError } from '../../infra/errors.js';
import { pollerSettings } from '../../infra/poller-environment.js';
import { settingLocator } from '../../infra/setting-positions.js';
import { effectiveConnections } from '../../shared/poll/connections.js';
import { pollerConfigSchema } from '../../shared/poll/poller-config.js';
import { problemsOf } from './support/deploy-problems.js';
import { createTestWorkspace, PROJECT_ROOT } from './support/workspace.js';

const PROD_ORG = '5f4e3d2c1b0a998877665544';
const DEV_ORG = '5f4e3d2c1b0a998877665545';
const OPS_ORG = '64b5c9e2f1a3d40012ab3c09';
const SECRET_ARN = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:atlas-development-AbCdEf';
const KEY_ARN = 'arn:aws:kms:eu-west-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab';

describe('parseDeployConfig connections', () => {
  it('reads each connection with the defaults of the top-level settings and credentials to create', () => {
    // Act
    const config = parseDeployConfig({
      input: {
        connections: [
          { name: 'production', sources: { orgIds: [PROD_ORG] } },
          {
            name: 'datacenter',
            flavor: 'ops-manager',
            baseUrl: 'https://opsmanager.example.com:8443',
            sources: { orgIds: [OPS_ORG], allProjectsOfOrgs: true },
            credentials: { secretArn: SECRET_ARN, kmsKeyArn: KEY_ARN },
            timing: { lagSeconds: 120 },
          },
        ],
      },
      origin: 'test settings',
    });

    // Assess
    expect(config.connections).toEqual([
      {
        name: 'production',
        flavor: 'atlas-v2',
        baseUrl: 'https://cloud.mongodb.com',
        sources: { orgIds: [PROD_ORG], projectIds: [], allProjectsOfOrgs: false },
        credentials: {},
        webhookSecret: {},
      },
      {
        name: 'datacenter',
        flavor: 'ops-manager',
        baseUrl: 'https://opsmanager.example.com:8443',
        sources: { orgIds: [OPS_ORG], projectIds: [], allProjectsOfOrgs: true },
        credentials: { secretArn: SECRET_ARN, kmsKeyArn: KEY_ARN },
        webhookSecret: {},
        timing: { lagSeconds: 120 },
      },
    ]);
  });

  it('refuses an organization or project under two connections, at the second place, naming the first', () => {
    // Act
    const problems = problemsOf({
      sources: { projectIds: ['6a5b4c3d2e1f009988776655'] },
      connections: [
        { name: 'production', sources: { orgIds: [PROD_ORG] } },
        {
          name: 'development',
          sources: { orgIds: [DEV_ORG, PROD_ORG], projectIds: ['6a5b4c3d2e1f009988776655'] },
        },
      ],
    });

    // Assess
    expect(problems).toEqual([
      {
        path: 'connections[1].sources.orgIds[1]',
        message: `organization ${PROD_ORG} is polled by connection "production" already: give each organization and project to one connection, whose credentials read it`,
      },
      {
        path: 'connections[1].sources.projectIds[0]',
        message:
          'project 6a5b4c3d2e1f009988776655 is polled by the top-level sources already: give each organization and project to one connection, whose credentials read it',
      },
    ]);
  });

  it('refuses a name given twice, and default beside top-level sources', () => {
    // Act
    const problems = problemsOf({
      sources: { orgIds: [PROD_ORG] },
      connections: [
        { name: 'default', sources: { orgIds: [DEV_ORG] } },
        { name: 'datacenter', sources: { orgIds: [OPS_ORG] } },
        { name: 'datacenter', sources: { projectIds: ['6a5b4c3d2e1f009988776655'] } },
      ],
    });

    // Assess
    expect(problems.map((problem) => problem.path)).toEqual(['connections[0].name', 'connections[2].name']);
    expect(problems[0]?.message).toContain(
      '"default" names the connection of the top-level atlas and sources',
    );
    expect(problems[1]?.message).toContain('connection "datacenter" is named twice (connections[1] too)');
  });

  it('reports a top-level id listed twice once, as listed twice', () => {
    // Act
    const problems = problemsOf({
      sources: { orgIds: [PROD_ORG, PROD_ORG] },
      connections: [{ name: 'development', sources: { orgIds: [DEV_ORG] } }],
    });

    // Assess
    expect(problems).toEqual([{ path: 'sources.orgIds[1]', message: `${PROD_ORG} is listed twice` }]);
  });

  it.each([
    {
      name: 'a connection with no source',
      connection: { name: 'production', sources: {} },
      problem: {
        path: 'connections[0].sources',
        message:
          'names no organization and no project: give the connection sources.orgIds or sources.projectIds, or remove it',
      },
    },
    {
      name: 'allProjectsOfOrgs without an organization',
      connection: {
        name: 'production',
        sources: { projectIds: ['6a5b4c3d2e1f009988776655'], allProjectsOfOrgs: true },
      },
      problem: {
        path: 'connections[0].sources.allProjectsOfOrgs',
        message: 'needs at least one org id in sources.orgIds',
      },
    },
    {
      name: 'a key for a secret the stack creates',
      connection: {
        name: 'production',
        sources: { orgIds: [PROD_ORG] },
        credentials: { kmsKeyArn: KEY_ARN },
      },
      problem: {
        path: 'connections[0].credentials.kmsKeyArn',
        message: 'only applies to an existing secret: set connections[0].credentials.secretArn too',
      },
    },
    {
      name: 'a secret named by less than its complete ARN',
      connection: {
        name: 'production',
        sources: { orgIds: [PROD_ORG] },
        credentials: { secretArn: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:atlas' },
      },
      problem: {
        path: 'connections[0].credentials.secretArn',
        message: expect.stringContaining('must be the complete ARN of a Secrets Manager secret'),
      },
    },
    {
      name: 'an ftp base URL',
      connection: {
        name: 'datacenter',
        baseUrl: 'ftp://opsmanager.example.com',
        sources: { orgIds: [OPS_ORG] },
      },
      problem: { path: 'connections[0].baseUrl', message: expect.stringContaining('must be an http(s) URL') },
    },
    {
      name: 'allowNone in a connection',
      connection: { name: 'production', sources: { orgIds: [PROD_ORG], allowNone: true } },
      problem: {
        path: 'connections[0].sources.allowNone',
        message: expect.stringContaining('is not a known setting'),
      },
    },
    {
      name: 'a name in capitals',
      connection: { name: 'Production', sources: { orgIds: [PROD_ORG] } },
      problem: {
        path: 'connections[0].name',
        message: expect.stringContaining('must be 1 to 32 characters'),
      },
    },
  ])('refuses $name, at its path', ({ connection, problem }) => {
    // Act
    const problems = problemsOf({ connections: [connection] });

    // Assess
    expect(problems).toEqual([problem]);
  });

  it('refuses two names that make the same CloudFormation names', () => {
    // Act
    const problems = problemsOf({
      connections: [
        { name: 'org-1', sources: { orgIds: [PROD_ORG] } },
        { name: 'org1', sources: { orgIds: [DEV_ORG] } },
      ],
    });

    // Assess
    expect(problems).toEqual([
      {
        path: 'connections[1].name',
        message: '"org1" and "org-1" give the same CloudFormation names (Org1): rename one',
      },
    ]);
  });

  it('refuses sources.allowNone when the connections name sources', () => {
    // Act
    const problems = problemsOf({
      sources: { allowNone: true },
      connections: [{ name: 'production', sources: { orgIds: [PROD_ORG] } }],
    });

    // Assess
    expect(problems).toEqual([
      {
        path: 'sources.allowNone',
        message:
          'is only for a deployment with no organization and no project, and its connections name some: remove it',
      },
    ]);
  });
});

describe('resolveDeployConfig connections in a file', () => {
  const workspace = createTestWorkspace();
  afterAll(() => workspace.remove());

  it('names the file, line and column of a source under two connections', () => {
    // Prepare
    const file = workspace.write(
      'estate.yaml',
      [
        'connections:',
        '  - name: production',
        '    sources:',
        `      orgIds: [${PROD_ORG}]`,
        '  - name: development',
        '    sources:',
        '      orgIds:',
        `        - ${DEV_ORG}`,
        `        - ${PROD_ORG}`,
        '',
      ].join('\n'),
    );

    // Act
    const resolve = () => resolveDeployConfig({ context: {}, configFile: file, projectRoot: PROJECT_ROOT });

    // Assess
    expect(resolve).toThrow(DeployConfigError);
    expect(resolve).toThrow(
      `  - ${file}:9:11: connections[1].sources.orgIds[1]: organization ${PROD_ORG} is polled by connection "production" already`,
    );
  });

  it('names the line of a JSON file, and no line for a setting the cdk.json context gives', () => {
    // Prepare
    const file = workspace.write(
      'estate.json',
      JSON.stringify({ connections: [{ name: 'production', sources: { orgIds: [PROD_ORG] } }] }, null, 2),
    );

    // Act
    let error: unknown;
    try {
      resolveDeployConfig({
        context: { sources: { orgIds: [PROD_ORG] }, timing: { scheduleMinutes: 0 } },
        configFile: file,
        projectRoot: PROJECT_ROOT,
      });
    } catch (caught) {
      error = caught;
    }

    // Assess
    expect(error).toBeInstanceOf(DeployConfigError);
    const problems = (error as DeployConfigError).problems;
    expect(problems.map(({ path, location }) => [path, location])).toEqual([
      ['timing.scheduleMinutes', undefined],
      ['connections[0].sources.orgIds[0]', { file, line: 7, column: 11 }],
    ]);
  });

  it('accepts the connections example laid over the project cdk.json', () => {
    // Act
    const config = resolveDeployConfig({
      context: {},
      configFile: 'infra/examples/connections.yaml',
      projectRoot: PROJECT_ROOT,
    });

    // Assess
    expect(deployedConnections(config).map(({ name, flavor }) => [name, flavor])).toEqual([
      ['production', 'atlas-v2'],
      ['development', 'atlas-v2'],
      ['datacenter', 'ops-manager'],
    ]);
  });
});

describe('settingLocator', () => {
  const locate = settingLocator({
    file: 'prod.yaml',
    text: 'sources:\n  orgIds: [a, b]\nteam: &team\n  - x\nalerts:\n  emails: *team\n',
  });

  it('finds a setting at its key and a list item at the item', () => {
    expect(locate(['sources', 'orgIds'])).toEqual({ file: 'prod.yaml', line: 2, column: 3 });
    expect(locate(['sources', 'orgIds', 1])).toEqual({ file: 'prod.yaml', line: 2, column: 15 });
  });

  it('finds nothing the file does not hold, nor through an alias, nor for the whole file', () => {
    expect(locate(['sources', 'projectIds'])).toBeUndefined();
    expect(locate(['sources', 'orgIds', 2])).toBeUndefined();
    expect(locate(['alerts', 'emails', 0])).toBeUndefined();
    expect(locate([])).toBeUndefined();
  });
});

describe('pollerSettings connections', () => {
  it('gives the poller each connection without its defaults, with the secret it names and without credentials', () => {
    // Prepare
    const config = parseDeployConfig({
      input: {
        connections: [
          { name: 'production', sources: { orgIds: [PROD_ORG] } },
          { name: 'development', sources: { orgIds: [DEV_ORG] }, credentials: { secretArn: SECRET_ARN } },
        ],
      },
      origin: 'test settings',
    });

    // Act
    const settings = pollerSettings(config);

    // Assess
    expect(settings.connections).toEqual([
      { name: 'production', sources: { orgIds: [PROD_ORG] } },
      { name: 'development', sources: { orgIds: [DEV_ORG] }, secretArn: SECRET_ARN },
    ]);
    expect(pollerConfigSchema.parse(settings).connections).toEqual([
      {
        name: 'production',
        flavor: 'atlas-v2',
        baseUrl: 'https://cloud.mongodb.com',
        sources: { orgIds: [PROD_ORG], projectIds: [], allProjectsOfOrgs: false },
      },
      {
        name: 'development',
        flavor: 'atlas-v2',
        baseUrl: 'https://cloud.mongodb.com',
        sources: { orgIds: [DEV_ORG], projectIds: [], allProjectsOfOrgs: false },
        secretArn: SECRET_ARN,
      },
    ]);
  });

  it("carries a connection's access history setting, and the top-level one, to the poller", () => {
    // Prepare
    const config = parseDeployConfig({
      input: {
        sources: { projectIds: ['6a5b4c3d2e1f009988776655'], accessHistory: true },
        connections: [
          {
            name: 'production',
            sources: { orgIds: [PROD_ORG], allProjectsOfOrgs: true, accessHistory: true },
          },
        ],
      },
      origin: 'test settings',
    });

    // Act
    const polled = effectiveConnections(pollerConfigSchema.parse(pollerSettings(config)));

    // Assess
    expect(polled.map(({ name, sources }) => [name, sources.accessHistory])).toEqual([
      ['default', true],
      ['production', true],
    ]);
  });

  it('leaves connections out when there is none, so the environment of an earlier deployment is unchanged', () => {
    expect(pollerSettings(parseDeployConfig({ input: {}, origin: 'test settings' }))).not.toHaveProperty(
      'connections',
    );
  });
});

describe('deployedConnections', () => {
  it.each<[string, DeployConfigInput]>([
    ['top-level sources alone', { sources: { orgIds: [PROD_ORG] } }],
    ['no source, on purpose', { sources: { allowNone: true } }],
    ['connections alone', { connections: [{ name: 'production', sources: { orgIds: [PROD_ORG] } }] }],
    [
      'top-level sources beside connections',
      {
        sources: { projectIds: ['6a5b4c3d2e1f009988776655'] },
        connections: [{ name: 'production', sources: { orgIds: [PROD_ORG] } }],
      },
    ],
    [
      'a connection named default with no top-level sources',
      { connections: [{ name: 'default', sources: { orgIds: [PROD_ORG] } }] },
    ],
  ])('names the connections the poller polls: %s', (_name, input) => {
    // Prepare
    const config = parseDeployConfig({ input, origin: 'test settings' });

    // Act
    const deployed = deployedConnections(config).map(({ name, legacy }) => [name, legacy]);

    // Assess
    const polled = effectiveConnections(pollerConfigSchema.parse(pollerSettings(config)));
    expect(deployed).toEqual(polled.map(({ name, legacy }) => [name, legacy]));
  });
});
