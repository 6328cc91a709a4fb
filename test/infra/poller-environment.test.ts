import { describe, expect, it } from 'vitest';
import { parseDeployConfig } from '../../infra/config.js';
import { PollerEnvironmentTooLargeError } from '../../infra/errors.js';
import { fanOutEnvironment } from '../../infra/fan-out-environment.js';
import { LAMBDA_ENVIRONMENT_LIMIT_BYTES, pollerEnvironment } from '../../infra/poller-environment.js';
import { FAN_OUT_CONFIG_ENV, fanOutRuntimeSchema } from '../../shared/fan-out/fan-out-settings.js';
import { POLLER_CONFIG_ENV, pollerConfigSchema } from '../../shared/poll/poller-config.js';

const RESOURCES = {
  tableName: 'AtlasAuditAlerts-StateTable962DE04C-1A2B3C4D5E6F7',
  topicArn: 'arn:aws:sns:eu-west-1:123456789012:AtlasAuditAlerts-AlertsTopicCF7C81C9-1A2B3C4D5E6F',
  secretArn: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:AtlasCredentialsSecret30718703-AbCdEf',
};

function projectIds(count: number): string[] {
  return Array.from({ length: count }, (_, index) => index.toString(16).padStart(24, '0'));
}

function environmentFor(settings: unknown): Record<string, string> {
  const config = parseDeployConfig({ input: settings, origin: 'test settings' });
  return pollerEnvironment({ config, resources: RESOURCES, toJsonString: JSON.stringify });
}

