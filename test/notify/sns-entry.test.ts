import { describe, expect, it } from 'vitest';
import type { AtlasEvent } from '../../shared/atlas/types.js';
import { SEVERITIES } from '../../shared/notify/alert.js';
import { chatbotNotificationSchema } from '../../shared/notify/chatbot-notification.js';
import { RAW_EVENT_OMITTED, SUMMARY_CUT_NOTE } from '../../shared/notify/email-formatter.js';
import { MAX_MESSAGE_BYTES, snsEntryBytes } from '../../shared/notify/entry-size.js';
import {
  buildMessageAttributes,
  MAX_ATTRIBUTE_VALUE_LENGTH,
  MAX_MESSAGE_ATTRIBUTES,
} from '../../shared/notify/message-attributes.js';
import { buildSnsEntry, type SnsEntry, type SnsMessageBody } from '../../shared/notify/sns-entry.js';
import { validateSnsEntry } from '../../shared/notify/validate-sns-entry.js';
import {
  ATLAS_CONTEXT,
  accessListEvent,
  apiKeyCreatedEvent,
  HOSTILE_VALUES,
  makeAlert,
  ORG_ID,
  PROJECT_ID,
} from './support/alerts.js';
import { rawEventJson } from './support/text.js';

function body(entry: SnsEntry): SnsMessageBody {
  return JSON.parse(entry.Message) as SnsMessageBody;
}

describe('buildSnsEntry', () => {
  it('builds a valid PublishBatch entry with a JSON message for Chatbot and email', () => {
    // Prepare
    const alert = makeAlert();

    // Act
    const entry = buildSnsEntry(alert, { id: 'alert-0', context: ATLAS_CONTEXT });

    // Assess
    expect(validateSnsEntry(entry)).toEqual({ valid: true });
    expect(entry).toMatchObject({
      Id: 'alert-0',
      Subject:
        '[CRITICAL] Project IP access list open to 0.0.0.0/0 (project 5b43...1a2, by j.doe@example.com)',
      MessageStructure: 'json',
    });
    const message = body(entry);
    expect(Object.keys(message)).toEqual(['default', 'email']);
    expect(chatbotNotificationSchema.safeParse(JSON.parse(message.default)).success).toBe(true);
    expect(
      message.email.startsWith('Project IP access list open to 0.0.0.0/0\n\nSeverity:      CRITICAL\n'),
    ).toBe(true);
  });

  it('gives a valid message under 256 KB for a 300 KB event, cutting the raw event first', () => {
    // Prepare
    const alert = makeAlert({ events: [accessListEvent({ raw: { payload: 'p'.repeat(300 * 1024) } })] });

    // Act
    const entry = buildSnsEntry(alert, { id: 'alert-0', context: ATLAS_CONTEXT });

    // Assess
    expect(validateSnsEntry(entry)).toEqual({ valid: true });
    expect(snsEntryBytes(entry)).toBeLessThanOrEqual(MAX_MESSAGE_BYTES);
    const { email } = body(entry);
    const raw = JSON.parse(rawEventJson(email));
    expect(raw.raw.payload).toMatch(/\.\.\. \[307200 characters in all\]$/);
    expect(raw.raw.payload.length).toBeGreaterThan(200_000);
    expect(raw.username).toBe('j.doe@example.com');
    expect(email).toContain(makeAlert().summary);
  });

  it('uses the room it has: a large event keeps as much as fits', () => {
    // Prepare
    const values = Array.from({ length: 400 }, (_, index) => `value ${index} ${'x'.repeat(1_000)}`);
    const alert = makeAlert({ events: [accessListEvent({ raw: { values } })] });

    // Act
    const entry = buildSnsEntry(alert, { id: 'alert-0', context: ATLAS_CONTEXT });

    // Assess
    expect(validateSnsEntry(entry)).toEqual({ valid: true });
    expect(snsEntryBytes(entry)).toBeGreaterThan(MAX_MESSAGE_BYTES * 0.5);
  });

  it('counts bytes, not characters, for multi-byte events', () => {
    // Prepare
    const alert = makeAlert({ events: [accessListEvent({ username: '\u{1F525}'.repeat(100_000) })] });

    // Act
    const entry = buildSnsEntry(alert, { id: 'alert-0', context: ATLAS_CONTEXT });

    // Assess
    expect(Buffer.byteLength(entry.Message, 'utf8')).toBeLessThanOrEqual(MAX_MESSAGE_BYTES);
    expect(validateSnsEntry(entry)).toEqual({ valid: true });
  });

  it('cuts the summary once the raw event is gone, when the summary alone is too large', () => {
    // Prepare
    const alert = makeAlert({
      summary: 'S'.repeat(1024 * 1024),
      events: [accessListEvent({ username: 'u'.repeat(300_000) })],
    });

    // Act
    const entry = buildSnsEntry(alert, { id: 'alert-0', context: ATLAS_CONTEXT });

    // Assess
    expect(validateSnsEntry(entry)).toEqual({ valid: true });
    const { email } = body(entry);
    expect(email).toContain(RAW_EVENT_OMITTED);
    expect(email).toContain(SUMMARY_CUT_NOTE);
    expect(snsEntryBytes(entry)).toBeGreaterThan(MAX_MESSAGE_BYTES - 2_048);
  });

  it('builds a valid entry for a 1 MB hostile user name in every field', () => {
    // Prepare
    const username = `<!channel>${'\u0000*_~`<>&'.repeat(125_000)}`;
    const alert = makeAlert({
      title: username,
      summary: username,
      runbook: username,
      events: [accessListEvent({ username })],
    });

    // Act
    const entry = buildSnsEntry(alert, { id: 'alert-0', context: ATLAS_CONTEXT });

    // Assess
    expect(validateSnsEntry(entry)).toEqual({ valid: true });
    expect(JSON.parse(body(entry).default).content.description).not.toContain('<!channel>');
  });

  it('builds a valid entry for every hostile value', () => {
    // Prepare
    const alerts = HOSTILE_VALUES.map((value) =>
      makeAlert({
        title: value,
        ruleId: value,
        fingerprint: value,
        events: [accessListEvent({ username: value, groupId: value })],
      }),
    );

    // Act
    const entries = alerts.map((alert) => buildSnsEntry(alert, { id: 'alert-0', context: ATLAS_CONTEXT }));

    // Assess
    for (const entry of entries) expect(validateSnsEntry(entry)).toEqual({ valid: true });
  });

  it('stays valid under a tighter byte limit', () => {
    // Prepare
    const alert = makeAlert({ events: [accessListEvent({ raw: { payload: 'p'.repeat(100_000) } })] });

    // Act
    const entry = buildSnsEntry(alert, { id: 'alert-0', context: ATLAS_CONTEXT, maxBytes: 20_000 });

    // Assess
    expect(snsEntryBytes(entry)).toBeLessThanOrEqual(20_000);
    expect(validateSnsEntry(entry, { maxBytes: 20_000 })).toEqual({ valid: true });
  });
});

