import { describe, expect, it } from 'vitest';
import {
  compileRouteMatch,
  MAX_POLICY_COMBINATIONS,
  planRoutes,
  policyLimitProblem,
  type RouteSettings,
  routesSchema,
  toSnsFilterPolicy,
} from '../../shared/routes/index.js';

const routes = (input: unknown): RouteSettings[] => routesSchema.parse(input);

describe('compileRouteMatch', () => {
  it('takes every alert when a route has no conditions', () => {
    expect(toSnsFilterPolicy(compileRouteMatch({}))).toBeUndefined();
  });

  it('leaves out a floor at info, the lowest severity', () => {
    expect(toSnsFilterPolicy(compileRouteMatch({ minSeverity: 'info' }))).toBeUndefined();
  });

  it('keeps the higher of the route floor and the destination floor', () => {
    expect(toSnsFilterPolicy(compileRouteMatch({ minSeverity: 'medium' }, 'high'))).toEqual({
      severityRank: [{ numeric: ['>=', 4] }],
    });
    expect(toSnsFilterPolicy(compileRouteMatch({ minSeverity: 'high' }, 'low'))).toEqual({
      severityRank: [{ numeric: ['>=', 4] }],
    });
  });

  it('matches projects named by id on groupId and by name on groupName, either way', () => {
    const policy = toSnsFilterPolicy(
      compileRouteMatch({ projects: ['64b5ca17f1a3d40012ab3d11', 'payments-prod'], tags: ['data-explorer'] }),
    );

    expect(policy).toEqual({
      $or: [
        { groupId: ['64b5ca17f1a3d40012ab3d11'], tags: ['data-explorer'] },
        { groupName: ['payments-prod'], tags: ['data-explorer'] },
      ],
    });
  });

  it('crosses the ways of naming organizations with those of naming projects', () => {
    const policy = compileRouteMatch({
      orgs: ['5f4e3d2c1b0a998877665544', 'Acme Corp'],
      projects: ['64b5ca17f1a3d40012ab3d11', 'payments-prod'],
    });

    expect(policy.map((clause) => [...clause.keys()].sort())).toEqual([
      ['groupId', 'orgId'],
      ['groupName', 'orgId'],
      ['groupId', 'orgName'],
      ['groupName', 'orgName'],
    ]);
  });
});

describe('policyLimitProblem', () => {
  it('refuses a path on more than five attributes', () => {
    const problem = policyLimitProblem(
      compileRouteMatch({
        connections: ['prod'],
        orgs: ['Acme Corp'],
        projects: ['payments-prod'],
        rules: ['api-key-created'],
        tags: ['api-keys'],
        minSeverity: 'high',
      }),
    );

    expect(problem).toMatch(/6 attributes .* SNS allows 5/);
  });

  it('accepts five attributes', () => {
    expect(
      policyLimitProblem(
        compileRouteMatch({
          connections: ['prod'],
          projects: ['payments-prod'],
          rules: ['a'],
          tags: ['b'],
          minSeverity: 'high',
        }),
      ),
    ).toBeUndefined();
  });

  it('counts combinations as the product of list lengths, summed over the $or paths', () => {
    const rules = Array.from({ length: 15 }, (_, index) => `rule-${index}`);
    const projects = Array.from({ length: 10 }, (_, index) => `project-${index}`);

    expect(policyLimitProblem(compileRouteMatch({ rules, projects }))).toBeUndefined();
    expect(policyLimitProblem(compileRouteMatch({ rules, projects: [...projects, 'one-more'] }))).toMatch(
      new RegExp(`165 combinations where SNS allows ${MAX_POLICY_COMBINATIONS}`),
    );
    // Ten project names and five ids: 15 rules x 10 + 15 rules x 5 on two paths.
    const ids = Array.from({ length: 5 }, (_, index) => `64b5ca17f1a3d40012ab3d1${index}`);
    expect(policyLimitProblem(compileRouteMatch({ rules, projects: [...projects, ...ids] }))).toMatch(
      /225 combinations/,
    );
  });
});

describe('planRoutes', () => {
  it('makes one subscription per destination with the union of the routes that name it', () => {
    const plan = planRoutes(
      routes([
        { name: 'security', match: { minSeverity: 'high' }, email: { to: ['secops@example.com'] } },
        {
          name: 'data',
          match: { tags: ['data-explorer'] },
          email: { to: ['SecOps@example.com', 'data@example.com'] },
        },
      ]),
    );

    expect(plan.problems).toEqual([]);
    expect(plan.destinations.map((entry) => [entry.destination, entry.routes, entry.filterPolicy])).toEqual([
      [
        { kind: 'email', address: 'secops@example.com' },
        ['security', 'data'],
        { $or: [{ severityRank: [{ numeric: ['>=', 4] }] }, { tags: ['data-explorer'] }] },
      ],
      [{ kind: 'email', address: 'data@example.com' }, ['data'], { tags: ['data-explorer'] }],
    ]);
  });

  it('gives a destination no filter when one of its routes takes everything', () => {
    const plan = planRoutes(
      routes([
        { name: 'all', email: { to: ['secops@example.com'] } },
        { name: 'high', match: { minSeverity: 'high' }, email: { to: ['secops@example.com'] } },
      ]),
    );

    expect(plan.destinations).toHaveLength(1);
    expect(plan.destinations[0]?.filterPolicy).toBeUndefined();
  });

  it('applies a Slack destination floor on top of the route match', () => {
    const plan = planRoutes(
      routes([
        {
          name: 'payments',
          match: { projects: ['payments-prod'] },
          slack: { workspaceId: 'T012AB3CD', channelId: 'C0123ABCDEF', minSeverity: 'medium' },
        },
      ]),
    );

    expect(plan.destinations[0]?.filterPolicy).toEqual({
      groupName: ['payments-prod'],
      severityRank: [{ numeric: ['>=', 3] }],
    });
  });

  it('reports a route beyond SNS limits at that route, and a union beyond them at the first route', () => {
    const rules = Array.from({ length: 100 }, (_, index) => `rule-${index}`);
    const plan = planRoutes(
      routes([
        { name: 'ok', match: { rules }, email: { to: ['a@example.com'] } },
        { name: 'ok-too', match: { rules: rules.slice(0, 60) }, email: { to: ['a@example.com'] } },
        {
          name: 'too-many',
          match: { rules, projects: ['a', 'b'] },
          email: { to: ['b@example.com'] },
        },
      ]),
    );

    expect(plan.problems).toEqual([
      {
        path: [2, 'match'],
        message: expect.stringMatching(/^route too-many \(email\): its lists multiply to 200/),
      },
      {
        path: [0],
        message: expect.stringMatching(/^a@example.com is in routes ok, ok-too, .* 160 combinations/),
      },
    ]);
    expect(plan.destinations).toEqual([]);
  });
});

describe('routesSchema', () => {
  it('refuses a route without a destination, an empty match list and a name used twice', () => {
    const result = routesSchema.safeParse([
      { name: 'a', match: {} },
      { name: 'b', match: { projects: [] }, email: { to: ['x@example.com'] } },
      { name: 'b', email: { to: ['y@example.com'] } },
    ]);

    expect(result.success).toBe(false);
    expect(result.error?.issues.map((issue) => [issue.path, issue.message])).toEqual([
      [[0], expect.stringMatching(/names no destination/)],
      [[1, 'match', 'projects'], expect.stringMatching(/at least one project/)],
      [[2, 'name'], 'route b is named twice'],
    ]);
  });
});
