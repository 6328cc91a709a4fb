import { describe, expect, it } from 'vitest';
import { formatStatusTable } from '../../cli/status-table.js';

describe('formatStatusTable', () => {
  it('shows a stored error on one line, without bidi overrides or invisible characters', () => {
    // Prepare: a message kept in state by a version that did not clean Atlas's words.
    const now = Date.parse('2025-06-02T12:00:00Z');
    const message =
      'Atlas answered 404 (No group\u2028named \u202Eorp-tset\u202C\u200B here\u0007): check it';

    // Act
    const table = formatStatusTable(
      [
        {
          source: 'project:64b5ca17f1a3d40012ab3d11',
          alertsLastDay: 0,
          lastError: { code: 'GROUP_NOT_FOUND', message, at: now - 60_000 },
        },
      ],
      now,
    );

    // Assess
    const lines = table.trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[1]).toContain(
      'GROUP_NOT_FOUND 1m ago: Atlas answered 404 (No group named orp-tset here ): check it',
    );
    expect(table).not.toMatch(/[\u2028\u202A-\u202E\u200B]/);
    expect(table).not.toContain(String.fromCharCode(7));
  });

  it('groups the sources by connection, in a column of its own, once one was polled through a connection', () => {
    // Prepare
    const now = Date.parse('2025-06-02T12:00:00Z');
    const source = (id: string, connection?: string) => ({
      source: `project:${id}`,
      ...(connection === undefined ? {} : { connection }),
      watermark: now - 60_000,
      polledAt: now - 30_000,
      alertsLastDay: 1,
    });

    // Act
    const grouped = formatStatusTable(
      [
        source('64b5ca17f1a3d40012ab3d11', 'data-centre'),
        source('64b5ca17f1a3d40012ab3d12'),
        source('64b5ca17f1a3d40012ab3d13', 'data-centre'),
      ],
      now,
    );
    const single = formatStatusTable([source('64b5ca17f1a3d40012ab3d12')], now);

    // Assess
    expect(
      grouped
        .trimEnd()
        .split('\n')
        .map((line) => line.split(/ {2,}/).slice(0, 2).join(' | ')),
    ).toEqual([
      'CONNECTION | SOURCE',
      'data-centre | project:64b5ca17f1a3d40012ab3d11',
      'data-centre | project:64b5ca17f1a3d40012ab3d13',
      'default | project:64b5ca17f1a3d40012ab3d12',
    ]);
    expect(single).not.toContain('CONNECTION');
  });
});