describe('pollerEnvironment', () => {
  it('carries a configuration the poller schema accepts unchanged', () => {
    const environment = environmentFor({
      atlas: { flavor: 'atlas-v1' },
      sources: { orgIds: ['5f4e3d2c1b0a998877665544'], allProjectsOfOrgs: true },
      timing: { scheduleMinutes: 10, overlapSeconds: 600 },
      concurrency: 8,
    });

    const config = JSON.parse(environment[POLLER_CONFIG_ENV] ?? '') as Record<string, unknown>;

    expect(pollerConfigSchema.parse(config)).toEqual(config);
    expect(config).toEqual({
      atlas: { baseUrl: 'https://cloud.mongodb.com', flavor: 'atlas-v1' },
      sources: { orgIds: ['5f4e3d2c1b0a998877665544'], projectIds: [], allProjectsOfOrgs: true },
      timing: {
        overlapSeconds: 600,
        lagSeconds: 30,
        initialLookbackSeconds: 3600,
        inventoryIntervalSeconds: 3600,
        deadlineMarginSeconds: 20,
      },
      concurrency: 8,
      inventory: { baselineFindings: true },
      ...RESOURCES,
    });
  });

  it('sets the Powertools service, namespace and log level, and source maps', () => {
    const environment = environmentFor({ poller: { logLevel: 'DEBUG' } });

    expect(environment).toMatchObject({
      POWERTOOLS_SERVICE_NAME: 'atlas-audit-alerts',
      POWERTOOLS_METRICS_NAMESPACE: 'AtlasAuditAlerts',
      POWERTOOLS_LOG_LEVEL: 'DEBUG',
      NODE_OPTIONS: '--enable-source-maps',
    });
  });

  it('stays well under the Lambda limit for a typical deployment', () => {
    const environment = environmentFor({
      sources: { orgIds: projectIds(3), projectIds: projectIds(20).slice(3) },
    });

    const bytes = Object.entries(environment).reduce(
      (sum, [name, value]) => sum + name.length + value.length,
      0,
    );

    expect(bytes).toBeLessThan(LAMBDA_ENVIRONMENT_LIMIT_BYTES / 2);
  });

  it('fails with a way out when the ids could push the environment over 4 KB', () => {
    const build = () =>
      environmentFor({ sources: { orgIds: ['5f4e3d2c1b0a998877665544'], projectIds: projectIds(110) } });

    expect(build).toThrow(PollerEnvironmentTooLargeError);
    expect(build).toThrow(
      /over Lambda's limit of 4096 bytes; it lists 111 org and project ids\. Remove at least 22 project ids: list their orgs in sources\.orgIds with sources\.allProjectsOfOrgs: true instead\./,
    );
  });

  it('accepts as many ids as fit with the longest resource names, and no more', () => {
    const fits = () =>
      environmentFor({ sources: { orgIds: projectIds(1), projectIds: projectIds(89).slice(1) } });
    const overflows = () =>
      environmentFor({ sources: { orgIds: projectIds(1), projectIds: projectIds(90).slice(1) } });

    expect(fits).not.toThrow();
    expect(overflows).toThrow(/Remove at least 1 project id:/);
  });

  it("counts the fan-out functions' settings too: ids that fit the poller can overflow its dispatcher and worker", () => {
    const fanOutFunction = (ids: number) => () => {
      const config = parseDeployConfig({
        input: {
          sources: { orgIds: projectIds(1), projectIds: projectIds(ids).slice(1) },
          fanOut: { mode: 'automatic', automaticAboveSources: 100_000 },
        },
        origin: 'test settings',
      });
      if (config.fanOut.mode === 'off') throw new Error('fanOut is off');
      const extra = fanOutEnvironment({
        settings: { ...config.fanOut, mode: config.fanOut.mode },
        queueUrl: 'https://sqs.eu-west-1.amazonaws.com/123456789012/AtlasAuditAlerts-FanOutQueue-1A2B3C.fifo',
        schedulePeriodSeconds: config.timing.scheduleMinutes * 60,
        toJsonString: JSON.stringify,
      });
      return pollerEnvironment({ config, resources: RESOURCES, toJsonString: JSON.stringify, extra });
    };

    expect(() =>
      environmentFor({ sources: { orgIds: projectIds(1), projectIds: projectIds(89).slice(1) } }),
    ).not.toThrow();
    expect(fanOutFunction(89)).toThrow(PollerEnvironmentTooLargeError);
    expect(fanOutFunction(89)).toThrow(
      /environment and ATLAS_AUDIT_ALERTS_FAN_OUT \(280 bytes\) could reach 4357 bytes once the table, topic, secret and queue names are known.*Remove at least 10 project ids/,
    );
    expect(fanOutFunction(80)).toThrow(/Remove at least 1 project id:/);
    const fits = fanOutFunction(79)();
    expect(fanOutRuntimeSchema.parse(JSON.parse(fits[FAN_OUT_CONFIG_ENV] ?? ''))).toMatchObject({
      mode: 'automatic',
      automaticAboveSources: 100_000,
    });
  });

  describe('with connections', () => {
    /** `count` connections of one organization each, their secrets created by the stack or named. */
    function connectionsEnvironment(count: number, secrets: 'created' | 'existing') {
      const connections = Array.from({ length: count }, (_, index) => ({
        name: `org-${index}`,
        sources: { orgIds: [projectIds(count)[index] as string] },
        ...(secrets === 'existing'
          ? {
              credentials: {
                secretArn: `arn:aws:secretsmanager:eu-west-1:123456789012:secret:org-${index}-AbCdEf`,
              },
            }
          : {}),
      }));
      const config = parseDeployConfig({ input: { connections }, origin: 'test settings' });
      const { secretArn: _secret, ...resources } = RESOURCES;
      return pollerEnvironment({
        config,
        resources: {
          ...resources,
          connectionSecrets: config.connections.map(({ name, credentials }) => ({
            name,
            secretArn: credentials.secretArn ?? `token-of-${name}`,
            // As AtlasCredentials bounds a created secret's ARN: stack name, logical id, suffixes.
            longestSecretArn:
              credentials.secretArn ??
              `arn:aws-us-gov:secretsmanager:us-gov-west-1:123456789012:secret:AtlasAuditAlerts-Connection${name}CredentialsSecret1A2B3C4D-xxxxxxxxxxxx-AbCdEf`,
          })),
        },
        toJsonString: JSON.stringify,
      });
    }

    it('writes each connection without its defaults, with its secret, and no top-level secret it does not poll', () => {
      const environment = connectionsEnvironment(2, 'created');

      const config = JSON.parse(environment[POLLER_CONFIG_ENV] ?? '') as Record<string, unknown>;

      expect(config.connections).toEqual([
        { name: 'org-0', sources: { orgIds: [projectIds(2)[0]] }, secretArn: 'token-of-org-0' },
        { name: 'org-1', sources: { orgIds: [projectIds(2)[1]] }, secretArn: 'token-of-org-1' },
      ]);
      expect(config).not.toHaveProperty('secretArn');
    });

    it("counts each connection with its secret's ARN at its longest, and says what to do past 4 KB", () => {
      const fits = () => connectionsEnvironment(13, 'created');
      const overflows = () => connectionsEnvironment(14, 'created');

      expect(fits).not.toThrow();
      expect(overflows).toThrow(PollerEnvironmentTooLargeError);
      expect(overflows).toThrow(
        /it lists 14 org and project ids and 14 connections, which take \d+ bytes with each secret ARN at its longest\. Name the existing secret of some connections \(connections\[\]\.credentials\.secretArn\)/,
      );
      expect(() => connectionsEnvironment(14, 'existing')).not.toThrow();
      expect(() => connectionsEnvironment(40, 'existing')).toThrow(
        /connections, which take \d+ bytes with each secret ARN at its longest\. Split the connections between two deployments/,
      );
    });
  });
});
