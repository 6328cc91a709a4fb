import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../shared/clock.js';
import { InMemorySourceQueue } from '../../shared/fan-out/index.js';
import {
  CachedWebhookSecrets,
  PushReceiver,
  type PushResult,
  type PushServer,
  startPushServer,
} from '../../shared/push/index.js';
import { FileStateStore } from '../../shared/state/index.js';
import { alertBody, PROJECT_ID, signedRequest, WEBHOOK_SECRET } from './support/webhook.js';

const folder = mkdtempSync(join(tmpdir(), 'push-server-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

/** What a raw TCP client got back before the server closed the connection, and how long it took. */
function rawExchange(
  port: number,
  send: (write: (text: string) => void) => Promise<void>,
): Promise<{ response: string; ms: number }> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const socket = connect(port, '127.0.0.1');
    let response = '';
    let closed = false;
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      response += chunk;
    });
    socket.on('error', () => undefined);
    socket.on('close', () => {
      closed = true;
      resolve({ response, ms: Date.now() - started });
    });
    socket.on('connect', () => {
      send((text) => {
        if (!closed) socket.write(text);
      }).catch(reject);
    });
  });
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('startPushServer', () => {
  let server: PushServer;
  let store: FileStateStore;
  let queue: InMemorySourceQueue;
  let results: PushResult[];

  beforeEach(async () => {
    queue = new InMemorySourceQueue();
    results = [];
    store = await FileStateStore.open({ path: join(folder, `${randomUUID()}.json`) });
    const receiver = new PushReceiver({
      connections: [
        { name: 'default', sources: { orgIds: [], projectIds: [PROJECT_ID], allProjectsOfOrgs: false } },
      ],
      secrets: new CachedWebhookSecrets({
        clock: systemClock,
        ttlMs: 60_000,
        read: async () => WEBHOOK_SECRET,
      }),
      claims: store,
      queue,
      clock: systemClock,
    });
    server = await startPushServer({
      receiver,
      headersTimeoutMs: 400,
      requestTimeoutMs: 800,
      onResult: (result) => results.push(result),
    });
  });

  afterEach(async () => {
    await server.close();
    await store.close();
  });

  const now = () => new Date().toISOString();

  it('answers a signed push with a bare 202 and queues its project', async () => {
    const request = signedRequest({
      body: alertBody({ id: randomUUID().replaceAll('-', '').slice(0, 24), updated: now() }),
    });

    const response = await fetch(server.url, {
      method: 'POST',
      headers: request.headers as Record<string, string>,
      body: request.body as Uint8Array,
    });

    expect(response.status).toBe(202);
    expect(await response.text()).toBe('');
    expect(queue.depth).toBe(1);
  });

  it('refuses a body its Content-Length declares over 16 KB without waiting for it', async () => {
    const { response, ms } = await rawExchange(server.port, async (write) => {
      write(
        'POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 1000000\r\nX-MMS-Signature: AAAAAAAAAAAAAAAAAAAAAAAAAAA=\r\n\r\n',
      );
    });

    expect(response).toMatch(/^HTTP\/1\.1 413 /);
    expect(ms).toBeLessThan(400);
    expect(results).toEqual([{ status: 413, outcome: 'oversized' }]);
    expect(queue.depth).toBe(0);
  });

  it('stops reading a chunked body at 16 KB and refuses it', async () => {
    const { response } = await rawExchange(server.port, async (write) => {
      write('POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n');
      for (let index = 0; index < 5; index += 1) {
        write(`1000\r\n${'x'.repeat(0x1000)}\r\n`);
        await pause(10);
      }
    });

    expect(response).toMatch(/^HTTP\/1\.1 413 /);
    expect(results).toEqual([{ status: 413, outcome: 'oversized' }]);
  });

  it('cuts off a body trickled a byte at a time once the request time is up, queueing nothing', async () => {
    const body = JSON.stringify(alertBody({ updated: now() }));
    const request = signedRequest({ body });

    const { response, ms } = await rawExchange(server.port, async (write) => {
      write(
        `POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: ${body.length}\r\nX-MMS-Event: alert.inform\r\nX-MMS-Signature: ${request.headers['x-mms-signature']}\r\n\r\n`,
      );
      for (const character of body) {
        write(character);
        await pause(50);
      }
    });

    expect(response).toMatch(/^HTTP\/1\.1 408 /);
    expect(ms).toBeLessThan(2_000);
    expect(results).toEqual([]);
    expect(queue.depth).toBe(0);
  });

  it('cuts off headers trickled a byte at a time', async () => {
    const { response, ms } = await rawExchange(server.port, async (write) => {
      write('POST / HTTP/1.1\r\nHost: 127.0.0.1\r\n');
      for (const character of 'X-MMS-Event: alert.inform-and-more-and-more-and-more-and-more') {
        write(character);
        await pause(50);
      }
    });

    expect(response).toMatch(/^HTTP\/1\.1 408 /);
    expect(ms).toBeLessThan(1_500);
    expect(results).toEqual([]);
  });

  it('refuses headers over 8 KB', async () => {
    const { response } = await rawExchange(server.port, async (write) => {
      write(`POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Padding: ${'p'.repeat(10_000)}\r\n\r\n`);
    });

    expect(response).toMatch(/^HTTP\/1\.1 431 /);
  });

  it('passes a forged push to the receiver, which refuses it, and closes the connection', async () => {
    const request = signedRequest({ body: alertBody({ updated: now() }), secret: 'guess' });

    const response = await fetch(server.url, {
      method: 'POST',
      headers: request.headers as Record<string, string>,
      body: request.body as Uint8Array,
    });

    expect(response.status).toBe(401);
    expect(response.headers.get('connection')).toBe('close');
    expect(queue.depth).toBe(0);
  });
});
