import { describe, expect, it } from 'vitest';
import { SEVERITIES } from '../../shared/notify/alert.js';
import { toPrintableAscii } from '../../shared/notify/ascii-transliteration.js';
import { formatSubject, MAX_SUBJECT_LENGTH } from '../../shared/notify/subject.js';
import {
  accessListEvent,
  apiKeyCreatedEvent,
  HOSTILE_VALUES,
  makeAlert,
  ORG_ID,
  PROJECT_ID,
} from './support/alerts.js';

const PRINTABLE_ASCII_LINE = /^[\x21-\x7E][\x20-\x7E]*$/;

/** Where and who, as the subject of {@link named} alerts ends. */
const NOTE = ' (payments-prod, by j.doe@example.com)';

/** An alert whose project the poller named `payments-prod`, raised by j.doe@example.com. */
function named(overrides: Parameters<typeof makeAlert>[0] = {}): ReturnType<typeof makeAlert> {
  return makeAlert({
    context: { orgId: ORG_ID, orgName: 'Acme Corp', projectId: PROJECT_ID, projectName: 'payments-prod' },
    ...overrides,
  });
}

describe('formatSubject', () => {
  it('starts with the severity, then the title, then where and who', () => {
    // Prepare
    const alert = named({ severity: 'critical', title: 'Project IP access list open to 0.0.0.0/0' });

    // Act
    const subject = formatSubject(alert);

    // Assess
    expect(subject).toBe(
      '[CRITICAL] Project IP access list open to 0.0.0.0/0 (payments-prod, by j.doe@example.com)',
    );
  });

  it('gives two alerts of one rule in two projects two subjects', () => {
    // Prepare
    const prod = named();
    const staging = makeAlert({
      context: {
        orgId: ORG_ID,
        orgName: 'Acme Corp',
        projectId: PROJECT_ID,
        projectName: 'payments-staging',
      },
    });

    // Act
    const subjects = [prod, staging].map((alert) => formatSubject(alert));

    // Assess
    expect(subjects[0]).not.toBe(subjects[1]);
    expect(subjects[1]).toBe(
      '[CRITICAL] Project IP access list open to 0.0.0.0/0 (payments-staging, by j.doe@example.com)',
    );
  });

  it('names the organization of an organization event, and the project by id when its name is unknown', () => {
    // Prepare
    const orgEvent = makeAlert({
      title: 'API key zmcxkfop created',
      events: [apiKeyCreatedEvent()],
      context: { orgId: ORG_ID, orgName: 'Acme Corp' },
    });
    const unnamed = makeAlert({ title: 'Project IP access list open to 0.0.0.0/0' });

    // Act
    const subjects = [orgEvent, unnamed].map((alert) => formatSubject(alert));

    // Assess
    expect(subjects).toEqual([
      '[CRITICAL] API key zmcxkfop created (Acme Corp, by ops-admin@example.com)',
      '[CRITICAL] Project IP access list open to 0.0.0.0/0 (project 5b43...1a2, by j.doe@example.com)',
    ]);
  });

  it('leaves out the actor a title names, and names the organization of a project the title names', () => {
    // Prepare
    const alerts = [
      named({ title: 'j.doe@example.com joined the organization' }),
      named({ title: 'Backup snapshot deleted in project payments-prod' }),
      named({ title: 'Roles changed in payments-prod by j.doe@example.com' }),
    ];

    // Act
    const subjects = alerts.map((alert) => formatSubject(alert));

    // Assess
    expect(subjects).toEqual([
      '[CRITICAL] j.doe@example.com joined the organization (payments-prod)',
      '[CRITICAL] Backup snapshot deleted in project payments-prod (Acme Corp, by j.doe@example.com)',
      '[CRITICAL] Roles changed in payments-prod by j.doe@example.com (Acme Corp)',
    ]);
  });

  it('says when no user is recorded, and names several actors by the first and a count', () => {
    // Prepare
    const { username: _username, userId: _userId, ...unsigned } = accessListEvent();
    const system = named({ events: [unsigned] });
    const three = named({
      events: ['a@example.com', 'b@example.com', 'c@example.com'].map((username) =>
        accessListEvent({ username }),
      ),
    });

    // Act
    const subjects = [system, three].map((alert) => formatSubject(alert));

    // Assess
    expect(subjects).toEqual([
      '[CRITICAL] Project IP access list open to 0.0.0.0/0 (payments-prod, no user recorded)',
      '[CRITICAL] Project IP access list open to 0.0.0.0/0 (payments-prod, by a@example.com and 2 others)',
    ]);
  });

  it('says an inventory finding was found, not done, and whether it predates the deployment', () => {
    // Prepare
    const finding = (preExisting: boolean) =>
      named({
        title: 'API key qkzvbgyt usable from 0.0.0.0/0',
        events: [
          {
            id: 'inv-1',
            created: '2026-11-22T06:10:00Z',
            eventTypeName: 'INVENTORY_ACCESS_LIST_ENTRY_ADDED',
            source: 'inventory',
            orgId: ORG_ID,
            apiKeyId: '64b5cc01f1a3d40012ab3f01',
            targetPublicKey: 'qkzvbgyt',
            accessListEntry: '0.0.0.0/0',
            ...(preExisting ? { preExisting: true } : {}),
          },
        ],
      });

    // Act
    const subjects = [finding(true), finding(false)].map((alert) => formatSubject(alert));

    // Assess
    expect(subjects).toEqual([
      '[CRITICAL] API key qkzvbgyt usable from 0.0.0.0/0 (Acme Corp, pre-existing, first inventory)',
      '[CRITICAL] API key qkzvbgyt usable from 0.0.0.0/0 (Acme Corp, found by the inventory)',
    ]);
  });

  it("keeps where and who and cuts the actor's e-mail domain first, then the title, when all does not fit", () => {
    // Prepare
    const fits = named({
      severity: 'high',
      title: 'Data Explorer deleteDocument on payments.transactions_2024',
    });
    const longer = named({
      severity: 'high',
      title: 'Data Explorer deleteDocument on payments.transactions_archive_2024',
    });

    // Act
    const subjects = [fits, longer].map((alert) => formatSubject(alert));

    // Assess
    expect(subjects).toEqual([
      '[HIGH] Data Explorer deleteDocument on payments.transactions_2024 (payments-prod, by j.doe@...)',
      '[HIGH] Data Explorer deleteDocument on payments.transactions_archi... (payments-prod, by j.doe@...)',
    ]);
  });

  it('labels every severity in capitals', () => {
    // Prepare
    const alerts = SEVERITIES.map((severity) => named({ severity, title: 'Key created' }));

    // Act
    const subjects = alerts.map((alert) => formatSubject(alert));

    // Assess
    expect(subjects).toEqual([
      `[INFO] Key created${NOTE}`,
      `[LOW] Key created${NOTE}`,
      `[MEDIUM] Key created${NOTE}`,
      `[HIGH] Key created${NOTE}`,
      `[CRITICAL] Key created${NOTE}`,
    ]);
  });

  it('transliterates accented letters and typographic punctuation to ASCII, in the title and the place', () => {
    // Prepare
    const alert = named({
      severity: 'high',
      title: 'Zugriff für „Jürgen“ – Straße ‘Ødegård’…',
      context: { projectId: PROJECT_ID, projectName: 'Zahlungen–Prüfung' },
    });

    // Act
    const subject = formatSubject(alert);

    // Assess
    expect(subject).toBe(
      '[HIGH] Zugriff fur "Jurgen" - Strasse \'Odegard\'... (Zahlungen-Prufung, by j.doe@example.com)',
    );
  });

  it('drops what has no ASCII spelling and keeps the rest', () => {
    // Prepare
    const alert = named({ severity: 'low', title: 'Cluster 数据库 deleted 🔥 for 山田' });

    // Act
    const subject = formatSubject(alert);

    // Assess
    expect(subject).toBe(`[LOW] Cluster deleted for${NOTE}`);
  });

  it('turns line breaks, tabs and control characters into single spaces on one line', () => {
    // Prepare
    const alert = named({ title: 'API key\r\ncreated\tfor \u001b[31mroot\u0007\u2028now' });

    // Act
    const subject = formatSubject(alert);

    // Assess
    expect(subject).toBe(`[CRITICAL] API key created for [31mroot now${NOTE}`);
  });

  it('falls back to the rule name when the title has nothing printable', () => {
    // Prepare
    const alert = named({ title: '🔥🔥 \u200B', ruleName: 'Cluster deleted' });

    // Act
    const subject = formatSubject(alert);

    // Assess
    expect(subject).toBe(`[CRITICAL] Cluster deleted${NOTE}`);
  });

  it('cuts a 500-character title to fit 99 characters, ending it with an ASCII ellipsis before where and who', () => {
    // Prepare
    const alert = named({
      title: `API key created ${'with a very long description '.repeat(20)}`.slice(0, 500),
    });

    // Act
    const subject = formatSubject(alert);

    // Assess
    expect(subject.length).toBeLessThanOrEqual(MAX_SUBJECT_LENGTH);
    expect(subject).toMatch(PRINTABLE_ASCII_LINE);
    expect(subject.startsWith('[CRITICAL] API key created with a very long')).toBe(true);
    expect(subject.endsWith('... (payments-prod, by j.doe@...)')).toBe(true);
  });

  it('cuts at a word boundary when one is near the limit', () => {
    // Prepare
    const alert = named({ severity: 'info', title: `${'word '.repeat(40)}` });

    // Act
    const subject = formatSubject(alert);

    // Assess
    expect(subject).toMatch(/ word\.\.\. \(payments-prod, by j\.doe@\.\.\.\)$/);
  });

  it('cuts a title without spaces in the middle of the word rather than losing it', () => {
    // Prepare
    const alert = named({ title: 'x'.repeat(500) });
    const note = ' (payments-prod, by j.doe@...)';

    // Act
    const subject = formatSubject(alert);

    // Assess
    expect(subject).toBe(`[CRITICAL] ${'x'.repeat(MAX_SUBJECT_LENGTH - 14 - note.length)}...${note}`);
  });

  it('cuts a long actor, then a long place, so that the first 40 characters of the title stay', () => {
    // Prepare
    const alert = named({
      title: 'Project IP access list open to 0.0.0.0/0',
      context: { projectId: PROJECT_ID, projectName: 'p'.repeat(100) },
      events: [accessListEvent({ username: `${'u'.repeat(80)}@example.com` })],
    });

    // Act
    const subject = formatSubject(alert);

    // Assess
    expect(subject).toBe(
      `[CRITICAL] Project IP access list open to 0.0.0.0/0 (${'p'.repeat(28)}..., by ${'u'.repeat(6)}...)`,
    );
  });

  it('gives a printable ASCII line of at most 99 characters for every hostile title, place and actor', () => {
    // Prepare
    const values = [
      ...HOSTILE_VALUES,
      '\u0000'.repeat(1_000),
      'é'.repeat(500),
      '\uD83D'.repeat(300),
      ' '.repeat(200),
    ];

    // Act
    const subjects = values.flatMap((value) => [
      formatSubject(named({ title: value })),
      formatSubject(named({ context: { projectId: PROJECT_ID, projectName: value } })),
      formatSubject(named({ events: [accessListEvent({ username: value })] })),
    ]);

    // Assess
    for (const subject of subjects) {
      expect(subject.length).toBeLessThanOrEqual(MAX_SUBJECT_LENGTH);
      expect(subject).toMatch(PRINTABLE_ASCII_LINE);
    }
  });
});

