import { describe, expect, it } from 'vitest';
import { PollerConfigError } from '../../functions/poller/errors.js';
import { readLambdaConfig } from '../../functions/poller/lambda-config.js';
import { POLLER_CONFIG_ENV } from '../../shared/poll/index.js';

const ORG = '5f4e3d2c1b0a998877665544';
const RESOURCES = {
  tableName: 'AtlasAuditAlerts-StateTable-1A2B3C',
  topicArn: 'arn:aws:sns:eu-west-1:123456789012:AtlasAuditAlerts-Alerts',
  secretArn: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:AtlasCredentials-AbCdEf',
};

function envWith(value: unknown): Record<string, string> {
  return { [POLLER_CONFIG_ENV]: typeof value === 'string' ? value : JSON.stringify(value) };
}

describe('readLambdaConfig', () => {
  it('reads the configuration the stack writes and fills in the defaults', () => {
    const env = envWith({ sources: { orgIds: [ORG] }, ...RESOURCES });

    const config = readLambdaConfig({ env });

    expect(config).toMatchObject({
      ...RESOURCES,
      sources: { orgIds: [ORG], projectIds: [], allProjectsOfOrgs: false },
      atlas: { baseUrl: 'https://cloud.mongodb.com', flavor: 'atlas-v2' },
      timing: { overlapSeconds: 900, lagSeconds: 30, initialLookbackSeconds: 3600 },
      concurrency: 4,
    });
  });

  it('says to deploy again when the variable is missing or empty', () => {
    for (const env of [{}, { [POLLER_CONFIG_ENV]: '  ' }]) {
      const read = () => readLambdaConfig({ env });

      expect(read).toThrow(PollerConfigError);
      expect(read).toThrow(
        /^ATLAS_AUDIT_ALERTS_CONFIG is not set: deploy the stack again \(npx cdk deploy\)/,
      );
    }
  });

  it('names the variable when it is not JSON', () => {
    const read = () => readLambdaConfig({ env: envWith('{"sources": ') });

    expect(read).toThrow(/^ATLAS_AUDIT_ALERTS_CONFIG is not JSON \(.+\): deploy the stack again/);
  });

  it('lists every schema problem with its path', () => {
    const env = envWith({ sources: { orgIds: ['not-an-id'] }, concurrency: 0, ...RESOURCES });

    const read = () => readLambdaConfig({ env });

    expect(read).toThrow(
      /^ATLAS_AUDIT_ALERTS_CONFIG is not a valid configuration \(sources\.orgIds\.0: must be a 24-character hexadecimal Atlas id[^;]*; concurrency: [^)]+\): deploy/,
    );
  });

  it('requires the table, the topic and the secret the Lambda works with', () => {
    const env = envWith({ sources: { orgIds: [ORG] }, tableName: RESOURCES.tableName });

    const read = () => readLambdaConfig({ env });

    expect(read).toThrow(
      /^ATLAS_AUDIT_ALERTS_CONFIG lacks topicArn, secretArn: the Lambda needs its state table, alert topic and credentials secret/,
    );
  });

  it('needs no top-level secret when connections alone name the sources, each with its own', () => {
    const { secretArn, ...resources } = RESOURCES;
    const env = envWith({
      connections: [{ name: 'production', sources: { orgIds: [ORG] }, secretArn }],
      ...resources,
    });

    const config = readLambdaConfig({ env });

    expect(config.secretArn).toBeUndefined();
    expect(config.connections).toMatchObject([{ name: 'production', secretArn }]);
  });

  it('names each connection it polls that has no secret, the top-level settings included', () => {
    const { secretArn: _secret, ...resources } = RESOURCES;
    const env = envWith({
      sources: { orgIds: [ORG] },
      connections: [{ name: 'production', sources: { orgIds: ['5f4e3d2c1b0a998877665545'] } }],
      ...resources,
    });

    const read = () => readLambdaConfig({ env });

    expect(read).toThrow(
      /^ATLAS_AUDIT_ALERTS_CONFIG lacks secretArn, connections\[0\]\.secretArn: the Lambda needs its state table, alert topic and credentials secret \(one per connection\)/,
    );
  });
});
