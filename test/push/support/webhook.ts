import { type PushRequest, webhookSignature } from '../../../shared/push/index.js';

/** An obviously fake webhook secret: the tests look for it in every log line. */
export const WEBHOOK_SECRET = 'fake-webhook-secret-for-tests-0123456789';

export const ORG_ID = '5f4e3d2c1b0a998877665544';
export const PROJECT_ID = '6a1b2c3d4e5f60718293a4b5';
export const OTHER_PROJECT_ID = '6a1b2c3d4e5f60718293a4ff';

/** An Atlas alert body as a project's Webhook integration posts it. */
export function alertBody(fields: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: '6b0c1d2e3f405162738495a6',
    alertConfigId: '32b6e34b3d91647abb20e7b8',
    groupId: PROJECT_ID,
    orgId: ORG_ID,
    eventTypeName: 'NETWORK_PERMISSION_ENTRY_ADDED',
    status: 'INFORMATIONAL',
    humanReadable: 'Network permission entry 0.0.0.0/0 was added',
    created: '2026-11-28T01:00:00Z',
    updated: '2026-11-28T01:00:00Z',
    links: [{ rel: 'self', href: 'https://cloud.mongodb.com/api/atlas/v2/groups/x/alerts/y' }],
    ...fields,
  };
}

/** A POST of `body` signed with `secret`, as Atlas sends it. */
export function signedRequest(options: {
  body: Record<string, unknown> | string | Uint8Array;
  secret?: string;
  path?: string;
  event?: string;
}): PushRequest {
  const { body } = options;
  const bytes =
    body instanceof Uint8Array ? body : Buffer.from(typeof body === 'string' ? body : JSON.stringify(body));
  return {
    method: 'POST',
    path: options.path ?? '/',
    headers: {
      'content-type': 'application/json',
      'x-mms-event': options.event ?? 'alert.inform',
      'x-mms-signature': webhookSignature(bytes, options.secret ?? WEBHOOK_SECRET),
    },
    body: bytes,
  };
}
