import { describe, expect, it } from 'vitest';
import { buildDigestEntries, inWords } from '../../shared/notify/digest-message.js';
import { digestPeriodAt, parseDigestPeriod } from '../../shared/notify/digest-period.js';
import { MAX_MESSAGE_BYTES, snsEntryBytes } from '../../shared/notify/entry-size.js';
import { validateSnsEntry } from '../../shared/notify/validate-sns-entry.js';
import type { DigestEntry } from '../../shared/state/index.js';

const DAY = Date.UTC(2026, 10, 27);
const period = digestPeriodAt('daily', DAY + 3_600_000);

function entry(n: number, overrides: Partial<DigestEntry> = {}): DigestEntry {
  return {
    fingerprint: `fp-${n}`,
    ruleId: 'api-key-created',
    ruleName: 'API key created',
    severity: 'low',
    raisedAt: DAY + n * 60_000,
    title: `API key ${n} created`,
    groupId: '5f4e3d2c1b0a998877665544',
    projectName: 'payments-prod',
    actor: `user${n % 7}@example.com`,
    link: 'https://cloud.mongodb.com/v2/5f4e3d2c1b0a998877665544#/activity',
    ...overrides,
  };
}

function bodyOf(part: { Message: string }): { email: string; description: string; title: string } {
  const body = JSON.parse(part.Message) as { default: string; email: string };
  const notification = JSON.parse(body.default) as { content: { description: string; title: string } };
  return { email: body.email, ...notification.content };
}

