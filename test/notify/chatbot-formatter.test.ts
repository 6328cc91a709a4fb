import { describe, expect, it } from 'vitest';
import { formatChatbotNotification } from '../../shared/notify/chatbot-formatter.js';
import {
  CHATBOT_DESCRIPTION_MAX_LENGTH,
  CHATBOT_TITLE_MAX_LENGTH,
  chatbotNotificationSchema,
} from '../../shared/notify/chatbot-notification.js';
import type { FormatContext } from '../../shared/notify/format-context.js';
import {
  ATLAS_CONTEXT,
  accessListEvent,
  apiKeyCreatedEvent,
  automationConfigEvent,
  dataExplorerEvent,
  HOSTILE_VALUES,
  makeAlert,
  NOW,
  ORG_ID,
  PROJECT_ID,
} from './support/alerts.js';

/** Every text of a notification that Slack renders. */
function renderedTexts(notification: ReturnType<typeof formatChatbotNotification>): string[] {
  return [
    notification.content.title ?? '',
    notification.content.description,
    ...(notification.content.nextSteps ?? []),
    ...(notification.content.keywords ?? []),
    notification.metadata?.summary ?? '',
  ];
}

describe('formatChatbotNotification', () => {
  it('builds a custom notification that passes the documented schema', () => {
    // Prepare
    const alert = makeAlert();

    // Act
    const notification = formatChatbotNotification(alert, { context: ATLAS_CONTEXT });

    // Assess
    expect(chatbotNotificationSchema.safeParse(notification).success).toBe(true);
    expect(notification).toMatchObject({
      version: '1.0',
      source: 'custom',
      content: {
        textType: 'client-markdown',
        title: `:rotating_light: [CRITICAL] Project IP access list open to 0.0.0.0/0 (project ${PROJECT_ID}, by j.doe@\u2060example.com)`,
      },
      metadata: {
        eventType: 'NETWORK_PERMISSION_ENTRY_ADDED',
        summary: `[CRITICAL] Project IP access list open to 0.0.0.0/0 (project ${PROJECT_ID}, by j.doe@\u2060example.com)`,
      },
    });
  });

  it('describes when, who, where and what changed, and links the project activity feed once, as a next step', () => {
    // Prepare
    const alert = makeAlert();

    // Act
    const { description, nextSteps } = formatChatbotNotification(alert, { context: ATLAS_CONTEXT }).content;

    // Assess
    expect(description).toContain('*When:* 2026-11-22 06:12:41 UTC\n');
    expect(description).toContain('*Who:* j.doe@\u2060example.com from 203.0.113.22');
    expect(description).toContain(`*Where:* Organization ${ORG_ID}, Project ${PROJECT_ID}`);
    expect(description).toContain('*Access list entry:* 0.0.0.0/0 (the whole internet)');
    expect(description).not.toContain('https://');
    expect(nextSteps?.at(-1)).toBe(
      `Open the <https://cloud.mongodb.com/v2/${PROJECT_ID}#/activity|project activity feed>.`,
    );
  });

  it("turns the runbook into next steps and keeps the rule's tags as keywords", () => {
    // Prepare
    const alert = makeAlert({ runbook: '1. Call the owner\n\n* Delete the entry\r\n- Review users' });

    // Act
    const { nextSteps, keywords } = formatChatbotNotification(alert, { context: ATLAS_CONTEXT }).content;

    // Assess
    expect(nextSteps?.slice(0, 3)).toEqual(['Call the owner', 'Delete the entry', 'Review users']);
    expect(keywords).toEqual(['network']);
  });

  it('says the severity once, in the title, and every other fact once', () => {
    // Prepare
    const alert = makeAlert({
      events: [apiKeyCreatedEvent()],
      context: {
        orgId: ORG_ID,
        orgName: 'Acme Corp',
        credential: {
          kind: 'api-key',
          id: 'zmcxkfop',
          description: 'CI',
          roles: ['ORG_OWNER in Acme Corp (5b47…6a3)'],
          snapshotTakenAt: NOW,
        },
      },
    });

    // Act
    const notification = formatChatbotNotification(alert, { context: ATLAS_CONTEXT });

    // Assess
    const texts = renderedTexts(notification).join('\n');
    expect(texts.match(/critical/gi)).toHaveLength(2);
    expect(notification.content.title).toMatch(/^:rotating_light: \[CRITICAL\] /);
    expect(notification.metadata?.summary).toMatch(/^\[CRITICAL\] /);
    const values = notification.content.description
      .split('\n')
      .map((line) => /^\*[^*]+:\* (.+)$/.exec(line)?.[1])
      .filter((value) => value !== undefined);
    expect(new Set(values).size).toBe(values.length);
    expect(notification.content.description).toContain('*API key:* zmcxkfop: CI\n');
    expect(notification.content.description.match(/zmcxkfop/g)).toHaveLength(1);
  });

  it('asks the actor when there is one, else says where to find who did it', () => {
    // Prepare
    const { username: _username, userId: _userId, ...unsigned } = accessListEvent();
    const alerts = [
      makeAlert({ runbook: '' }),
      makeAlert({ runbook: '', events: [{ ...unsigned, source: 'inventory' }] }),
      makeAlert({ runbook: '', events: [unsigned] }),
    ];

    // Act
    const steps = alerts.map(
      (alert) => formatChatbotNotification(alert, { context: ATLAS_CONTEXT }).content.nextSteps?.[0],
    );

    // Assess
    expect(steps).toEqual([
      'Check with the person under Who that this change was expected.',
      'Find who made this change in the activity feed of the organization or project, and check that it was expected.',
      'Check the event in the activity feed of the organization or project and decide whether it needs action.',
    ]);
  });

  it('threads repeats of one alert together and keeps different alerts apart', () => {
    // Prepare
    const first = makeAlert({ fingerprint: 'rule-a:event-1' });
    const repeat = makeAlert({ fingerprint: 'rule-a:event-1', title: 'Sent again' });
    const other = makeAlert({ fingerprint: 'rule-a:event-2' });

    // Act
    const [a, b, c] = [first, repeat, other].map((alert) =>
      formatChatbotNotification(alert, { context: ATLAS_CONTEXT }),
    );

    // Assess
    expect(a?.metadata?.threadId).toBe(b?.metadata?.threadId);
    expect(a?.metadata?.threadId).not.toBe(c?.metadata?.threadId);
    expect(a?.metadata?.threadId).toMatch(/^atlas-audit-alerts-[0-9a-f]{32}$/);
  });

  it('arrives escaped when the user name is hostile', () => {
    // Prepare
    const username = '<!channel> <https://evil.example|click> *bold*';
    const alert = makeAlert({
      title: `Access list opened by ${username}`,
      summary: `${username} did it`,
      events: [accessListEvent({ username })],
    });

    // Act
    const notification = formatChatbotNotification(alert, { context: ATLAS_CONTEXT });

    // Assess
    const texts = renderedTexts(notification);
    for (const text of texts) {
      expect(text).not.toContain('<!channel>');
      expect(text).not.toContain('<https://evil.example');
      expect(text).not.toContain('*bold*');
    }
    expect(notification.content.description).toContain(
      '*Who:* &lt;!channel&gt; &lt;https://evil.example|click&gt; \u2217bold\u2217 from 203.0.113.22',
    );
    expect(notification.content.title).toContain('&lt;!channel&gt;');
  });

  it('passes the schema and leaks no mention for every hostile value in every field', () => {
    // Prepare
    const alerts = HOSTILE_VALUES.map((value) =>
      makeAlert({
        title: value,
        summary: value,
        runbook: value,
        ruleName: value,
        tags: [value],
        fingerprint: value,
        events: [
          accessListEvent({ username: value, remoteAddress: value, whitelistEntry: value, [value]: value }),
        ],
      }),
    );

    // Act
    const notifications = alerts.map((alert) => formatChatbotNotification(alert, { context: ATLAS_CONTEXT }));

    // Assess
    for (const notification of notifications) {
      expect(chatbotNotificationSchema.safeParse(notification).success).toBe(true);
      for (const text of renderedTexts(notification)) {
        expect(text).not.toMatch(/<[!@](?:channel|here|U024BE7LH|subteam)/);
      }
    }
  });

  it('keeps a mention the rule writes when it opts in, and escapes the same mention from an event', () => {
    // Prepare
    const alert = makeAlert({
      allowMentions: true,
      title: '<!here> API key created by <@U024BE7LH>',
      events: [apiKeyCreatedEvent({ username: '<@U024BE7LH>' })],
    });

    // Act
    const { title } = formatChatbotNotification(alert, { context: ATLAS_CONTEXT }).content;

    // Assess
    expect(title).toBe(
      `:rotating_light: [CRITICAL] <!here> API key created by &lt;@\u2060U024BE7LH&gt; (organization ${ORG_ID})`,
    );
  });

  it('stays within the documented limits when title and summary are huge', () => {
    // Prepare
    const alert = makeAlert({ title: 'T'.repeat(10_000), summary: '&'.repeat(1_000_000) });

    // Act
    const notification = formatChatbotNotification(alert, { context: ATLAS_CONTEXT });

    // Assess
    expect(notification.content.title?.length).toBeLessThanOrEqual(CHATBOT_TITLE_MAX_LENGTH);
    expect(notification.content.description.length).toBeLessThanOrEqual(CHATBOT_DESCRIPTION_MAX_LENGTH);
    expect(notification.content.description).toContain('&amp;\u2026\n\n*Rule:* ');
    expect(chatbotNotificationSchema.safeParse(notification).success).toBe(true);
  });

  it('describes a threshold alert by its time span, actors and event count', () => {
    // Prepare
    const events = Array.from({ length: 12 }, (_, index) =>
      dataExplorerEvent({
        id: `6740cf10a3b2c1d0e9f800${String(index).padStart(2, '0')}`,
        created: `2026-11-22T04:${String(index).padStart(2, '0')}:00Z`,
        publicKey: `key${index % 7}`,
      }),
    );
    const alert = makeAlert({
      events,
      severity: 'high',
      title: '12 documents deleted through Data Explorer',
    });

    // Act
    const { description } = formatChatbotNotification(alert, { context: ATLAS_CONTEXT }).content;

    // Assess
    expect(description).toContain('*When:* 2026-11-22 04:00:00 UTC to 2026-11-22 04:11:00 UTC\n');
    expect(description).toContain('*Who:* API key key0 from 192.0.2.15, API key key1 from 192.0.2.15');
    expect(description).toContain(' and 2 more');
    expect(description).toContain('*Event:* DATA_EXPLORER_CRUD (12 events)');
    expect(description).toContain('*Operation:* deleteDocument');
  });

  it('links the organization feed for an org event', () => {
    // Prepare
    const alert = makeAlert({ events: [apiKeyCreatedEvent()] });

    // Act
    const notification = formatChatbotNotification(alert, { context: ATLAS_CONTEXT });

    // Assess
    expect(notification.content.nextSteps).toContain(
      `Open the <https://cloud.mongodb.com/v2#/org/${ORG_ID}/activity|organization activity feed>.`,
    );
    expect(notification.content.description).toContain('*API key:* zmcxkfop');
  });

  it('links the project page on Ops Manager and no org page', () => {
    // Prepare
    const context: FormatContext = {
      now: NOW,
      console: { flavor: 'ops-manager', baseUrl: 'https://om.example.com:8080/' },
    };
    const projectAlert = makeAlert({ events: [automationConfigEvent()] });
    const orgAlert = makeAlert({ events: [apiKeyCreatedEvent({ links: [] })] });

    // Act
    const project = formatChatbotNotification(projectAlert, { context });
    const org = formatChatbotNotification(orgAlert, { context });

    // Assess
    expect(project.content.nextSteps).toContain(
      `Open the <https://om.example.com:8080/v2/${PROJECT_ID}|project in Ops Manager>.`,
    );
    expect(project.content.description).toContain(
      '*Change 1:* USERS NEW reporting: roles readWrite@\u2060sales',
    );
    expect(org.metadata?.relatedResources).toEqual([]);
  });

  it('puts no id that is not an Atlas id into a link', () => {
    // Prepare
    const alert = makeAlert({
      events: [accessListEvent({ groupId: '../../evil', orgId: 'x|y', links: [] })],
    });

    // Act
    const notification = formatChatbotNotification(alert, { context: ATLAS_CONTEXT });

    // Assess
    expect(notification.metadata?.relatedResources).toEqual([]);
    expect(notification.content.description).not.toContain('https://');
  });

  it('escapes & in a self link taken from the event', () => {
    // Prepare
    const href = 'https://cloud.mongodb.com/api/atlas/v2/groups/x/events?a=1&b=<2>|3';
    const alert = makeAlert({ events: [accessListEvent({ links: [{ rel: 'self', href }] })] });

    // Act
    const notification = formatChatbotNotification(alert, { context: { now: NOW } });

    // Assess
    expect(notification.metadata?.relatedResources).toEqual([
      'https://cloud.mongodb.com/api/atlas/v2/groups/x/events?a=1&amp;b=%3C2%3E%7C3',
    ]);
  });

  it('percent-encodes ^ in the path of a self link on every Node, as the URL standard now does', () => {
    // Prepare
    const href = 'https://x.example/<!subteam^S0123ABC>/events?q=^';
    const alert = makeAlert({ events: [accessListEvent({ links: [{ rel: 'self', href }] })] });

    // Act
    const notification = formatChatbotNotification(alert, { context: { now: NOW } });

    // Assess
    expect(notification.metadata?.relatedResources).toEqual([
      'https://x.example/%3C!subteam%5ES0123ABC%3E/events?q=^',
    ]);
  });

  it('formats an alert without events', () => {
    // Prepare
    const alert = makeAlert({ events: [], fingerprint: 'inventory:empty' });

    // Act
    const notification = formatChatbotNotification(alert, { context: ATLAS_CONTEXT });

    // Assess
    expect(chatbotNotificationSchema.safeParse(notification).success).toBe(true);
    expect(notification.content.description).toContain('*Who:* no user recorded');
    expect(notification.metadata?.eventType).toBe('UNKNOWN');
  });

  it('names the rule pack version and the layers that shaped the rule in its metadata', () => {
    // Prepare
    const alert = makeAlert({ rulePack: { version: '1.4.0', layers: ['builtin', 'my-rules'] } });

    // Act
    const notification = formatChatbotNotification(alert, { context: ATLAS_CONTEXT });

    // Assess
    expect(chatbotNotificationSchema.safeParse(notification).success).toBe(true);
    expect(notification.metadata?.additionalContext).toMatchObject({
      rulePackVersion: '1.4.0',
      ruleLayers: 'builtin, my-rules',
    });
  });

  it('escapes a layer name as any other value', () => {
    // Prepare
    const alert = makeAlert({ rulePack: { layers: ['builtin', '<!channel>'] } });

    // Act
    const notification = formatChatbotNotification(alert, { context: ATLAS_CONTEXT });

    // Assess
    expect(notification.metadata?.additionalContext?.ruleLayers).toBe('builtin, &lt;!channel&gt;');
    expect(notification.metadata?.additionalContext).not.toHaveProperty('rulePackVersion');
  });
});
