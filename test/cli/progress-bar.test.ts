import { describe, expect, it } from 'vitest';
import { createTickProgressBar } from '../../cli/progress-bar.js';
import { CapturedOutput } from './poll-command-harness.js';

const FROM = Date.parse('2026-11-20T00:00:00Z');
const TO = Date.parse('2026-11-21T00:00:00Z');

function drawn(eventsRead: number): string {
  const stream = new CapturedOutput({ isTTY: true });
  const bar = createTickProgressBar({ stream, now: () => 0 });
  bar.update({
    source: 'org:64b5c9e2f1a3d40012ab3c01',
    window: { from: FROM, to: TO },
    walkEnd: TO,
    pagesRead: 1,
    eventsRead,
    totalCount: 2,
  });
  return stream.text;
}

describe('the progress bar of a long tick', () => {
  it('counts its events in the plural only when there are several', () => {
    expect(drawn(1)).toContain(' 1 event  org:64b5c9e2f1a3d40012ab3c01 at 2026-11-20 12:00Z');
    expect(drawn(2)).toContain(' 2 events  org:64b5c9e2f1a3d40012ab3c01 at 2026-11-21 00:00Z');
    expect(drawn(1_500)).toContain(' 1,500 events  ');
  });

  it('draws nothing where the stream is not a terminal', () => {
    const stream = new CapturedOutput({ isTTY: false });
    createTickProgressBar({ stream, now: () => 0 }).update({
      source: 'org:64b5c9e2f1a3d40012ab3c01',
      window: { from: FROM, to: TO },
      walkEnd: TO,
      pagesRead: 1,
      eventsRead: 1,
      totalCount: 2,
    });

    expect(stream.text).toBe('');
  });
});