describe('buildDigestEntries', () => {
  it('groups alerts by rule and project with counts, times, actors, link and repeats', () => {
    const entries = [
      ...Array.from({ length: 9 }, (_, n) => entry(n)),
      entry(20, {
        ruleId: 'db-user-created',
        ruleName: 'Database user created',
        groupId: undefined,
        projectName: undefined,
        orgId: '5f4e3d2c1b0a998877660000',
        rollUp: { suppressed: 4, first: DAY, last: DAY + 60_000 },
      }),
    ];

    const parts = buildDigestEntries({ route: 'security', period, entries });

    expect(parts).toHaveLength(1);
    const part = parts[0] as (typeof parts)[number];
    expect(validateSnsEntry(part)).toEqual({ valid: true });
    expect(part.Subject).toBe('[DIGEST] security: 10 alerts, daily 2026-11-27');
    expect(part.MessageAttributes).toEqual({ digest: { DataType: 'String', StringValue: 'security' } });
    const { email, description } = bodyOf(part);
    expect(email).toContain('[LOW] API key created (api-key-created)');
    expect(email).toContain('Where: project payments-prod (5f4e3d2c1b0a998877665544)');
    expect(email).toContain('9 alerts: first 2026-11-27 00:00, last 2026-11-27 00:08 UTC');
    expect(email).toContain(
      'Actors: user0@example.com, user1@example.com, user2@example.com, user3@example.com, user4@example.com and two more',
    );
    expect(email).toContain('Activity feed: https://cloud.mongodb.com/v2/5f4e3d2c1b0a998877665544#/activity');
    expect(email).toContain('Where: organization 5f4e3d2c1b0a998877660000');
    expect(email).toContain(
      'Repeats: 4 more like these between 2026-11-27 00:00 and 2026-11-27 00:01 UTC were suppressed',
    );
    expect(description).toContain(
      '<https://cloud.mongodb.com/v2/5f4e3d2c1b0a998877665544#/activity|Activity feed>',
    );
  });

  it('splits a digest beyond the Chatbot and SNS limits into valid parts that say what follows in words', () => {
    const entries = Array.from({ length: 3_000 }, (_, n) =>
      entry(n, {
        ruleId: `rule-${n % 400}`,
        ruleName: `Rule ${'r'.repeat(150)} ${n % 400}`,
        actor: `${'a'.repeat(200)}${n}`,
      }),
    );

    const parts = buildDigestEntries({ route: 'security', period, entries });

    expect(parts.length).toBeGreaterThan(2);
    for (const part of parts) {
      expect(validateSnsEntry(part)).toEqual({ valid: true });
      expect(snsEntryBytes(part)).toBeLessThanOrEqual(MAX_MESSAGE_BYTES);
    }
    const first = bodyOf(parts[0] as (typeof parts)[number]);
    expect(first.email).toMatch(
      /[A-Z][a-z-]+( [a-z-]+)* more groups \(\d+ alerts\) are in part 2 to \d+ of this digest\./,
    );
    const last = bodyOf(parts.at(-1) as (typeof parts)[number]);
    expect(last.email).not.toContain('more groups');
    const counted = parts
      .flatMap((part) => [...bodyOf(part).email.matchAll(/^ {2}(\d+) alerts?:/gm)])
      .reduce((sum, match) => sum + Number(match[1]), 0);
    expect(counted).toBe(3_000);
    expect(parts[1]?.Subject).toMatch(/^\[DIGEST\] security: 3000 alerts, daily 2026-11-27 \(2\/\d+\)$/);
  });

  it('escapes every value from events for Slack, so no mention, link or formatting comes out of it', () => {
    const hostile = '<!channel> <@U024BE7LH> <https://evil.example|click> *bold* `code` & more';
    const entries = [
      entry(1, {
        ruleName: hostile,
        ruleId: hostile,
        projectName: hostile,
        actor: hostile,
        groupId: hostile,
      }),
    ];

    const parts = buildDigestEntries({ route: 'security', period, entries });

    const { description, title } = bodyOf(parts[0] as (typeof parts)[number]);
    expect(validateSnsEntry(parts[0] as (typeof parts)[number])).toEqual({ valid: true });
    const withoutFeed = description.replace(
      '<https://cloud.mongodb.com/v2/5f4e3d2c1b0a998877665544#/activity|Activity feed>',
      '',
    );
    expect(withoutFeed).not.toMatch(/[<>]/);
    expect(withoutFeed).not.toContain('`');
    expect(withoutFeed).toContain('&lt;!channel&gt;');
    expect(withoutFeed).not.toContain('*bold*');
    expect(title).not.toMatch(/[<>]/);
  });

  it('is refused by the validator when it carries a severity an alert route could take it by', () => {
    const [part] = buildDigestEntries({ route: 'security', period, entries: [entry(1)] });
    if (part === undefined) throw new Error('expected a part');

    const result = validateSnsEntry({
      ...part,
      MessageAttributes: { ...part.MessageAttributes, severity: { DataType: 'String', StringValue: 'low' } },
    });

    expect(result).toEqual({
      valid: false,
      problems: ['a digest carries the one attribute "digest": no alert route may take it by severity'],
    });
  });

  it('leaves out a stored link that is not a plain http(s) URL', () => {
    const entries = [entry(1, { link: 'https://cloud.mongodb.com/x|<!channel>' })];

    const [part] = buildDigestEntries({ route: 'security', period, entries });

    const { description, email } = bodyOf(part as NonNullable<typeof part>);
    expect(description).not.toContain('Activity feed');
    expect(description).not.toContain('<!channel>');
    expect(email).not.toContain('Activity feed');
  });

  it('sends nothing for no entries', () => {
    expect(buildDigestEntries({ route: 'security', period, entries: [] })).toEqual([]);
  });
});

describe('digestPeriodAt', () => {
  it('names UTC days and hours, and reads its ids back', () => {
    const at = Date.UTC(2026, 10, 28, 13, 5);

    const daily = digestPeriodAt('daily', at);
    const hourly = digestPeriodAt('hourly', at);

    expect(daily).toEqual({
      id: 'daily:2026-11-28',
      every: 'daily',
      start: Date.UTC(2026, 10, 28),
      end: Date.UTC(2026, 10, 29),
    });
    expect(hourly.id).toBe('hourly:2026-11-28T13');
    expect(parseDigestPeriod(hourly.id)).toEqual(hourly);
    expect(parseDigestPeriod('daily:2026-02-30')).toBeUndefined();
    expect(parseDigestPeriod('weekly:2026-11-28')).toBeUndefined();
  });
});

describe('inWords', () => {
  it('says counts in words', () => {
    expect([0, 7, 21, 40, 342, 1_200, 2_000_000].map(inWords)).toEqual([
      'zero',
      'seven',
      'twenty-one',
      'forty',
      'three hundred forty-two',
      'one thousand two hundred',
      '2000000',
    ]);
  });
});
