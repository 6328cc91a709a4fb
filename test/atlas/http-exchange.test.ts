import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { AtlasResponseError } from '../../shared/atlas/errors.js';
import { exchange, type HttpRequest } from '../../shared/atlas/http-exchange.js';

type Route = (req: IncomingMessage, res: ServerResponse) => void;

const cleanups: Array<() => Promise<void>> = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

async function serve(route: Route): Promise<{ origin: string; agent: Agent; requests: () => number }> {
  let requests = 0;
  const server: Server = createServer((req, res) => {
    requests += 1;
    route(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const agent = new Agent();
  cleanups.push(async () => {
    await agent.destroy();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    agent,
    requests: () => requests,
  };
}

function get(path: string, signal?: AbortSignal): HttpRequest {
  return { method: 'GET', path, headers: { accept: 'application/json' }, ...(signal ? { signal } : {}) };
}

describe('exchange', () => {
  it('reads the status, the headers and a body sent in several chunks', async () => {
    const { origin, agent } = await serve((req, res) => {
      res.writeHead(201, { 'content-type': 'application/json', 'x-seen-path': req.url ?? '' });
      res.write('{"results":[');
      setTimeout(() => res.end('"é"]}'), 10);
    });

    const response = await exchange({
      dispatcher: agent,
      origin,
      request: get('/api/atlas/v2/groups/x/events?pageNum=2'),
      timeoutMs: 5_000,
      maxBodyBytes: 1_000,
    });

    expect(response.status).toBe(201);
    expect(response.headers['x-seen-path']).toBe('/api/atlas/v2/groups/x/events?pageNum=2');
    expect(response.body).toBe('{"results":["é"]}');
  });

  it('refuses a body larger than the limit with AtlasResponseError, naming the path without its query', async () => {
    const { origin, agent } = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('x'.repeat(600));
      res.end('x'.repeat(600));
    });

    const act = exchange({
      dispatcher: agent,
      origin,
      request: get('/api/atlas/v2/orgs/o/events?itemsPerPage=500'),
      timeoutMs: 5_000,
      maxBodyBytes: 1_000,
    });

    await expect(act).rejects.toThrow(AtlasResponseError);
    await expect(act).rejects.toThrow(
      'Atlas answered GET /api/atlas/v2/orgs/o/events with a body over 1000 bytes: ask for fewer items per page',
    );
  });

  it('rejects with the reason of a signal aborted while it waits for the answer', async () => {
    const { origin, agent } = await serve(() => {
      // Never answers.
    });
    const controller = new AbortController();
    const reason = new Error('the tick ran out of time');

    const act = exchange({
      dispatcher: agent,
      origin,
      request: get('/slow', controller.signal),
      timeoutMs: 30_000,
      maxBodyBytes: 1_000,
    });
    setTimeout(() => controller.abort(reason), 20);

    await expect(act).rejects.toBe(reason);
  });

  it('sends nothing when the signal is already aborted', async () => {
    const { origin, agent, requests } = await serve((_req, res) => res.end('{}'));
    const reason = new Error('aborted before');

    const act = exchange({
      dispatcher: agent,
      origin,
      request: get('/x', AbortSignal.abort(reason)),
      timeoutMs: 5_000,
      maxBodyBytes: 1_000,
    });

    await expect(act).rejects.toBe(reason);
    expect(requests()).toBe(0);
  });

  it('gives up on a server that trickles its body, once the whole exchange took the timeout', async () => {
    // Prepare: one byte every 50 ms, forever; no gap long enough for an idle timeout.
    const { origin, agent } = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const drip = setInterval(() => res.write(' '), 50);
      res.on('close', () => clearInterval(drip));
    });

    // Act
    const outcome = await exchange({
      dispatcher: agent,
      origin,
      request: get('/api/atlas/v2/orgs/x/events?pageNum=3'),
      timeoutMs: 400,
      maxBodyBytes: 1_000_000,
    }).catch((error: unknown) => error);

    // Assess
    expect(outcome).toMatchObject({ code: 'UND_ERR_BODY_TIMEOUT' });
    expect((outcome as Error).message).toBe(
      'Atlas did not finish answering GET /api/atlas/v2/orgs/x/events within 400 ms',
    );
  });

  it('rejects when the connection closes before the body ends', async () => {
    const { origin, agent } = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
      res.write('{"results":[');
      setTimeout(() => res.socket?.destroy(), 10);
    });

    const act = exchange({
      dispatcher: agent,
      origin,
      request: get('/cut'),
      timeoutMs: 5_000,
      maxBodyBytes: 1_000,
    });

    await expect(act).rejects.toThrow();
  });
});
