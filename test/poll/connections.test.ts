import { describe, expect, it } from 'vitest';
import {
  type ConnectionInput,
  connectionProblems,
  connectionSchema,
  effectiveConnections,
} from '../../shared/poll/connections.js';
import {
  type PollerConfigInput,
  pollerConfigSchema,
  pollerSettingsSchema,
} from '../../shared/poll/poller-config.js';

const PROD_ORG = '5f4e3d2c1b0a998877665544';
const DEV_ORG = '5f4e3d2c1b0a998877665545';
const OPS_PROJECT = '64b5ca17f1a3d40012ab3d11';

function config(input: PollerConfigInput = {}) {
  return pollerConfigSchema.parse(input);
}

function connections(...inputs: ConnectionInput[]) {
  return inputs.map((input) => connectionSchema.parse(input));
}

describe('effectiveConnections', () => {
  it('reads the top-level settings of an earlier configuration as the connection default', () => {
    // Prepare
    const legacy = config({
      atlas: { flavor: 'ops-manager', baseUrl: 'https://opsmanager.example.com' },
      sources: { orgIds: [PROD_ORG] },
      secretArn: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:atlas-FAKE',
    });

    // Act
    const [only, ...others] = effectiveConnections(legacy);

    // Assess
    expect(others).toEqual([]);
    expect(only).toMatchObject({
      name: 'default',
      flavor: 'ops-manager',
      baseUrl: 'https://opsmanager.example.com',
      secretArn: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:atlas-FAKE',
      sources: { orgIds: [PROD_ORG], projectIds: [] },
      legacy: true,
    });
  });

  it('gives each connection the deployment timings and inventory settings under its own', () => {
    // Prepare
    const deployment = config({ timing: { overlapSeconds: 600, lagSeconds: 45 } });
    const given = connections(
      { name: 'prod', sources: { orgIds: [PROD_ORG] }, timing: { lagSeconds: 90 } },
      { name: 'dev', sources: { orgIds: [DEV_ORG] }, inventory: { baselineFindings: false } },
    );

    // Act
    const [prod, dev, ...others] = effectiveConnections(deployment, given);

    // Assess: no default connection, since the top-level sources name nothing.
    expect(others).toEqual([]);
    expect(prod).toMatchObject({ name: 'prod', flavor: 'atlas-v2', legacy: false });
    expect(prod?.timing).toEqual({ ...deployment.timing, lagSeconds: 90 });
    expect(prod?.timing.overlapSeconds).toBe(600);
    expect(dev?.timing).toEqual(deployment.timing);
    expect(dev?.inventory).toEqual({ ...deployment.inventory, baselineFindings: false });
  });

  it('keeps the top-level sources beside the connections, as the connection default', () => {
    // Act
    const names = effectiveConnections(
      config({ sources: { projectIds: [OPS_PROJECT] } }),
      connections({ name: 'prod', sources: { orgIds: [PROD_ORG] } }),
    ).map((connection) => connection.name);

    // Assess
    expect(names).toEqual(['default', 'prod']);
  });
});

describe('connectionSchema', () => {
  it.each([
    [{ name: 'Prod', sources: {} }, 'name'],
    [{ name: 'a'.repeat(33), sources: {} }, 'name'],
    [{ name: '1prod', sources: {} }, 'name'],
    [{ name: 'prod', sources: {}, timing: { lagSeconds: -1 } }, 'timing'],
    [{ name: 'prod', sources: {}, timing: { lagSecond: 10 } }, 'timing'],
    [{ name: 'prod', sources: { orgIds: ['acme'] } }, 'sources'],
    [{ name: 'prod', sources: {}, baseUrl: 'not a url' }, 'baseUrl'],
    // The deadline margin is the tick's, whatever the connection.
    [{ name: 'prod', sources: {}, timing: { deadlineMarginSeconds: 30 } }, 'timing'],
  ])('refuses %j at %s', (input, field) => {
    // Act
    const result = connectionSchema.safeParse(input);

    // Assess
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.path[0]).toBe(field);
  });

  it('leaves the timings a connection does not give to the deployment', () => {
    // Act
    const parsed = connectionSchema.parse({ name: 'prod', sources: {}, timing: { lagSeconds: 90 } });

    // Assess
    expect(parsed.timing).toEqual({ lagSeconds: 90 });
  });
});

