import { describe, expect, it } from 'vitest';
import { jsonStringBytes } from '../../shared/notify/byte-size.js';
import { formatEmailText, RAW_EVENT_OMITTED, SUMMARY_CUT_NOTE } from '../../shared/notify/email-formatter.js';
import { buildInventoryEvent, INVENTORY_EVENT_TYPES } from '../../shared/rules/inventory-events.js';
import {
  ATLAS_CONTEXT,
  accessListEvent,
  apiKeyCreatedEvent,
  automationConfigEvent,
  dataExplorerEvent,
  INVENTORY_CONTEXT,
  inventoryEntryEvent,
  makeAlert,
  ORG_ID,
  PROJECT_ID,
} from './support/alerts.js';
import { hasControlCharacter, rawEventJson } from './support/text.js';

describe('formatEmailText', () => {
  it('starts with the title, then the severity and the rule once each', () => {
    // Prepare
    const alert = makeAlert();

    // Act
    const email = formatEmailText(alert, { context: ATLAS_CONTEXT });

    // Assess
    expect(email.split('\n').slice(0, 4)).toEqual([
      'Project IP access list open to 0.0.0.0/0',
      '',
      'Severity:      CRITICAL',
      'Rule:          Project IP access list opened to the internet (network-access-open-to-internet)',
    ]);
    expect(email.match(/critical/gi)).toHaveLength(1);
  });

  it('says when as a time in UTC that reads the same whenever the email is read, who, and where', () => {
    // Prepare
    const alert = makeAlert();

    // Act
    const email = formatEmailText(alert, { context: ATLAS_CONTEXT });

    // Assess
    expect(email).toContain('When:          2026-11-22 06:12:41 UTC\n');
    expect(email).not.toMatch(/ago\b|just now/);
    expect(email).toContain('Who:           j.doe@example.com from 203.0.113.22\n');
    expect(email).toContain(`Organization:  ${ORG_ID}\n`);
    expect(email).toContain(`Project:       ${PROJECT_ID}\n`);
    expect(email).toContain('Event:         NETWORK_PERMISSION_ENTRY_ADDED, id 6740f1c9a3b2c1d0e9f81234\n');
  });

  it('orders the sections summary, what changed, runbook, links, raw event', () => {
    // Prepare
    const alert = makeAlert();

    // Act
    const email = formatEmailText(alert, { context: ATLAS_CONTEXT });

    // Assess
    const order = [
      '\nWhat happened\n',
      '\nWhat changed\n',
      '\nRunbook\n',
      '\nLinks\n',
      '\nRaw event\n',
      '\n--\n',
    ].map((heading) => email.indexOf(heading));
    expect(order.every((position) => position > 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    expect(email).toContain('Access list entry:  0.0.0.0/0 (the whole internet)');
    expect(email).toContain(`Project activity feed:   https://cloud.mongodb.com/v2/${PROJECT_ID}#/activity`);
  });

  it("links an alert to the console of the connection it came through, and to no other connection's", () => {
    // Prepare
    const opsManager = { flavor: 'ops-manager', baseUrl: 'https://opsmanager.example.com:8443' } as const;
    const context = { ...ATLAS_CONTEXT, connectionConsoles: new Map([['data-centre', opsManager]]) };
    const fromDataCentre = makeAlert({ context: { orgId: ORG_ID, connection: 'data-centre' } });
    const fromUnknown = makeAlert({ context: { orgId: ORG_ID, connection: 'elsewhere' } });

    // Act
    const dataCentre = formatEmailText(fromDataCentre, { context });
    const unknown = formatEmailText(fromUnknown, { context });
    const topLevel = formatEmailText(makeAlert(), { context });

    // Assess
    expect(dataCentre).toContain(`https://opsmanager.example.com:8443/v2/${PROJECT_ID}`);
    expect(dataCentre).not.toContain('https://cloud.mongodb.com/v2/');
    expect(unknown).not.toContain('Project activity feed:');
    expect(topLevel).toContain(
      `Project activity feed:   https://cloud.mongodb.com/v2/${PROJECT_ID}#/activity`,
    );
  });

  it("links a database login to the project's Database Access page, where its access history is, not to the activity feed", () => {
    // Prepare
    const login = {
      id: 'dba-0123456789abcdef0123456789abcdef',
      created: '2026-11-22T06:10:00.000Z',
      eventTypeName: 'DB_AUTH_FAILED',
      source: 'access-history',
      groupId: PROJECT_ID,
      clusterName: 'payments-main',
      username: 'payments-admin',
      remoteAddress: '198.51.100.203',
    };

    // Act
    const email = formatEmailText(makeAlert({ events: [login] }), { context: ATLAS_CONTEXT });

    // Assess
    expect(email).toContain(
      `Project database access:  https://cloud.mongodb.com/v2/${PROJECT_ID}#/security/database/users`,
    );
    expect(email).not.toContain('#/activity');
  });

  it('ends with the raw event, pretty-printed and whole when small', () => {
    // Prepare
    const event = accessListEvent();
    const alert = makeAlert({ events: [event] });

    // Act
    const email = formatEmailText(alert, { context: ATLAS_CONTEXT });

    // Assess
    expect(JSON.parse(rawEventJson(email))).toEqual(event);
    expect(email).toContain('\n  "whitelistEntry": "0.0.0.0/0",\n');
  });

  it('shows the fields that matter for each event type', () => {
    // Prepare
    const alerts = [
      makeAlert({ events: [apiKeyCreatedEvent()] }),
      makeAlert({ events: [dataExplorerEvent()] }),
      makeAlert({ events: [automationConfigEvent()] }),
    ];

    // Act
    const [apiKey, dataExplorer, automation] = alerts.map((alert) =>
      formatEmailText(alert, { context: ATLAS_CONTEXT }),
    );

    // Assess
    expect(apiKey).toContain('API key:  zmcxkfop');
    expect(apiKey).toContain('Who:           ops-admin@example.com from 198.51.100.7');
    expect(dataExplorer).toContain('Namespace:     sales.orders');
    expect(dataExplorer).toContain('Operation:  deleteDocument');
    expect(dataExplorer).toContain('Who:           API key abcdefgh from 192.0.2.15');
    expect(automation).toContain('Change 1:  USERS NEW reporting: roles readWrite@sales');
  });

  it('lists the unknown scalar fields of new event types under what changed, in words', () => {
    // Prepare
    const alert = makeAlert({
      events: [{ eventTypeName: 'SERVICE_ACCOUNT_SECRET_ADDED', clientId: 'mdb_sa_id_1', expiresAt: 7 }],
    });

    // Act
    const email = formatEmailText(alert, { context: ATLAS_CONTEXT });

    // Assess
    expect(email).toContain('Client id:   mdb_sa_id_1');
    expect(email).toContain('Expires at:  7');
  });

  it('says what an inventory finding is about, when it was found and since when it exists, and names no actor', () => {
    // Prepare
    const alert = makeAlert({
      title: 'API key qkzvbgyt usable from 0.0.0.0/0',
      events: [inventoryEntryEvent()],
      context: INVENTORY_CONTEXT,
    });

    // Act
    const email = formatEmailText(alert, { context: ATLAS_CONTEXT });

    // Assess
    const head = email.slice(0, email.indexOf('\nWhat happened'));
    expect(head).toContain(
      'Found:          2026-11-22 06:10:00 UTC, by the first inventory: there before this deployment\n',
    );
    expect(head).toContain('Since:          2024-03-18 14:41:10 UTC, as Atlas records it\n');
    expect(head).toContain('Who:            not known: the inventory sees what exists, not who changed it\n');
    expect(head).toContain('Organization:   Acme Corp (5b47…6a3)\n');
    expect(head).toContain('API key:        qkzvbgyt: CI automation (owner)\n');
    expect(head).toContain(
      'Current roles:  ORG_OWNER in Acme Corp (5b47…6a3); ORG_READ_ONLY in Acme Labs (64b5…c02)\n',
    );
    expect(head).not.toMatch(/When:|just now|API key id/);
  });

  it('says when a resolved finding was found gone and since when it had been open, without its internal fields', () => {
    // Prepare
    const resolved = buildInventoryEvent(
      {
        type: INVENTORY_EVENT_TYPES.findingResolved,
        postureFinding: `org/${ORG_ID}/api-key/64b5cc01f1a3d40012ab3f01/access-list/0.0.0.0%2F0`,
        opening: {
          type: INVENTORY_EVENT_TYPES.accessListEntryAdded,
          apiKey: { id: '64b5cc01f1a3d40012ab3f01', publicKey: 'qkzvbgyt' },
          entry: { cidrBlock: '0.0.0.0/0', created: '2024-03-18T14:41:10Z' },
        },
        resolution: "the entry was removed from the key's access list",
        firstFoundAt: '2026-11-21T06:10:00Z',
      },
      { orgId: ORG_ID, snapshotAt: '2026-11-22T06:10:00Z', previousSnapshotAt: '2026-11-22T05:10:00Z' },
    );
    const alert = makeAlert({ title: 'Resolved: API key qkzvbgyt open to 0.0.0.0/0', events: [resolved] });

    // Act
    const email = formatEmailText(alert, { context: ATLAS_CONTEXT });

    // Assess
    const head = email.slice(0, email.indexOf('\nWhat happened'));
    expect(head).toContain(
      'Found:         2026-11-22 06:10:00 UTC, by the inventory: gone; still there at 2026-11-22 05:10:00 UTC\n' +
        "Open since:    2024-03-18 14:41:10 UTC, as Atlas records the entry's creation\n" +
        'Who:           not known: the inventory sees what exists, not who changed it\n',
    );
    const changed = email.slice(email.indexOf('What changed\n'), email.indexOf('\nRunbook'));
    expect(changed).toContain('Access list entry:  0.0.0.0/0 (the whole internet)\n');
    expect(changed).not.toMatch(/postureFinding|Posture finding|resolution|Problem|Opened/i);
  });

  it('shows facts a person reads under what changed: no internal fields, nothing twice', () => {
    // Prepare
    const alert = makeAlert({ events: [inventoryEntryEvent()], context: INVENTORY_CONTEXT });

    // Act
    const email = formatEmailText(alert, { context: ATLAS_CONTEXT });

    // Assess
    const changed = email.slice(email.indexOf('What changed\n'), email.indexOf('\nRunbook'));
    expect(changed).toBe('What changed\n------------\nAccess list entry:  0.0.0.0/0 (the whole internet)\n');
    const facts = email
      .slice(0, email.indexOf('\nRaw event'))
      .split('\n')
      .map((line) => /^[A-Z][\w .]*: +(.+)$/.exec(line)?.[1])
      .filter((value) => value !== undefined);
    expect(new Set(facts).size).toBe(facts.length);
  });

  it('names the organization of a project finding, the team and the alert configuration by name', () => {
    // Prepare
    const project = makeAlert({
      events: [
        {
          eventTypeName: 'INVENTORY_PROJECT_ACCESS_LIST_ENTRY_ADDED',
          source: 'inventory',
          groupId: PROJECT_ID,
          accessListEntry: '0.0.0.0/0',
          created: '2026-11-22T06:10:00Z',
        },
      ],
      context: { orgId: ORG_ID, orgName: 'Acme Corp', projectId: PROJECT_ID, projectName: 'internal-tools' },
    });
    const { targetPublicKey: _key, ...orgEvent } = apiKeyCreatedEvent();
    const { whitelistEntry: _entry, ...projectEvent } = accessListEvent();
    const team = makeAlert({
      events: [
        {
          ...orgEvent,
          eventTypeName: 'JOINED_TEAM',
          teamId: '64b5cf01f1a3d40012ab6001',
          targetUsername: 'dave@example.com',
        },
      ],
      context: { orgId: ORG_ID, team: { id: '64b5cf01f1a3d40012ab6001', name: 'data-analysts' } },
    });
    const config = makeAlert({
      events: [
        {
          ...projectEvent,
          eventTypeName: 'ALERT_CONFIG_DISABLED_AUDIT',
          alertConfigId: '64b5ce01f1a3d40012ab5003',
        },
      ],
      context: { projectId: PROJECT_ID, alertConfig: { id: '64b5ce01f1a3d40012ab5003', name: 'Host down' } },
    });

    // Act
    const [projectEmail, teamEmail, configEmail] = [project, team, config].map((alert) =>
      formatEmailText(alert, { context: ATLAS_CONTEXT }),
    );

    // Assess
    expect(projectEmail).toContain(
      '\nOrganization:  Acme Corp (5b47…6a3)\nProject:       internal-tools (5b43…1a2)\n',
    );
    expect(teamEmail).toContain('User:  dave@example.com\nTeam:  data-analysts (64b5…001)\n');
    expect(configEmail).toContain('Alert configuration:  Host down (64b5…003)\n');
  });

  it('keeps control characters and line breaks of event values out of the text, but exact in the raw JSON', () => {
    // Prepare
    const username = 'mallory\r\nSeverity: INFO\u001b[2J\u202Eevil';
    const alert = makeAlert({ events: [accessListEvent({ username })] });

    // Act
    const email = formatEmailText(alert, { context: ATLAS_CONTEXT });

    // Assess
    expect(hasControlCharacter(email)).toBe(false);
    expect(email).toContain('Who:           mallory Severity: INFO\uFFFD[2Jevil from 203.0.113.22');
    expect(JSON.parse(rawEventJson(email)).username).toBe(username);
  });

  it('cuts the raw event to a byte budget and keeps it valid JSON', () => {
    // Prepare
    const alert = makeAlert({ events: [accessListEvent({ username: 'u'.repeat(300_000) })] });

    // Act
    const email = formatEmailText(alert, { context: ATLAS_CONTEXT, rawEventMaxBytes: 20_000 });

    // Assess
    const raw = rawEventJson(email);
    expect(jsonStringBytes(raw)).toBeLessThanOrEqual(20_000);
    expect(JSON.parse(raw).username).toMatch(/^u+\.\.\. \[300000 characters in all\]$/);
    expect(email).toContain('Raw event (cut to fit the message size limit');
  });

  it('leaves the raw event out, and cuts the summary, when asked', () => {
    // Prepare
    const alert = makeAlert({ summary: 's'.repeat(10_000) });

    // Act
    const email = formatEmailText(alert, {
      context: ATLAS_CONTEXT,
      rawEventMaxBytes: 'omit',
      summaryMaxBytes: 1_000,
    });

    // Assess
    expect(email).toContain(`Raw event\n---------\n${RAW_EVENT_OMITTED}`);
    expect(email).toContain(`${'s'.repeat(100)}${SUMMARY_CUT_NOTE}`);
    expect(email).not.toContain('s'.repeat(1_001));
  });

  it('says nobody is recorded when the event names no user', () => {
    // Prepare
    const alert = makeAlert({ events: [{ eventTypeName: 'CLUSTER_DELETED', groupId: PROJECT_ID }] });

    // Act
    const email = formatEmailText(alert, { context: ATLAS_CONTEXT });

    // Assess
    expect(email).toMatch(/\nWho: +no user recorded \(Atlas or an automated process\)\n/);
  });

  it('ends with the rule pack version and the layers that shaped the rule', () => {
    // Prepare
    const alert = makeAlert({ rulePack: { version: '1.4.0', layers: ['builtin', 'my-rules'] } });

    // Act
    const email = formatEmailText(alert, { context: ATLAS_CONTEXT });

    // Assess
    expect(email).toMatch(
      /\n--\nSent by atlas-audit-alerts\. Alert fingerprint: [^\n]+\nRule pack 1\.4\.0; rule network-access-open-to-internet from layers builtin, my-rules\.\n$/,
    );
  });

  it('names the one layer of a shipped rule as it is', () => {
    // Prepare
    const alert = makeAlert({ rulePack: { version: '1.4.0', layers: ['builtin'] } });

    // Act
    const email = formatEmailText(alert, { context: ATLAS_CONTEXT });

    // Assess
    expect(email).toContain('\nRule pack 1.4.0; rule network-access-open-to-internet from layer builtin.\n');
  });
});