describe('buildSnsEntry at the edge of the headroom', () => {
  /** The entry with no size pressure, and its size. */
  function wholeEntry(alert: ReturnType<typeof makeAlert>): { entry: SnsEntry; bytes: number } {
    const entry = buildSnsEntry(alert, { id: 'alert-0', context: ATLAS_CONTEXT });
    return { entry, bytes: snsEntryBytes(entry) };
  }

  it('keeps the raw event whole when the entry leaves exactly 512 bytes free, and cuts it with one byte less', () => {
    // Prepare
    const alert = makeAlert({ events: [accessListEvent({ raw: { payload: 'p'.repeat(2_000) } })] });
    const whole = wholeEntry(alert);

    // Act
    const atEdge = buildSnsEntry(alert, {
      id: 'alert-0',
      context: ATLAS_CONTEXT,
      maxBytes: whole.bytes + 512,
    });
    const pastEdge = buildSnsEntry(alert, {
      id: 'alert-0',
      context: ATLAS_CONTEXT,
      maxBytes: whole.bytes + 511,
    });

    // Assess
    expect(atEdge).toEqual(whole.entry);
    expect(body(pastEdge).email).toContain('Raw event (cut to fit the message size limit');
    expect(snsEntryBytes(pastEdge)).toBeLessThanOrEqual(whole.bytes + 511);
  });

  it('takes the budgeted passes for an event nested deeper than the uncut pass keeps', () => {
    // Prepare: past 32 levels, a value too long for the message; above, a list of 600 short items.
    let nested: unknown = 'x'.repeat(300_000);
    for (let level = 0; level < 40; level++) nested = { level: nested };
    const raw = { list: Array.from({ length: 600 }, (_, index) => index), nested };
    const alert = makeAlert({ events: [accessListEvent({ raw })] });

    // Act
    const entry = buildSnsEntry(alert, { id: 'alert-0', context: ATLAS_CONTEXT });

    // Assess: the strings alone exceed the budget, so the uncut pass is skipped and the list thinned.
    expect(validateSnsEntry(entry)).toEqual({ valid: true });
    const { email } = body(entry);
    expect(email).toContain('[100 more items]');
    expect(email).toContain('nested deeper than 32 levels');
  });
});

