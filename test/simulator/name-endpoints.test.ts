import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AtlasClient, AtlasNotFoundError, AtlasServerError } from '../../shared/atlas/index.js';
import { type AtlasSimulator, startSimulator } from '../../simulator/index.js';

const V2 = 'application/vnd.atlas.2023-01-01+json';

describe('simulator organization, project, team and alert configuration reads', () => {
  let sim: AtlasSimulator;
  let client: AtlasClient;
  let acme: string;
  let paymentsProd: string;

  beforeAll(async () => {
    sim = await startSimulator({ unauthenticatedAccess: true });
    client = new AtlasClient({ baseUrl: sim.baseUrl, credentials: { kind: 'digest', ...sim.credentials } });
    acme = sim.orgs.find((org) => org.name === 'Acme Corp')?.id ?? '';
    paymentsProd = sim.projects.find((project) => project.name === 'payments-prod')?.id ?? '';
  });

  afterAll(async () => {
    await client.close();
    await sim.stop();
  });

  it('answers GET /orgs/{orgId} and GET /groups/{groupId} with their names, in version 2023-01-01', async () => {
    // Act
    const org = await fetch(`${sim.baseUrl}/api/atlas/v2/orgs/${acme}`, { headers: { accept: V2 } });
    const project = await client.getProject(paymentsProd);

    // Assess
    expect(org.status).toBe(200);
    expect(await org.json()).toMatchObject({ id: acme, name: 'Acme Corp', isDeleted: false });
    expect(project).toMatchObject({ id: paymentsProd, name: 'payments-prod', orgId: acme });
    expect(await client.getOrg(acme)).toMatchObject({ id: acme, name: 'Acme Corp' });
  });

  it('answers 404 ORG_NOT_FOUND and GROUP_NOT_FOUND for ids it does not know', async () => {
    // Act
    const org = client.getOrg('ffffffffffffffffffffffff');
    const project = client.getProject('ffffffffffffffffffffffff');

    // Assess
    await expect(org).rejects.toMatchObject({ errorCode: 'ORG_NOT_FOUND', status: 404 });
    await expect(project).rejects.toBeInstanceOf(AtlasNotFoundError);
  });

  it('answers GET /orgs/{orgId}/teams/{teamId} and GET /groups/{groupId}/alertConfigs/{alertConfigId}', async () => {
    // Act
    const team = await client.getTeam(acme, '64b5cf01f1a3d40012ab6001');
    const config = await client.getAlertConfig(paymentsProd, '64b5ce01f1a3d40012ab5004');
    const missingTeam = client.getTeam(acme, 'ffffffffffffffffffffffff');
    const missingConfig = client.getAlertConfig(paymentsProd, 'ffffffffffffffffffffffff');

    // Assess
    expect(team).toMatchObject({ id: '64b5cf01f1a3d40012ab6001', name: 'data-analysts' });
    expect(config).toMatchObject({
      id: '64b5ce01f1a3d40012ab5004',
      groupId: paymentsProd,
      eventTypeName: 'OUTSIDE_METRIC_THRESHOLD',
      metricThreshold: { metricName: 'CONNECTIONS', operator: 'GREATER_THAN', threshold: 1500 },
    });
    await expect(missingTeam).rejects.toBeInstanceOf(AtlasNotFoundError);
    await expect(missingConfig).rejects.toBeInstanceOf(AtlasNotFoundError);
  });

  it('fails the name reads on demand, and only them', async () => {
    // Prepare
    sim.setFaults({ routes: ['GET /groups/{groupId}'], probabilities: { internalServerError: 1 } });
    try {
      // Act
      const project = client.getProject(paymentsProd);
      const events = client.listProjectEvents(paymentsProd, { itemsPerPage: 1 }).toArray();

      // Assess
      await expect(project).rejects.toBeInstanceOf(AtlasServerError);
      await expect(events).resolves.toBeInstanceOf(Array);
    } finally {
      sim.setFaults();
    }
  });
});
