import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { PublishBatchRequestEntry } from '@aws-sdk/client-sns';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Severity } from '../../shared/notify/alert.js';
import { OutboxNotifier } from '../../shared/notify/outbox-notifier.js';
import { buildSnsEntry } from '../../shared/notify/sns-entry.js';
import { validateSnsEntry } from '../../shared/notify/validate-sns-entry.js';
import { apiKeyCreatedEvent, makeAlert, NOW } from './support/alerts.js';
import { ManualClock } from './support/manual-clock.js';

async function lines(path: string): Promise<PublishBatchRequestEntry[]> {
  const text = await readFile(path, 'utf8');
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as PublishBatchRequestEntry);
}

describe('OutboxNotifier', () => {
  let folder: string;

  beforeEach(async () => {
    folder = await mkdtemp(join(tmpdir(), 'outbox-'));
  });

  afterEach(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  it('appends one JSON line per alert holding the PublishBatch entry as the SDK takes it', async () => {
    // Prepare
    const path = join(folder, 'outbox.jsonl');
    const notifier = new OutboxNotifier({ path, clock: new ManualClock(NOW) });
    const alerts = [
      makeAlert(),
      makeAlert({ fingerprint: 'api-key-created:1', events: [apiKeyCreatedEvent()] }),
    ];

    // Act
    const results = await notifier.publish(alerts);

    // Assess
    expect(results.map((result) => result.status)).toEqual(['sent', 'sent']);
    const entries = await lines(path);
    expect(entries).toHaveLength(2);
    for (const entry of entries) {
      expect(Object.keys(entry)).toEqual([
        'Id',
        'Subject',
        'Message',
        'MessageStructure',
        'MessageAttributes',
      ]);
      expect(entry.Id).toMatch(/^alert-[0-9a-f]{32}-\d$/);
      expect(validateSnsEntry(entry)).toEqual({ valid: true });
    }
  });

  it('writes exactly the entry the SNS notifier would send', async () => {
    // Prepare
    const path = join(folder, 'outbox.jsonl');
    const links = { flavor: 'atlas-v2' as const, baseUrl: 'https://cloud.mongodb.com' };
    const notifier = new OutboxNotifier({ path, clock: new ManualClock(NOW), console: links });
    const alert = makeAlert();

    // Act
    await notifier.publish([alert]);

    // Assess
    const [written] = await lines(path);
    const expected = buildSnsEntry(alert, { id: String(written?.Id), context: { now: NOW, console: links } });
    expect(written).toEqual(expected);
  });

  it('appends to what is there and creates a missing folder', async () => {
    // Prepare
    const path = join(folder, 'nested', 'state', 'outbox.jsonl');
    const notifier = new OutboxNotifier({ path, clock: new ManualClock(NOW) });

    // Act
    await notifier.publish([makeAlert()]);
    await notifier.publish([makeAlert({ fingerprint: 'second' }), makeAlert({ fingerprint: 'third' })]);

    // Assess
    expect(await lines(path)).toHaveLength(3);
  });

  it('leaves out an alert whose entry is invalid and reports it', async () => {
    // Prepare
    const path = join(folder, 'outbox.jsonl');
    const notifier = new OutboxNotifier({ path, clock: new ManualClock(NOW) });

    // Act
    const results = await notifier.publish([makeAlert({ severity: 'urgent' as Severity }), makeAlert()]);

    // Assess
    expect(results.map((result) => (result.status === 'sent' ? 'sent' : result.code))).toEqual([
      'INVALID_ENTRY',
      'sent',
    ]);
    expect(await lines(path)).toHaveLength(1);
  });

  it('reports an outbox it cannot write as a retryable failure', async () => {
    // Prepare
    const notifier = new OutboxNotifier({ path: folder, clock: new ManualClock(NOW) });

    // Act
    const results = await notifier.publish([makeAlert()]);

    // Assess
    expect(results[0]).toMatchObject({ status: 'failed', code: 'WRITE_FAILED', retryable: true });
  });

  it('cuts off a partial last line left by a killed writer before it appends', async () => {
    // Prepare
    const path = join(folder, 'outbox.jsonl');
    const notifier = new OutboxNotifier({ path, clock: new ManualClock(NOW) });
    await notifier.publish([makeAlert()]);
    const whole = await readFile(path, 'utf8');
    await writeFile(path, `${whole}{"Id":"alert-half-writ`);

    // Act
    const results = await notifier.publish([makeAlert({ fingerprint: 'network-access-entry-added:2' })]);

    // Assess
    expect(results[0]?.status).toBe('sent');
    const entries = await lines(path);
    expect(entries).toHaveLength(2);
    expect((await readFile(path, 'utf8')).startsWith(whole)).toBe(true);
  });

  it('leaves a full disk with whole lines only, each one an alert reported sent', async () => {
    // Prepare: a child process whose files may not grow past 48 KiB, about 16 alerts.
    const path = join(folder, 'outbox.jsonl');
    const script = fileURLToPath(new URL('./support/fill-outbox.ts', import.meta.url));
    const command = `ulimit -f 48 && exec "${process.execPath}" --import tsx "${script}" "${path}"`;

    // Act
    const { stdout } = await promisify(execFile)('bash', ['-c', command], { timeout: 60_000 });

    // Assess
    const report = JSON.parse(stdout) as { sent: string[]; failed: number };
    expect(report.failed).toBeGreaterThan(0);
    expect(report.sent.length).toBeGreaterThan(3);
    const text = await readFile(path, 'utf8');
    expect(text.endsWith('\n')).toBe(true);
    expect(await lines(path)).toHaveLength(report.sent.length);
    expect((await stat(path)).size).toBeLessThanOrEqual(48 * 1024);
  }, 90_000);
});
