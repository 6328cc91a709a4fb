import { describe, expect, it } from 'vitest';
import type { AtlasEvent } from '../../shared/atlas/types.js';
import type { CompileContext } from '../../shared/rules/conditions.js';
import {
  compileDistinctCount,
  type DistinctSighting,
  DistinctWindows,
} from '../../shared/rules/distinct-count.js';

function contextOf(): CompileContext {
  return { lists: new Map(), problems: [] };
}

function compiled(field = 'username', groupBy: string[] = ['remoteAddress']) {
  const context = contextOf();
  const result = compileDistinctCount({ field, count: 3, window: '10m' }, groupBy, context);
  expect(context.problems).toEqual([]);
  if (result === undefined) throw new Error('expected the distinct count to compile');
  return result;
}

describe('compileDistinctCount', () => {
  it('keeps the count and reads the window as a duration', () => {
    const context = contextOf();

    const result = compileDistinctCount({ field: 'username', count: 12, window: '1h30m' }, [], context);

    expect(result).toMatchObject({ count: 12, windowMs: 90 * 60_000 });
    expect(context.problems).toEqual([]);
  });

  it('counts the field value of an event whose group fields are all present', () => {
    const distinct = compiled('username', ['remoteAddress', 'groupId']);

    expect(distinct.valueOf({ remoteAddress: '203.0.113.7', groupId: 'g1', username: 'alice' })).toBe(
      'alice',
    );
  });

  it('counts nothing for an event whose field is missing, null or empty', () => {
    const distinct = compiled();

    const values = [{}, { username: null }, { username: '' }].map((fields) =>
      distinct.valueOf({ remoteAddress: '203.0.113.7', ...fields } as AtlasEvent),
    );

    expect(values).toEqual([undefined, undefined, undefined]);
  });

  it('counts nothing for an event with any group field missing, null or empty', () => {
    const distinct = compiled('username', ['remoteAddress', 'groupId']);

    const values = [
      { groupId: 'g1' },
      { groupId: 'g1', remoteAddress: null },
      { groupId: 'g1', remoteAddress: '' },
      { remoteAddress: '203.0.113.7' },
    ].map((fields) => distinct.valueOf({ username: 'alice', ...fields } as AtlasEvent));

    expect(values).toEqual([undefined, undefined, undefined, undefined]);
  });

  it('counts without a group, every event in one', () => {
    const distinct = compiled('username', []);

    expect(distinct.valueOf({ username: 'alice' })).toBe('alice');
  });

  it('compares addresses in one spelling, and other values as written', () => {
    const distinct = compiled('remoteAddress', ['username']);
    const of = (remoteAddress: unknown) =>
      distinct.valueOf({ username: 'alice', remoteAddress } as AtlasEvent);

    expect([of('[2001:DB8::1]:443'), of('2001:db8:0::1'), of('::ffff:203.0.113.5')]).toEqual([
      '2001:db8::1',
      '2001:db8::1',
      '203.0.113.5',
    ]);
    expect([of('Alice'), of(42), of(false)]).toEqual(['Alice', '42', 'false']);
  });

  it('reads nested and array fields, the first value of an array', () => {
    const distinct = compiled('target.names[]', []);

    expect(distinct.valueOf({ target: { names: ['bob', 'carol'] } } as AtlasEvent)).toBe('bob');
  });

  it('bounds long values with a hash, so a hostile name cannot grow the state', () => {
    const distinct = compiled();
    const long = 'x'.repeat(10_000);

    const value = distinct.valueOf({ remoteAddress: '203.0.113.7', username: long });
    const other = distinct.valueOf({ remoteAddress: '203.0.113.7', username: `${long}y` });

    expect(value).toMatch(/^#[A-Za-z0-9_-]{43}$/);
    expect(other).toMatch(/^#/);
    expect(other).not.toBe(value);
  });

  it('reports a field that is not a path and a window that is not a duration, under distinct_count', () => {
    const context = contextOf();

    const result = compileDistinctCount({ field: 'user name', count: 3, window: '10 minutes' }, [], context);

    expect(result).toBeUndefined();
    expect(context.problems).toEqual([
      {
        code: 'INVALID_FIELD_PATH',
        path: ['distinct_count', 'field'],
        message: expect.stringContaining('"user name"'),
      },
      {
        code: 'INVALID_DURATION',
        path: ['distinct_count', 'window'],
        message:
          '"10 minutes" is not a duration: write days, hours, minutes and seconds such as 30s, 10m, 1h or 1d (more than 0, at most 366d)',
      },
    ]);
  });

  it('refuses a bad field alone, or a bad window alone', () => {
    const badField = contextOf();
    const badWindow = contextOf();

    const first = compileDistinctCount({ field: 'a..b', count: 3, window: '10m' }, [], badField);
    const second = compileDistinctCount({ field: 'username', count: 3, window: '0s' }, [], badWindow);

    expect([first, second]).toEqual([undefined, undefined]);
    expect(badField.problems.map((problem) => problem.path)).toEqual([['distinct_count', 'field']]);
    expect(badWindow.problems.map((problem) => problem.path)).toEqual([['distinct_count', 'window']]);
  });

  it('leaves an invalid group_by path to the rule compiler, and reads the valid ones', () => {
    const context = contextOf();

    const result = compileDistinctCount(
      { field: 'username', count: 3, window: '10m' },
      ['remoteAddress', 'bad path'],
      context,
    );

    expect(context.problems).toEqual([]);
    expect(result?.valueOf({ username: 'alice' })).toBeUndefined();
    expect(result?.valueOf({ username: 'alice', remoteAddress: '203.0.113.7' })).toBe('alice');
  });
});

const WINDOW_END = 600_000;

function sighting(eventId: string, value: string, answer: number, time = 0, count = 3): DistinctSighting {
  return {
    key: 'distinct|spray|203.0.113.7|0',
    windowEnd: WINDOW_END,
    count,
    answer,
    value,
    eventId,
    time,
    event: { id: eventId, username: value },
  };
}

function ids(judgement: ReturnType<DistinctWindows['judge']>): unknown {
  return judgement.alerts ? judgement.events.map((event) => event.id) : false;
}

describe('DistinctWindows', () => {
  it('alerts for the event whose answer reaches the count, with the first event of each value', () => {
    const windows = new DistinctWindows();

    const judged = [
      windows.judge(sighting('e1', 'alice', 1, 1)),
      windows.judge(sighting('e2', 'bob', 2, 2)),
      windows.judge(sighting('e3', 'bob', 2, 3)),
      windows.judge(sighting('e4', 'carol', 3, 4)),
    ];

    expect(judged.map(ids)).toEqual([false, false, false, ['e1', 'e2', 'e4']]);
    expect(judged[0]).toEqual({ alerts: false });
  });

  it('does not alert again for a value repeated in a full window, nor for a new value past the count', () => {
    const windows = new DistinctWindows();
    windows.judge(sighting('e1', 'alice', 1, 1));
    windows.judge(sighting('e2', 'bob', 2, 2));
    windows.judge(sighting('e3', 'carol', 3, 3));

    const judged = [
      windows.judge(sighting('e4', 'alice', 3, 4)),
      windows.judge(sighting('e5', 'dave', 4, 5)),
      windows.judge(sighting('e6', 'carol', 3, 6)),
    ];

    expect(judged).toEqual([{ alerts: false }, { alerts: false }, { alerts: false }]);
  });

  it('alerts again for the event that reached the count when it is read again', () => {
    const windows = new DistinctWindows();
    windows.judge(sighting('e1', 'alice', 1, 1));
    windows.judge(sighting('e2', 'bob', 2, 2));
    windows.judge(sighting('e3', 'carol', 3, 3));

    const again = [
      windows.judge(sighting('e1', 'alice', 3, 1)),
      windows.judge(sighting('e2', 'bob', 3, 2)),
      windows.judge(sighting('e3', 'carol', 3, 3)),
    ];

    expect(again.map(ids)).toEqual([false, false, ['e1', 'e2', 'e3']]);
  });

  it('starting on a window the store already holds full, alerts once, for the first event answered the count', () => {
    const windows = new DistinctWindows();

    const judged = [
      windows.judge(sighting('e2', 'bob', 3, 2)),
      windows.judge(sighting('e3', 'carol', 3, 3)),
      windows.judge(sighting('e2', 'bob', 3, 2)),
    ];

    expect(judged.map(ids)).toEqual([['e2'], false, ['e2', 'e3']]);
  });

  it('keeps no event of a value the store did not count', () => {
    const windows = new DistinctWindows();
    windows.judge(sighting('e1', 'alice', 3, 1, 2));

    const judged = windows.judge(sighting('e2', 'bob', 2, 2, 2));

    expect(ids(judged)).toEqual(['e2']);
  });

  it('keeps at most count values of a window, whatever the store answers', () => {
    const windows = new DistinctWindows();
    windows.judge(sighting('e1', 'alice', 1, 1, 2));
    windows.judge(sighting('e2', 'bob', 2, 2, 2));
    windows.judge(sighting('e3', 'carol', 1, 3, 2));

    const judged = windows.judge(sighting('e2', 'bob', 2, 2, 2));

    expect(ids(judged)).toEqual(['e1', 'e2']);
  });

  it('orders the events by time then id, whatever order they come in', () => {
    const windows = new DistinctWindows();
    windows.judge(sighting('e9', 'carol', 1, 30));
    windows.judge(sighting('e5', 'bob', 2, 10));
    windows.judge(sighting('e7', 'dave', 3, 10, 5));
    windows.judge(sighting('e6', 'erin', 4, 10, 5));

    const judged = windows.judge(sighting('e1', 'frank', 5, 20, 5));

    expect(ids(judged)).toEqual(['e5', 'e6', 'e7', 'e1', 'e9']);
  });

  it('keeps the windows of each key apart', () => {
    const windows = new DistinctWindows();
    windows.judge({ ...sighting('e1', 'alice', 1), key: 'other' });
    windows.judge(sighting('e2', 'bob', 1));

    const judged = windows.judge({ ...sighting('e3', 'carol', 2, 0, 2), key: 'other' });

    expect(ids(judged)).toEqual(['e1', 'e3']);
    expect(windows.size).toBe(2);
  });

  it('forgets windows that have ended once more than 1,024 are held, and no others', () => {
    const windows = new DistinctWindows();
    for (let at = 0; at < 1_024; at++) {
      windows.judge({ ...sighting(`e${at}`, 'alice', 1), key: `k${at}`, windowEnd: at < 10 ? 100 : 200 });
    }
    windows.forgetEnded(1_000);
    const kept = windows.size;
    windows.judge({ ...sighting('last', 'alice', 1), key: 'last', windowEnd: 200 });

    windows.forgetEnded(100);

    expect(kept).toBe(1_024);
    expect(windows.size).toBe(1_015);
  });

  it('forgets a window at its very end, and remembers one still open', () => {
    const windows = new DistinctWindows();
    for (let at = 0; at < 1_025; at++) {
      windows.judge({ ...sighting(`e${at}`, 'alice', 1), key: `k${at}`, windowEnd: 100 + at });
    }

    windows.forgetEnded(101);

    expect(windows.size).toBe(1_023);
  });
});
