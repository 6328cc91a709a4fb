import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { Severity } from '../../shared/notify/alert.js';
import { ConsoleNotifier } from '../../shared/notify/console-notifier.js';
import { accessListEvent, makeAlert, NOW, PROJECT_ID } from './support/alerts.js';
import { ManualClock } from './support/manual-clock.js';

/** A stream that keeps what is written to it, and can pretend to be a terminal. */
class Capture extends Writable {
  readonly chunks: string[] = [];
  isTTY: boolean | undefined;

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    this.chunks.push(chunk.toString('utf8'));
    callback();
  }

  get text(): string {
    return this.chunks.join('');
  }
}

const ATLAS = { flavor: 'atlas-v2' as const, baseUrl: 'https://cloud.mongodb.com' };

describe('ConsoleNotifier', () => {
  it('prints the subject, the email as it reads, and a preview of the Slack message', async () => {
    // Prepare
    const stream = new Capture();
    const notifier = new ConsoleNotifier({ stream, clock: new ManualClock(NOW), console: ATLAS });

    // Act
    const results = await notifier.publish([makeAlert()]);

    // Assess
    expect(results).toEqual([{ status: 'sent', fingerprint: makeAlert().fingerprint }]);
    const { text } = stream;
    expect(text).toContain(
      `Subject: [CRITICAL] Project IP access list open to 0.0.0.0/0 (project 5b43...1a2, by j.doe@example.com)\n`,
    );
    expect(text).toContain(
      'Rule:          Project IP access list opened to the internet (network-access-open-to-internet)',
    );
    expect(text).toContain('When:          2026-11-22 06:12:41 UTC\n');
    expect(text).toContain('\u250C\u2500 Slack (AWS Chatbot)');
    expect(text).toContain(
      `\u2502 \u{1F6A8} [CRITICAL] Project IP access list open to 0.0.0.0/0 (project ${PROJECT_ID}, by j.doe@\u2060example.com)\n`,
    );
    expect(text).toContain(
      `\u2502   \u2022 Open the project activity feed (https://cloud.mongodb.com/v2/${PROJECT_ID}#/activity).`,
    );
    expect(text).toContain('\u2502 [network]\n');
    expect(text).not.toContain('\u001b');
  });

  it('colours the output when the stream is a terminal', async () => {
    // Prepare
    const stream = new Capture();
    stream.isTTY = true;
    const notifier = new ConsoleNotifier({ stream, clock: new ManualClock(NOW) });

    // Act
    await notifier.publish([makeAlert()]);

    // Assess
    expect(stream.text).toContain(
      'Subject: \u001b[1;37;41m[CRITICAL] Project IP access list open to 0.0.0.0/0 (project 5b43...1a2, by j.doe@example.com)\u001b[0m',
    );
    expect(stream.text).toContain('\u001b[1mRule:\u001b[0m Project IP access list opened to the internet');
  });

  it('prints hostile event values as inert text that cannot drive the terminal', async () => {
    // Prepare
    const stream = new Capture();
    const username = '\u001b]0;pwned\u0007\u001b[2J<!channel> *bold*';
    const notifier = new ConsoleNotifier({ stream, clock: new ManualClock(NOW) });

    // Act
    await notifier.publish([makeAlert({ title: username, events: [accessListEvent({ username })] })]);

    // Assess
    expect(stream.text).not.toContain('\u001b');
    expect(stream.text).not.toContain('\u0007');
    expect(stream.text).toContain(
      '\u2502 Who: \uFFFD]0;pwned\uFFFD\uFFFD[2J<!channel> \u2217bold\u2217 from 203.0.113.22',
    );
  });

  it('does not print an alert whose entry is invalid, and reports it', async () => {
    // Prepare
    const stream = new Capture();
    const notifier = new ConsoleNotifier({ stream, clock: new ManualClock(NOW) });

    // Act
    const results = await notifier.publish([
      makeAlert({ severity: 'urgent' as Severity, title: 'Never shown' }),
    ]);

    // Assess
    expect(results[0]).toMatchObject({ status: 'failed', code: 'INVALID_ENTRY', retryable: false });
    expect(stream.text).toBe('');
  });

  it('reports a stream that fails as a retryable failure', async () => {
    // Prepare
    const stream = new Writable({
      write: (_chunk, _encoding, callback) => callback(new Error('EPIPE: broken pipe')),
    });
    const notifier = new ConsoleNotifier({ stream, clock: new ManualClock(NOW) });

    // Act
    const results = await notifier.publish([makeAlert()]);

    // Assess
    expect(results[0]).toMatchObject({ status: 'failed', code: 'WRITE_FAILED', retryable: true });
    expect(results[0]?.status === 'failed' && results[0].message).toContain('EPIPE');
  });
});