describe('connectionProblems', () => {
  it('finds nothing wrong with connections that share no source and no name', () => {
    // Act
    const problems = connectionProblems(
      config({ sources: { projectIds: [OPS_PROJECT] } }),
      connections(
        { name: 'prod', sources: { orgIds: [PROD_ORG] } },
        { name: 'dev', sources: { orgIds: [DEV_ORG] } },
      ),
    );

    // Assess
    expect(problems).toEqual([]);
  });

  it('names an organization or project under two connections, at the second place', () => {
    // Act
    const problems = connectionProblems(
      config({ sources: { projectIds: [OPS_PROJECT] } }),
      connections(
        { name: 'prod', sources: { orgIds: [PROD_ORG] } },
        { name: 'dev', sources: { orgIds: [DEV_ORG, PROD_ORG], projectIds: [OPS_PROJECT] } },
      ),
    );

    // Assess
    expect(problems.map((problem) => problem.path)).toEqual([
      ['connections', 1, 'sources', 'orgIds', 1],
      ['connections', 1, 'sources', 'projectIds', 0],
    ]);
    expect(problems[0]?.message).toBe(
      `organization ${PROD_ORG} is polled by connection "prod" already: give each organization and project to one connection, whose credentials read it`,
    );
    expect(problems[1]?.message).toContain(
      `project ${OPS_PROJECT} is polled by the top-level sources already`,
    );
  });

  it('refuses a name given twice, and default while the top-level sources name a source', () => {
    // Act
    const problems = connectionProblems(
      config({ sources: { orgIds: [PROD_ORG] } }),
      connections(
        { name: 'default', sources: { orgIds: [DEV_ORG] } },
        { name: 'dev', sources: {} },
        { name: 'dev', sources: {} },
      ),
    );

    // Assess
    expect(problems.map((problem) => [problem.path.join('.'), problem.message])).toEqual([
      [
        'connections.0.name',
        '"default" names the connection of the top-level atlas and sources settings: give this one another name, or move the top-level sources into it',
      ],
      [
        'connections.2.name',
        'connection "dev" is named twice (connections[1] too): each connection needs a name of its own',
      ],
    ]);
  });

  it('lets a connection be named default when the top-level sources name nothing', () => {
    // Act
    const problems = connectionProblems(
      config(),
      connections({ name: 'default', sources: { orgIds: [PROD_ORG] } }),
    );

    // Assess
    expect(problems).toEqual([]);
  });
  it('refuses access history on Ops Manager, and where no project is polled, at the setting', () => {
    // Act
    const problems = connectionProblems(
      pollerSettingsSchema.parse({ sources: { orgIds: [PROD_ORG], accessHistory: true } }),
      connections(
        { name: 'ops', flavor: 'ops-manager', sources: { projectIds: [OPS_PROJECT], accessHistory: true } },
        { name: 'dev', sources: { orgIds: [DEV_ORG], allProjectsOfOrgs: true, accessHistory: true } },
      ),
    );

    // Assess
    expect(problems.map((problem) => [problem.path.join('.'), problem.message])).toEqual([
      [
        'sources.accessHistory',
        'reads the clusters of the projects polled, and these sources poll none: add projectIds, or set allProjectsOfOrgs: true',
      ],
      [
        'connections.0.sources.accessHistory',
        'is not available on Ops Manager, which keeps no database access history: remove it, or read the clusters through an Atlas connection (flavor atlas-v2)',
      ],
    ]);
  });
});

describe('pollerConfigSchema connections', () => {
  it('reads connections into the configuration, with the deployment timings under their own', () => {
    // Act
    const parsed = config({
      sources: { orgIds: [PROD_ORG] },
      timing: { lagSeconds: 45 },
      connections: [{ name: 'dev', sources: { orgIds: [DEV_ORG] }, timing: { overlapSeconds: 60 } }],
    });

    // Assess
    expect(
      effectiveConnections(parsed).map(({ name, timing }) => [
        name,
        timing.lagSeconds,
        timing.overlapSeconds,
      ]),
    ).toEqual([
      ['default', 45, 900],
      ['dev', 45, 60],
    ]);
  });

  it('refuses a configuration whose connections share a source, at the second place with the first named', () => {
    // Act
    const result = pollerConfigSchema.safeParse({
      sources: { projectIds: [OPS_PROJECT] },
      connections: [{ name: 'ops', sources: { projectIds: [OPS_PROJECT] } }],
    });

    // Assess
    expect(result.success).toBe(false);
    expect(result.error?.issues.map((issue) => [issue.path.join('.'), issue.message])).toEqual([
      [
        'connections.0.sources.projectIds.0',
        `project ${OPS_PROJECT} is polled by the top-level sources already: give each organization and project to one connection, whose credentials read it`,
      ],
    ]);
  });
});
