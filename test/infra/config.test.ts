import { relative } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type DeployConfigInput, parseDeployConfig } from '../../infra/config.js';
import { mergeSettings, resolveDeployConfig } from '../../infra/config-source.js';
import { deliveryRoutes } from '../../infra/delivery-routes.js';
import { DeployConfigFileError } from '../../infra/errors.js';
import { problemsOf } from './support/deploy-problems.js';
import { cdkJsonContext, createTestWorkspace, PROJECT_ROOT } from './support/workspace.js';

const ORG_ID = '5f4e3d2c1b0a998877665544';

describe('parseDeployConfig', () => {
  it('fills in every default from an empty configuration', () => {
    const config = parseDeployConfig({ input: {}, origin: 'test settings' });

    expect(config).toEqual({
      stackName: 'AtlasAuditAlerts',
      atlas: { flavor: 'atlas-v2', baseUrl: 'https://cloud.mongodb.com' },
      sources: { orgIds: [], projectIds: [], allProjectsOfOrgs: false, allowNone: false },
      timing: {
        scheduleMinutes: 5,
        overlapSeconds: 900,
        lagSeconds: 30,
        initialLookbackSeconds: 3600,
        inventoryIntervalSeconds: 3600,
        deadlineMarginSeconds: 20,
      },
      inventory: { baselineFindings: true },
      concurrency: 4,
      alerts: { emails: [], emailMinSeverity: 'medium', digest: { below: 'medium', every: 'daily' } },
      routes: [],
      operations: { emails: [], watermarkLagAlarmMinutes: 60 },
      rules: { directories: ['builtin'] },
      credentials: {},
      connections: [],
      fanOut: {
        mode: 'off',
        automaticAboveSources: 2_000,
        batchSize: 10,
        maxConcurrency: 10,
        maxConcurrencyPerOrg: 2,
        maxReceiveCount: 5,
        workerMemoryMiB: 256,
        workerTimeoutSeconds: 120,
      },
      table: { removalPolicy: 'retain' },
      poller: {
        timeoutSeconds: 180,
        memoryMiB: 256,
        logRetentionDays: 30,
        logLevel: 'INFO',
        reservedConcurrency: true,
      },
      network: { mode: 'public' },
      push: {
        enabled: false,
        reservedConcurrency: 2,
        webhookSecret: {},
        maxAgeSeconds: 3_600,
        coalesceSeconds: 10,
        secretTtlSeconds: 300,
      },
    });
  });

  it('keeps the settings it is given', () => {
    const input: DeployConfigInput = {
      atlas: { flavor: 'ops-manager', baseUrl: 'https://opsmanager.example.com:8443' },
      sources: { orgIds: [ORG_ID], allProjectsOfOrgs: true },
      timing: { scheduleMinutes: 15 },
      alerts: { slack: { workspaceId: 'T012AB3CD', channelId: 'C0123ABCDEF' } },
      table: { removalPolicy: 'destroy' },
    };

    const config = parseDeployConfig({ input, origin: 'test settings' });

    expect(config.atlas).toEqual({ flavor: 'ops-manager', baseUrl: 'https://opsmanager.example.com:8443' });
    expect(config.sources).toEqual({
      orgIds: [ORG_ID],
      projectIds: [],
      allProjectsOfOrgs: true,
      allowNone: false,
    });
    expect(config.timing.scheduleMinutes).toBe(15);
    expect(config.alerts.slack).toEqual({
      workspaceId: 'T012AB3CD',
      channelId: 'C0123ABCDEF',
      minSeverity: 'low',
    });
    expect(config.table).toEqual({ removalPolicy: 'destroy' });
  });

  it('lists every wrong setting with its path in one error', () => {
    const input = {
      stackName: '1-bad name',
      atlas: { flavor: 'atlas-v3', baseUrl: 'not a url' },
      sources: { orgIds: ['5f4e3d2c1b0a99887766554', ORG_ID], projectIds: 'all' },
      timing: { scheduleMinutes: 0, lagSeconds: -1 },
      alerts: { emails: ['secops@example.com', 'not-an-address'], emailMinSeverity: 'urgent' },
      operations: { emails: [42] },
      poller: { logRetentionDays: 10, memoryMiB: 64 },
      credentials: { secretArn: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:atlas' },
    };

    const problems = problemsOf(input).map((problem) => problem.path);

    expect(problems).toEqual([
      'stackName',
      'atlas.flavor',
      'atlas.baseUrl',
      'sources.orgIds[0]',
      'sources.projectIds',
      'timing.lagSeconds',
      'timing.scheduleMinutes',
      'alerts.emails[1]',
      'alerts.emailMinSeverity',
      'operations.emails[0]',
      'credentials.secretArn',
      'poller.memoryMiB',
      'poller.logRetentionDays',
    ]);
  });

  it('names the origin and each problem in the message', () => {
    const input = { sources: { orgIds: ['nope'] }, alerts: { emails: ['x'] } };

    const parse = () => parseDeployConfig({ input, origin: 'cdk.json context "atlasAuditAlerts"' });

    expect(parse).toThrow(
      /from cdk\.json context "atlasAuditAlerts" is invalid \(2 settings\)[\s\S]*- sources\.orgIds\[0\]: must be a 24-character hexadecimal Atlas id[\s\S]*- alerts\.emails\[0\]: must be an email address/,
    );
  });

  it('reports each unknown setting by its full path', () => {
    const problems = problemsOf({ alerts: { email: ['a@example.com'] }, schedule: 5 });

    expect(problems).toEqual([
      { path: 'alerts.email', message: expect.stringContaining('is not a known setting') },
      { path: 'schedule', message: expect.stringContaining('is not a known setting') },
    ]);
  });

  it('refuses sources.allowNone beside organizations or projects, so emptied lists still fail the synth', () => {
    const problems = problemsOf({ sources: { orgIds: [ORG_ID], allowNone: true } });

    expect(problems).toEqual([
      {
        path: 'sources.allowNone',
        message:
          'is only for a deployment with no organization and no project: remove it, so that emptying the lists by mistake fails the synth',
      },
    ]);
  });

  it('refuses settings that contradict each other', () => {
    const input = {
      sources: { allProjectsOfOrgs: true, projectIds: [ORG_ID, ORG_ID] },
      timing: { scheduleMinutes: 90, deadlineMarginSeconds: 200 },
      table: { removalPolicy: 'destroy', deletionProtection: true },
      credentials: {
        kmsKeyArn: 'arn:aws:kms:eu-west-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab',
      },
      alerts: { emails: ['SecOps@example.com', 'secops@example.com'] },
    };

    const problems = problemsOf(input);

    expect(problems).toEqual([
      { path: 'sources.allProjectsOfOrgs', message: 'needs at least one org id in sources.orgIds' },
      { path: 'sources.projectIds[1]', message: `${ORG_ID} is listed twice` },
      { path: 'alerts.emails[1]', message: 'secops@example.com is listed twice' },
      {
        path: 'timing.deadlineMarginSeconds',
        message: expect.stringContaining('less than poller.timeoutSeconds (180)'),
      },
      {
        path: 'operations.watermarkLagAlarmMinutes',
        message: expect.stringContaining('more than timing.scheduleMinutes (90)'),
      },
      {
        path: 'table.deletionProtection',
        message: expect.stringContaining('cannot be on when table.removalPolicy is destroy'),
      },
      { path: 'credentials.kmsKeyArn', message: expect.stringContaining('set credentials.secretArn too') },
    ]);
  });

  it('refuses an access-history settle time that would raise the lag alarm for every idle cluster, where it is set', () => {
    const input = {
      sources: { projectIds: [ORG_ID], accessHistory: true },
      timing: { accessHistorySettleSeconds: 3_300 },
      connections: [
        {
          name: 'production',
          sources: { projectIds: ['6a5b4c3d2e1f009988776655'], accessHistory: true },
          timing: { accessHistorySettleSeconds: 600 },
        },
        { name: 'quiet', sources: { projectIds: ['6a5b4c3d2e1f009988776656'] } },
      ],
    };

    expect(problemsOf(input)).toEqual([
      {
        path: 'timing.accessHistorySettleSeconds',
        message: expect.stringContaining(
          'is 3300 seconds: with timing.scheduleMinutes (5) it reaches operations.watermarkLagAlarmMinutes (60)',
        ),
      },
    ]);
    const accepted = { ...input, operations: { watermarkLagAlarmMinutes: 61 } };
    expect(
      parseDeployConfig({ input: accepted, origin: 'test settings' }).timing.accessHistorySettleSeconds,
    ).toBe(3_300);
  });

  it('refuses a bus no route sends to, and a bus that is neither a name nor an ARN, at their path', () => {
    const base = { sources: { orgIds: [ORG_ID] }, alerts: { emails: ['secops@example.com'] } };

    expect(problemsOf({ ...base, eventBridge: { bus: 'create' } })).toEqual([
      {
        path: 'eventBridge',
        message:
          'names a bus no route sends to: add alerts.eventBridge: {} (every alert) or eventBridge: {} to a route, or remove this setting',
      },
    ]);
    expect(
      problemsOf({ ...base, alerts: { ...base.alerts, eventBridge: {} }, eventBridge: { bus: 'no spaces' } }),
    ).toEqual([{ path: 'eventBridge.bus', message: expect.stringMatching(/must be default, create/) }]);
    const input = {
      ...base,
      alerts: { ...base.alerts, eventBridge: {} },
      eventBridge: { bus: 'arn:aws:events:eu-west-1:123456789012:event-bus/security' },
    };
    expect(parseDeployConfig({ input, origin: 'test settings' }).eventBridge?.bus).toBe(
      'arn:aws:events:eu-west-1:123456789012:event-bus/security',
    );
  });

  it('refuses routes SNS could not deliver, or that could never match, at their path', () => {
    const input = {
      sources: { orgIds: [ORG_ID] },
      alerts: { emails: ['secops@example.com'] },
      routes: [
        { name: 'default', email: { to: ['a@example.com'] } },
        { name: 'elsewhere', match: { connections: ['other'] }, email: { to: ['b@example.com'] } },
        {
          name: 'too-wide',
          match: {
            rules: Array.from({ length: 16 }, (_, index) => `rule-${index}`),
            tags: Array.from({ length: 10 }, (_, index) => `tag-${index}`),
          },
          email: { to: ['c@example.com'] },
        },
        { name: 'nowhere', match: { minSeverity: 'high' } },
      ],
    };

    expect(problemsOf(input)).toEqual([
      {
        path: 'routes[3]',
        message:
          'names no destination: give it email (to: [addresses]), slack (workspaceId, channelId), eventBridge ({}) or securityHub ({})',
      },
    ]);
    expect(problemsOf({ ...input, routes: input.routes.slice(0, 3) })).toEqual([
      {
        path: 'routes[0].name',
        message:
          'default is the route the alerts settings make (emails, slack, eventBridge, securityHub): give this route another name',
      },
      {
        path: 'routes[1].match.connections[0]',
        message:
          'no connection is named "other": this deployment polls "default", and an alert carries the name of the one it came through',
      },
      {
        path: 'routes[2].match',
        message: expect.stringContaining('multiply to 160 combinations where SNS allows 150'),
      },
    ]);
  });

  it('takes routes that match on the connections the deployment polls, default included', () => {
    const input = {
      sources: { orgIds: [ORG_ID] },
      connections: [{ name: 'data-centre', sources: { orgIds: ['5f4e3d2c1b0a998877665545'] } }],
      routes: [
        { name: 'dc', match: { connections: ['data-centre', 'default'] }, email: { to: ['dc@example.com'] } },
        { name: 'gone', match: { connections: ['datacentre'] }, email: { to: ['x@example.com'] } },
      ],
    };

    expect(problemsOf(input)).toEqual([
      {
        path: 'routes[1].match.connections[0]',
        message:
          'no connection is named "datacentre": this deployment polls "default", "data-centre", and an alert carries the name of the one it came through',
      },
    ]);
    expect(
      parseDeployConfig({ input: { ...input, routes: input.routes.slice(0, 1) }, origin: 'test settings' })
        .routes[0]?.match.connections,
    ).toEqual(['data-centre', 'default']);
  });

  it('takes the alerts settings as the default route beside the routes', () => {
    const config = parseDeployConfig({
      input: {
        sources: { orgIds: [ORG_ID] },
        alerts: { emails: ['secops@example.com'], emailMinSeverity: 'high' },
        routes: [{ name: 'default-two', email: { to: ['b@example.com'] } }],
      },
      origin: 'test',
    });

    expect(deliveryRoutes(config)).toEqual([
      {
        name: 'default',
        match: {},
        email: { to: ['secops@example.com'], minSeverity: 'high' },
        digest: { below: 'medium', every: 'daily' },
      },
      { name: 'default-two', match: {}, email: { to: ['b@example.com'] } },
    ]);
    expect(deliveryRoutes({ ...config, alerts: { emails: [], emailMinSeverity: 'high' } })).toEqual([
      { name: 'default-two', match: {}, email: { to: ['b@example.com'] } },
    ]);
  });

  it('caps the schedule so three periods of heartbeat fit in a day', () => {
    const problems = problemsOf({ timing: { scheduleMinutes: 481 } });

    expect(problems).toEqual([{ path: 'timing.scheduleMinutes', message: expect.stringContaining('480') }]);
  });
});

describe('resolveDeployConfig', () => {
  const workspace = createTestWorkspace();
  afterAll(() => workspace.remove());

  it('reads the cdk.json context alone when no file is named', () => {
    const config = resolveDeployConfig({
      context: { sources: { orgIds: [ORG_ID] } },
      projectRoot: PROJECT_ROOT,
    });

    expect(config.sources.orgIds).toEqual([ORG_ID]);
  });

  it('lays a YAML file over the context, merging objects and replacing lists', () => {
    const file = workspace.write(
      'overlay.yaml',
      'alerts:\n  emailMinSeverity: high\nsources:\n  projectIds: [6a5b4c3d2e1f009988776655]\n',
    );
    const context = {
      alerts: { emails: ['secops@example.com'] },
      sources: { orgIds: [ORG_ID], projectIds: ['7a5b4c3d2e1f009988776655'] },
    };

    const config = resolveDeployConfig({ context, configFile: file, projectRoot: PROJECT_ROOT });

    expect(config.alerts).toEqual({
      emails: ['secops@example.com'],
      emailMinSeverity: 'high',
      digest: { below: 'medium', every: 'daily' },
    });
    expect(config.sources).toEqual({
      orgIds: [ORG_ID],
      projectIds: ['6a5b4c3d2e1f009988776655'],
      allProjectsOfOrgs: false,
      allowNone: false,
    });
  });

  it('reads a JSON file named relative to the project root', () => {
    const file = workspace.write('settings.json', JSON.stringify({ timing: { scheduleMinutes: 10 } }));

    const config = resolveDeployConfig({
      context: {},
      configFile: relative(PROJECT_ROOT, file),
      projectRoot: PROJECT_ROOT,
    });

    expect(config.timing.scheduleMinutes).toBe(10);
  });

  it('parses a context value given as JSON text on the command line', () => {
    const config = resolveDeployConfig({
      context: JSON.stringify({ concurrency: 2 }),
      projectRoot: PROJECT_ROOT,
    });

    expect(config.concurrency).toBe(2);
  });

  it('names the file, line and column of a YAML syntax error, shows the line and says how to fix it', () => {
    const file = workspace.write('broken.yaml', 'alerts:\n  emails: [a@example.com\n');

    const resolve = () => resolveDeployConfig({ context: {}, configFile: file, projectRoot: PROJECT_ROOT });

    expect(resolve).toThrow(DeployConfigFileError);
    expect(resolve).toThrow(
      `broken.yaml:2:11: this [ is never closed: end it with ] on the same line, or write the list as lines starting with "- " [YAML_SYNTAX]\n 2 |   emails: [a@example.com\n   |           ^`,
    );
  });

  it('points at a key indented off its neighbours, and refuses merge keys', () => {
    const indented = workspace.write(
      'indented.yaml',
      'alerts:\n  emails: [a@example.com]\n   emailMinSeverity: high\n',
    );
    const merged = workspace.write(
      'merged.yaml',
      'base: &base\n  emails: [a@example.com]\nalerts:\n  <<: *base\n',
    );

    const resolve = (configFile: string) => () =>
      resolveDeployConfig({ context: {}, configFile, projectRoot: PROJECT_ROOT });

    expect(resolve(indented)).toThrow(
      /indented\.yaml:3:4: this line is indented 3 spaces, deeper than the key above it, which has its value already/,
    );
    expect(resolve(merged)).toThrow(
      /merged\.yaml:4:3: merge keys \(<<\) are not supported in a configuration file: write the keys out/,
    );
  });

  it('says which file cannot be read', () => {
    const resolve = () =>
      resolveDeployConfig({ context: {}, configFile: 'no/such/file.yaml', projectRoot: PROJECT_ROOT });

    expect(resolve).toThrow(/Cannot read the configuration file no\/such\/file\.yaml \(ENOENT\)/);
  });

  it('names both origins when the merged settings are invalid', () => {
    const file = workspace.write('bad.yaml', 'timing:\n  scheduleMinutes: 0\n');

    const resolve = () => resolveDeployConfig({ context: {}, configFile: file, projectRoot: PROJECT_ROOT });

    expect(resolve).toThrow(
      /cdk\.json context "atlasAuditAlerts" and .*bad\.yaml is invalid[\s\S]*timing\.scheduleMinutes/,
    );
  });

  it('accepts the default settings of the project cdk.json', () => {
    const config = resolveDeployConfig({
      context: cdkJsonContext().atlasAuditAlerts,
      projectRoot: PROJECT_ROOT,
    });

    expect(config.rules.directories).toEqual(['builtin']);
  });

  it('accepts the routes example laid over the project cdk.json', () => {
    const config = resolveDeployConfig({
      context: cdkJsonContext().atlasAuditAlerts,
      configFile: 'infra/examples/routes.yaml',
      projectRoot: PROJECT_ROOT,
    });

    expect(config.routes.map((route) => route.name)).toEqual(['payments', 'data-team']);
  });

  it('accepts the example configuration file, whose Slack block waits commented out for step 7', () => {
    const config = resolveDeployConfig({
      context: cdkJsonContext().atlasAuditAlerts,
      configFile: 'infra/examples/config.example.yaml',
      projectRoot: PROJECT_ROOT,
    });

    expect(config.sources.orgIds.length).toBeGreaterThan(0);
    expect(config.alerts.slack).toBeUndefined();
  });
});

describe('mergeSettings', () => {
  it('merges nested objects and lets the overlay replace everything else', () => {
    const merged = mergeSettings({ a: { b: 1, c: [1, 2] }, d: 'x' }, { a: { c: [3] }, e: true });

    expect(merged).toEqual({ a: { b: 1, c: [3] }, d: 'x', e: true });
  });

  it('removes a setting the overlay sets to null', () => {
    const merged = mergeSettings(
      { alerts: { emails: ['a@example.com'], slack: { channelId: 'C1' } } },
      { alerts: { slack: null } },
    );

    expect(merged).toEqual({ alerts: { emails: ['a@example.com'] } });
  });
});
