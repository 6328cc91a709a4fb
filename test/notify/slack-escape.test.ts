import { describe, expect, it } from 'vitest';
import { allowedMentionTokens } from '../../shared/notify/mentions.js';
import { escapeSlackText } from '../../shared/notify/slack-escape.js';
import { accessListEvent, HOSTILE_VALUES, makeAlert } from './support/alerts.js';
import { hasControlCharacter } from './support/text.js';

/** What Slack would read as a mention, a link or a control sequence. */
const SLACK_CONTROL_SEQUENCE = /<[!@#]|<https?:|<mailto:/;

describe('escapeSlackText', () => {
  it('escapes the characters Slack reserves, so a mention reads as text', () => {
    // Prepare
    const text = '<!channel> & <@U024BE7LH>';

    // Act
    const escaped = escapeSlackText(text);

    // Assess
    expect(escaped).toBe('&lt;!channel&gt; &amp; &lt;@\u2060U024BE7LH&gt;');
  });

  it('turns a disguised link into visible text', () => {
    // Prepare
    const text = '<https://evil.example|click>';

    // Act
    const escaped = escapeSlackText(text);

    // Assess
    expect(escaped).toBe('&lt;https://evil.example|click&gt;');
  });

  it('replaces formatting characters with look-alikes where they could format', () => {
    // Prepare
    const text = '*bold* _italic_ ~strike~ `code`';

    // Act
    const escaped = escapeSlackText(text);

    // Assess
    expect(escaped).toBe('\u2217bold\u2217 \u02CDitalic\u02CD \u223Cstrike\u223C \u02CBcode\u02CB');
  });

  it('keeps underscores, asterisks and tildes between letters or digits, where Slack never formats', () => {
    // Prepare
    const text = 'NETWORK_PERMISSION_ENTRY_ADDED j_doe 2*3 a~b';

    // Act
    const escaped = escapeSlackText(text);

    // Assess
    expect(escaped).toBe('NETWORK_PERMISSION_ENTRY_ADDED j_doe 2*3 a~b');
  });

  it('puts a word joiner after @ so a typed @here is never resolved', () => {
    // Prepare
    const text = '@here and @channel';

    // Act
    const escaped = escapeSlackText(text);

    // Assess
    expect(escaped).toBe('@\u2060here and @\u2060channel');
  });

  it('keeps one line unless multiline is asked for', () => {
    // Prepare
    const text = 'one\r\ntwo\nthree\u2028four';

    // Act
    const single = escapeSlackText(text);
    const multi = escapeSlackText(text, { multiline: true });

    // Assess
    expect(single).toBe('one two three four');
    expect(multi).toBe('one\ntwo\nthree\nfour');
  });

  it('replaces control characters and drops bidi overrides', () => {
    // Prepare
    const text = '\u001b[31mred\u0007 \u202Eevil\u202C';

    // Act
    const escaped = escapeSlackText(text);

    // Assess
    expect(escaped).toBe('\uFFFD[31mred\uFFFD evil');
  });

  it('cuts long text with an ellipsis without splitting an escape sequence', () => {
    // Prepare
    const text = '&&&&';

    // Act
    const escaped = escapeSlackText(text, { maxLength: 7 });

    // Assess
    expect(escaped).toBe('&amp;\u2026');
  });

  it('cuts without splitting a surrogate pair', () => {
    // Prepare
    const text = '\u{1F525}'.repeat(10);

    // Act
    const escaped = escapeSlackText(text, { maxLength: 4 });

    // Assess
    expect(escaped).toBe('\u{1F525}\u2026');
  });

  it('handles a 1 MB value in bounded time and length', () => {
    // Prepare
    const text = '<!channel>'.repeat(100_000);

    // Act
    const escaped = escapeSlackText(text, { maxLength: 200 });

    // Assess
    expect(escaped.length).toBeLessThanOrEqual(200);
    expect(escaped.endsWith('\u2026')).toBe(true);
    expect(escaped).not.toMatch(SLACK_CONTROL_SEQUENCE);
  });

  it('lets an allowed mention token through unescaped and escapes the rest', () => {
    // Prepare
    const text = '<!here> key created by <!channel>';

    // Act
    const escaped = escapeSlackText(text, { allowedMentions: new Set(['<!here>']) });

    // Assess
    expect(escaped).toBe('<!here> key created by &lt;!channel&gt;');
  });

  it('leaves no Slack control sequence in any hostile value', () => {
    // Prepare
    const values = HOSTILE_VALUES;

    // Act
    const escaped = values.map((value) => escapeSlackText(value, { multiline: true }));

    // Assess
    for (const text of escaped) {
      expect(text).not.toMatch(SLACK_CONTROL_SEQUENCE);
      expect(text).not.toMatch(/[*_~`<>]/);
      expect(hasControlCharacter(text)).toBe(false);
    }
  });
});

describe('allowedMentionTokens', () => {
  it('allows nothing when the rule does not opt in', () => {
    // Prepare
    const alert = makeAlert({ title: '<!here> API key created', allowMentions: false });

    // Act
    const tokens = allowedMentionTokens(alert);

    // Assess
    expect([...tokens]).toEqual([]);
  });

  it('allows the exact mention forms the rule text writes when it opts in', () => {
    // Prepare
    const alert = makeAlert({
      allowMentions: true,
      title: '<!here> API key created',
      summary: 'Paging <@U024BE7LH> and <!subteam^SAZ94GDB8>; <!channel> too.',
      runbook: 'Escalate to <!channel>.',
    });

    // Act
    const tokens = allowedMentionTokens(alert);

    // Assess
    expect([...tokens].sort()).toEqual(['<!channel>', '<!here>', '<!subteam^SAZ94GDB8>', '<@U024BE7LH>']);
  });

  it('refuses a mention that an event value carries, even when the template also wrote it', () => {
    // Prepare
    const alert = makeAlert({
      allowMentions: true,
      title: '<!here> access list opened by <!here>',
      events: [accessListEvent({ username: '<!here>' })],
    });

    // Act
    const tokens = allowedMentionTokens(alert);

    // Assess
    expect([...tokens]).toEqual([]);
  });

  it('refuses a mention hidden deep in an event, in a value or in a key', () => {
    // Prepare
    const deep = { a: [{ b: { c: ['x <!channel> y'] } }], '<@U024BE7LH>': 1 };
    const alert = makeAlert({
      allowMentions: true,
      title: '<!channel> and <@U024BE7LH>',
      events: [accessListEvent({ raw: deep })],
    });

    // Act
    const tokens = allowedMentionTokens(alert);

    // Assess
    expect([...tokens]).toEqual([]);
  });

  it('does not recognise mentions with labels or other forms', () => {
    // Prepare
    const alert = makeAlert({
      allowMentions: true,
      title: '<!channel|everyone> <!everyone> <#C123> <@u123>',
    });

    // Act
    const tokens = allowedMentionTokens(alert);

    // Assess
    expect([...tokens]).toEqual([]);
  });

  it('walks hostile nesting without overflowing the stack', () => {
    // Prepare
    let nested: unknown = '<!here>';
    for (let depth = 0; depth < 30_000; depth++) nested = { next: nested };
    const alert = makeAlert({
      allowMentions: true,
      title: '<!here>',
      events: [accessListEvent({ raw: nested as Record<string, unknown> })],
    });

    // Act
    const tokens = allowedMentionTokens(alert);

    // Assess
    expect([...tokens]).toEqual([]);
  });
});
