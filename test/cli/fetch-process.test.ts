import { afterAll, describe, expect, it } from 'vitest';
import {
  atlasErrorBody,
  type DigestServer,
  listPage,
  type Route,
  startDigestServer,
} from '../support/digest-server.js';
import { runCli, runCliClosingStdout } from './cli-runner.js';

const ORG = '5f4e3d2c1b0a998877665544';
const PROJECT_A = '6a5b4c3d2e1f009988776601';
const PROJECT_B = '6a5b4c3d2e1f009988776602';
const PROJECT_C = '6a5b4c3d2e1f009988776603';

/** Events per list path: each project and the org has its own, with interleaved times. */
const EVENTS_BY_PATH: Readonly<Record<string, unknown[]>> = {
  [`/api/atlas/v2/orgs/${ORG}/events`]: [{ id: 'o1', created: '2024-05-01T10:00:03Z' }],
  [`/api/atlas/v2/groups/${PROJECT_A}/events`]: [
    { id: 'a2', created: '2024-05-01T10:00:04Z' },
    { id: 'a1', created: '2024-05-01T10:00:01Z' },
  ],
  [`/api/atlas/v2/groups/${PROJECT_B}/events`]: [{ id: 'b1', created: '2024-05-01T10:00:02Z' }],
  [`/api/atlas/v2/groups/${PROJECT_C}/events`]: [{ id: 'c1', created: '2024-05-01T10:00:05Z' }],
  [`/api/atlas/v2/orgs/${ORG}/groups`]: [
    { id: PROJECT_B, name: 'b', orgId: ORG },
    { id: PROJECT_C, name: 'c', orgId: ORG },
  ],
};

function eventsRoute(request: {
  url: URL;
}): { body: Record<string, unknown> } | { status: number; body: Record<string, unknown> } {
  const results = EVENTS_BY_PATH[request.url.pathname];
  if (results === undefined)
    return { status: 404, body: atlasErrorBody(404, 'RESOURCE_NOT_FOUND', 'No such path.') };
  return { body: listPage(results, { self: '' }) };
}

function idsOf(stdout: string): string[] {
  return stdout
    .trimEnd()
    .split('\n')
    .map((line) => (JSON.parse(line) as { id: string }).id);
}
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

  it('reads every --project given, merged newest first', async () => {
    const server = await serve(eventsRoute);

    const result = await runCli(
      ['fetch', 'events', '--project', PROJECT_A, '--project', PROJECT_B, '--base-url', server.baseUrl],
      ENV,
    );

    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(idsOf(result.stdout)).toEqual(['a2', 'b1', 'a1']);
  });

  it('reads an org, its projects with --all-projects, and a named project once each', async () => {
    const server = await serve(eventsRoute);

    const result = await runCli(
      [
        'fetch',
        'events',
        '--org',
        ORG,
        '--all-projects',
        '--project',
        `${PROJECT_A},${PROJECT_B}`,
        '--base-url',
        server.baseUrl,
      ],
      ENV,
    );

    expect(result.status).toBe(0);
    expect(idsOf(result.stdout)).toEqual(['c1', 'a2', 'o1', 'b1', 'a1']);
    const eventReads = server.requests.filter(
      (request) => request.url.pathname.endsWith('/events') && request.status === 200,
    );
    expect(eventReads.map((request) => request.url.pathname).sort()).toEqual(
      [ORG, PROJECT_A, PROJECT_B, PROJECT_C]
        .map((id) => (id === ORG ? `/api/atlas/v2/orgs/${id}/events` : `/api/atlas/v2/groups/${id}/events`))
        .sort(),
    );
  });

  it('refuses --all-projects without an --org', async () => {
    const result = await runCli(['fetch', 'events', '--project', PROJECT_A, '--all-projects'], ENV);

    expect(result.status).toBe(2);
    expect(result.stderr).toBe(
      'atlas-audit-alerts: --all-projects reads the projects of each --org: give at least one --org <id>\n',
    );
  });
});

describe.concurrent('atlas-audit-alerts, when the reader of stdout has gone', () => {
  it('ends fetch quietly with exit 0', async () => {
    const many = Array.from({ length: 2_000 }, (_, i) => ({ id: `e${i}`, detail: 'x'.repeat(200) }));
    // Four pages of 500, the most Atlas sends in one.
    const server = await serve((request) => {
      const pageNum = Number(request.url.searchParams.get('pageNum') ?? '1');
      const next = new URL(request.url);
      next.searchParams.set('pageNum', String(pageNum + 1));
      const page = many.slice((pageNum - 1) * 500, pageNum * 500);
      return {
        body: listPage(page, { self: '', ...(pageNum < 4 ? { next: next.toString() } : {}) }),
      };
    });

    const result = await runCliClosingStdout(
      ['fetch', 'events', '--org', ORG, '--base-url', server.baseUrl],
      ENV,
    );

    expect(result).toEqual({ status: 0, stderr: '' });
  });

  it.each([
    ['--help', ['--help']],
    ['rules test', ['rules', 'test']],
    ['check --help', ['check', '--help']],
  ])('ends %s quietly with exit 0', async (_name, args) => {
    const result = await runCliClosingStdout(args);

    expect(result).toEqual({ status: 0, stderr: '' });
  });
});