describe('buildMessageAttributes', () => {
  it('carries severity, its rank, the rule, the event type, org and project', () => {
    // Prepare
    const alert = makeAlert();

    // Act
    const attributes = buildMessageAttributes(alert);

    // Assess
    expect(attributes).toEqual({
      severity: { DataType: 'String', StringValue: 'critical' },
      severityRank: { DataType: 'Number', StringValue: '5' },
      ruleId: { DataType: 'String', StringValue: 'network-access-open-to-internet' },
      eventTypeName: { DataType: 'String', StringValue: 'NETWORK_PERMISSION_ENTRY_ADDED' },
      orgId: { DataType: 'String', StringValue: ORG_ID },
      groupId: { DataType: 'String', StringValue: PROJECT_ID },
      tags: { DataType: 'String.Array', StringValue: '["network"]' },
      connection: { DataType: 'String', StringValue: 'default' },
    });
  });

  it('carries the connection the event was read through, default when the alert names none', () => {
    // Prepare
    const elsewhere = makeAlert({ context: { orgId: ORG_ID, connection: 'data-centre' } });

    // Act
    const attributes = buildMessageAttributes(elsewhere);

    // Assess
    expect(attributes.connection).toEqual({ DataType: 'String', StringValue: 'data-centre' });
    expect(Object.keys(attributes)).toHaveLength(MAX_MESSAGE_ATTRIBUTES - 2);
    expect(validateSnsEntry(buildSnsEntry(elsewhere, { id: 'alert-0', context: ATLAS_CONTEXT }))).toEqual({
      valid: true,
    });
  });

  it('carries the names the alert shows, and the organization Atlas says holds the project', () => {
    // Prepare
    const alert = makeAlert({
      events: [withoutOrg(accessListEvent())],
      context: { orgId: ORG_ID, orgName: 'Acme Corp', projectId: PROJECT_ID, projectName: 'payments-prod' },
    });

    // Act
    const attributes = buildMessageAttributes(alert);

    // Assess
    expect(attributes.orgId).toEqual({ DataType: 'String', StringValue: ORG_ID });
    expect(attributes.orgName).toEqual({ DataType: 'String', StringValue: 'Acme Corp' });
    expect(attributes.groupName).toEqual({ DataType: 'String', StringValue: 'payments-prod' });
    expect(Object.keys(attributes).length).toBeLessThanOrEqual(MAX_MESSAGE_ATTRIBUTES);
  });

  it('carries whole tags only, within the value cap, once each', () => {
    // Prepare
    const long = 'x'.repeat(300);
    const many = Array.from({ length: 40 }, (_, at) => `tag-${at}`);
    const alert = makeAlert({ tags: ['impact', long, 'impact', ...many] });

    // Act
    const value = buildMessageAttributes(alert).tags?.StringValue ?? '';

    // Assess
    const tags = JSON.parse(value) as string[];
    expect(value.length).toBeLessThanOrEqual(MAX_ATTRIBUTE_VALUE_LENGTH);
    expect(tags.slice(0, 3)).toEqual(['impact', 'tag-0', 'tag-1']);
    expect(tags.every((tag) => tag === 'impact' || many.includes(tag))).toBe(true);
    expect(new Set(tags).size).toBe(tags.length);
  });

  it('leaves the tags out when the rule has none', () => {
    // Act
    const attributes = buildMessageAttributes(makeAlert({ tags: [] }));

    // Assess
    expect(attributes.tags).toBeUndefined();
  });

  it('ranks severities from 1 for info to 5 for critical', () => {
    // Prepare
    const alerts = SEVERITIES.map((severity) => makeAlert({ severity }));

    // Act
    const ranks = alerts.map((alert) => buildMessageAttributes(alert).severityRank?.StringValue);

    // Assess
    expect(ranks).toEqual(['1', '2', '3', '4', '5']);
  });

  it('leaves out org and project when the event has none or an empty one', () => {
    // Prepare
    const alert = makeAlert({ events: [apiKeyCreatedEvent({ orgId: '  ' })], tags: [] });

    // Act
    const attributes = buildMessageAttributes(alert);

    // Assess
    expect(Object.keys(attributes)).toEqual([
      'severity',
      'severityRank',
      'ruleId',
      'eventTypeName',
      'connection',
    ]);
  });

  it('cleans and cuts hostile values to what SNS takes', () => {
    // Prepare
    const alert = makeAlert({
      events: [accessListEvent({ eventTypeName: `A\u0000B\r\n\uFFFE${'C'.repeat(1_000)}` })],
    });

    // Act
    const value = buildMessageAttributes(alert).eventTypeName?.StringValue ?? '';

    // Assess
    expect(value.startsWith('A\uFFFDB C')).toBe(true);
    expect(value.length).toBe(256);
    expect(value.endsWith('...')).toBe(true);
  });
});

function withoutOrg(event: AtlasEvent): AtlasEvent {
  const { orgId: _orgId, ...rest } = event;
  return rest;
}
