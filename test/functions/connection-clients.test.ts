import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ConnectionClients, refusedConnections } from '../../functions/poller/connection-clients.js';
import { systemClock } from '../../shared/clock.js';
import type { SourceOutcome, TickSummary } from '../../shared/poll/index.js';
import { type AtlasSimulator, startSimulator } from '../../simulator/index.js';

const PROD_ORG = '5f4e3d2c1b0a998877665544';
const DEV_ORG = '5f4e3d2c1b0a998877665545';
const PROD_SECRET = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:production-AbCdEf';
const DEV_SECRET = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:development-AbCdEf';

const CONNECTIONS = [
  {
    name: 'default',
    sources: { orgIds: [], projectIds: ['64b5ca17f1a3d40012ab3d21'], allProjectsOfOrgs: false },
  },
  { name: 'production', sources: { orgIds: [PROD_ORG], projectIds: [], allProjectsOfOrgs: true } },
  { name: 'development', sources: { orgIds: [DEV_ORG], projectIds: [], allProjectsOfOrgs: true } },
];

/** An outcome reduced to what the refusal reading looks at. */
function outcome(fields: Partial<SourceOutcome> & Pick<SourceOutcome, 'source' | 'status'>): SourceOutcome {
  return fields as SourceOutcome;
}

describe('refusedConnections', () => {
  it('names the connections of sources, inventories and discoveries Atlas refused, and no other', () => {
    // Prepare
    const summary: Pick<TickSummary, 'sources' | 'discovery'> = {
      sources: [
        outcome({ source: 'project:64b5ca17f1a3d40012ab3d21', status: 'failed', httpStatus: 401 }),
        outcome({
          source: `org:${PROD_ORG}`,
          connection: 'production',
          status: 'ok',
          inventory: { status: 'failed', httpStatus: 403 } as NonNullable<SourceOutcome['inventory']>,
        }),
        outcome({
          source: 'project:64b5ca17f1a3d40012ab3d99',
          connection: 'development',
          status: 'failed',
          httpStatus: 500,
        }),
      ],
      discovery: [
        { orgId: DEV_ORG, status: 'failed', projects: 0, httpStatus: 401 },
        { orgId: PROD_ORG, status: 'listed', projects: 3 },
      ],
    };

    // Act
    const refused = refusedConnections(summary, CONNECTIONS);

    // Assess
    expect([...refused].sort()).toEqual(['default', 'development', 'production']);
  });

  it('names none when Atlas refused nothing', () => {
    // Act
    const refused = refusedConnections(
      {
        sources: [
          outcome({ source: `org:${PROD_ORG}`, connection: 'production', status: 'failed', httpStatus: 429 }),
        ],
        discovery: [{ orgId: DEV_ORG, status: 'failed', projects: 0, httpStatus: 503 }],
      },
      CONNECTIONS,
    );

    // Assess
    expect([...refused]).toEqual([]);
  });
});

describe('ConnectionClients', () => {
  const secrets = mockClient(SecretsManagerClient);
  let sim: AtlasSimulator;
  let clients: ConnectionClients;

  beforeAll(async () => {
    sim = await startSimulator();
  });
  afterAll(async () => {
    await sim.stop();
  });
  beforeEach(() => {
    secrets.reset();
    secrets.on(GetSecretValueCommand).resolves({ SecretString: JSON.stringify({ ...sim.credentials }) });
    clients = new ConnectionClients({
      secretsManager: new SecretsManagerClient({ region: 'eu-west-1' }),
      clock: systemClock,
    });
  });
  afterEach(async () => {
    await clients.close();
  });

  const target = (name: string, secretArn: string | undefined) => ({
    name,
    flavor: 'atlas-v2' as const,
    baseUrl: sim.baseUrl,
    secretArn,
  });

  it('keeps a client per connection, each read from its own secret once', async () => {
    // Act
    const production = await clients.clientFor(target('production', PROD_SECRET));
    const development = await clients.clientFor(target('development', DEV_SECRET));
    const productionAgain = await clients.clientFor(target('production', PROD_SECRET));

    // Assess
    expect(development).not.toBe(production);
    expect(productionAgain).toBe(production);
    expect(secrets.commandCalls(GetSecretValueCommand).map((call) => call.args[0].input.SecretId)).toEqual([
      PROD_SECRET,
      DEV_SECRET,
    ]);
  });

  it('reads again, after an invalidation, the secret of the connections named only', async () => {
    // Prepare
    await clients.clientFor(target('production', PROD_SECRET));
    await clients.clientFor(target('development', DEV_SECRET));

    // Act
    clients.invalidate(['development']);
    await clients.clientFor(target('production', PROD_SECRET));
    await clients.clientFor(target('development', DEV_SECRET));

    // Assess
    expect(secrets.commandCalls(GetSecretValueCommand).map((call) => call.args[0].input.SecretId)).toEqual([
      PROD_SECRET,
      DEV_SECRET,
      DEV_SECRET,
    ]);
  });

  it('refuses a connection the configuration gives no secret, saying to deploy again', async () => {
    // Act
    const reach = clients.clientFor(target('production', undefined));

    // Assess
    await expect(reach).rejects.toMatchObject({
      code: 'CONNECTION_UNAVAILABLE',
      message: expect.stringContaining('connection "production" has no credentials secret'),
    });
    expect(secrets.commandCalls(GetSecretValueCommand)).toEqual([]);
  });
});