describe('toPrintableAscii', () => {
  it('spells full-width letters and ligatures in ASCII', () => {
    // Prepare
    const text = 'Ａｔｌａｓ ﬁle';

    // Act
    const ascii = toPrintableAscii(text);

    // Assess
    expect(ascii).toBe('Atlas file');
  });

  it('collapses runs of white space and trims both ends', () => {
    // Prepare
    const text = '  a \n\n\t b  ';

    // Act
    const ascii = toPrintableAscii(text);

    // Assess
    expect(ascii).toBe('a b');
  });

  it.each([
    ['plain words within the limit', 'Key created by ops', 99, 'Key created by ops'],
    ['text of exactly the limit', 'x'.repeat(99), 99, 'x'.repeat(99)],
    ['text one past the limit', 'x'.repeat(101), 99, 'x'.repeat(100)],
    ['a leading space', ' a b', 99, 'a b'],
    ['a trailing space', 'a b ', 99, 'a b'],
    ['a double space', 'a  b', 99, 'a b'],
    ['a tab', 'a\tb', 99, 'a b'],
    ['DEL', 'a\u007Fb', 99, 'ab'],
    ['a non-ASCII letter', 'caf\u00e9', 99, 'cafe'],
    ['words past the limit', 'ab cd ef', 3, 'ab c'],
  ])('gives the same text for %s', (_, text, maxLength, expected) => {
    // Act
    const ascii = toPrintableAscii(text, maxLength);

    // Assess
    expect(ascii).toBe(expected);
  });
});
