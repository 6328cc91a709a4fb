import { afterAll, describe, expect, it } from 'vitest';
import {
  atlasErrorBody,
  type DigestServer,
  listPage,
  type Route,
  startDigestServer,
} from '../support/digest-server.js';
import { runCli } from './cli-runner.js';

const ORG = '5f4e3d2c1b0a998877665544';
const ENV = {
  MONGODB_ATLAS_PUBLIC_API_KEY: 'test-public-key',
  MONGODB_ATLAS_PRIVATE_API_KEY: 'fake-private-key-for-tests',
};

const servers: DigestServer[] = [];

afterAll(async () => {
  await Promise.all(servers.map((server) => server.close()));
});

async function serve(route: Route): Promise<DigestServer> {
  const server = await startDigestServer({
    username: ENV.MONGODB_ATLAS_PUBLIC_API_KEY,
    password: ENV.MONGODB_ATLAS_PRIVATE_API_KEY,
    route,
  });
  servers.push(server);
  return server;
}

// Spawning the command costs a second or so here; the cases are in fetch.test.ts, in process. These
// check what only a real process shows: stdout, stderr and the exit status through bin.mjs and main.
describe.concurrent('atlas-audit-alerts fetch, as a process', () => {
  it('prints JSON Lines on stdout, nothing on stderr, and exits 0', async () => {
    const server = await serve(() => ({ body: listPage([{ id: 'e1' }, { id: 'e2' }], { self: '' }) }));

    const result = await runCli(['fetch', 'events', '--org', ORG, '--base-url', server.baseUrl], ENV);

    expect(result).toEqual({ status: 0, stdout: '{"id":"e1"}\n{"id":"e2"}\n', stderr: '' });
  });

  it('prints one line on stderr and exits 4 for an unknown org', async () => {
    const server = await serve(() => ({
      status: 404,
      body: atlasErrorBody(404, 'ORG_NOT_FOUND', 'No org.'),
    }));

    const result = await runCli(['fetch', 'events', '--org', ORG, '--base-url', server.baseUrl], ENV);

    expect(result.status).toBe(4);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(
      `atlas-audit-alerts: Atlas answered 404 ORG_NOT_FOUND for GET /api/atlas/v2/orgs/${ORG}/events (No org.): check the id; the credentials must belong to the organization that holds it\n`,
    );
  });

  it('prints one line on stderr and exits 2 without credentials', async () => {
    const result = await runCli(['fetch', 'api-keys', '--org', ORG]);

    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(/^atlas-audit-alerts: no Atlas credentials: [^\n]+\n$/);
  });
});
