import { describe, expect, it } from 'vitest';
import { parsePushedAlert } from '../../shared/push/index.js';
import { alertBody, ORG_ID, PROJECT_ID } from './support/webhook.js';

const bytes = (value: unknown): Uint8Array =>
  Buffer.from(typeof value === 'string' ? value : JSON.stringify(value));

describe('parsePushedAlert', () => {
  it('reads the ids and the update time of a project alert, ignoring the other fields', () => {
    expect(parsePushedAlert(bytes(alertBody()))).toEqual({
      id: '6b0c1d2e3f405162738495a6',
      groupId: PROJECT_ID,
      orgId: ORG_ID,
      eventTypeName: 'NETWORK_PERMISSION_ENTRY_ADDED',
      updated: '2026-11-28T01:00:00Z',
      updatedAt: Date.parse('2026-11-28T01:00:00Z'),
    });
  });

  it('takes the creation time when Atlas says nothing of an update, and an alert of an organization', () => {
    const alert = parsePushedAlert(bytes(alertBody({ groupId: undefined, updated: undefined })));

    expect(alert).toMatchObject({ orgId: ORG_ID, updated: '2026-11-28T01:00:00Z' });
    expect(alert).not.toHaveProperty('groupId');
  });

  it.each([
    ['not JSON', '{"id":'],
    ['not UTF-8', Buffer.from([0x7b, 0xff, 0xfe, 0x7d])],
    ['a list', [alertBody()]],
    ['null', 'null'],
    ['a string', '"alert"'],
    ['no id', alertBody({ id: undefined })],
    ['an id that is a number', alertBody({ id: 12345 })],
    ['an id that is not hexadecimal', alertBody({ id: 'zzzzzzzzzzzzzzzzzzzzzzzz' })],
    ['a groupId of a megabyte', alertBody({ groupId: 'a'.repeat(1_000_000) })],
    ['a groupId that is an object', alertBody({ groupId: { $ne: null } })],
    ['an update time that is not a time', alertBody({ updated: 'yesterday', created: 'yesterday' })],
    ['an update time that is a number', alertBody({ updated: 1_764_291_600_000 })],
    ['no time at all', alertBody({ updated: undefined, created: undefined })],
    ['neither project nor organization', alertBody({ groupId: undefined, orgId: undefined })],
    ['an event type name of 10,000 characters', alertBody({ eventTypeName: 'X'.repeat(10_000) })],
    [
      'a body nested deeper than an alert',
      `{"id":"6b0c1d2e3f405162738495a6","x":${'['.repeat(5_000)}${']'.repeat(5_000)}}`,
    ],
    [
      'a prototype key',
      '{"__proto__":{"id":"6b0c1d2e3f405162738495a6"},"orgId":"5f4e3d2c1b0a998877665544","updated":"2026-11-28T01:00:00Z"}',
    ],
  ])('refuses %s', (_case, body) => {
    expect(parsePushedAlert(body instanceof Uint8Array ? body : bytes(body))).toBeUndefined();
  });
});
