import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { webhookSignature } from '../shared/push/webhook-signature.js';
import { createObjectIdGenerator, type ObjectIdGenerator } from './object-id.js';

/** One event the sender pushes an alert for: the event's type and where it happened. */
export interface PushedEvent {
  readonly eventTypeName: string;
  /** The project, for a project's event; absent for an organization's. */
  readonly groupId?: string;
  readonly orgId: string;
  /** When Atlas created the event, ISO-8601 UTC. */
  readonly created: string;
}

/** Options of {@link WebhookSender}. */
export interface WebhookSenderOptions {
  /** Where the Webhook integration posts: the receiver's URL for the connection. */
  url: string;
  /** The integration's secret. */
  secret: string;
  /** How long after an event its alert is posted, as Atlas takes a moment to raise it. Default 0. */
  delayMs?: number;
  /** Seeds the alert ids. Default: random. */
  seed?: number;
  /** Default: the global `fetch`. */
  fetch?: typeof fetch;
}

/**
 * What an Atlas project's Webhook integration does, for the simulator: for each event of an alertable
 * type, after `delayMs`, it posts an alert (an `AlertView`: a new alert id, the event's type,
 * project, organization and time, `humanReadable`, `status: INFORMATIONAL`) as the JSON Atlas sends,
 * signed in `X-MMS-Signature` (base64 HMAC-SHA1 of the body with the secret), with
 * `X-MMS-Event: alert.inform`. So the push path runs locally, receiver to poll, with no Atlas.
 *
 * @example
 * ```ts
 * const sender = new WebhookSender({ url: push.url, secret, delayMs: 500 });
 * const event = sim.addEvent({ groupId }, { eventTypeName: 'NETWORK_PERMISSION_ENTRY_ADDED' });
 * await sender.push({ ...event, orgId });
 * ```
 */
export class WebhookSender {
  readonly #options: WebhookSenderOptions;
  readonly #ids: ObjectIdGenerator;
  readonly #fetch: typeof fetch;

  constructor(options: WebhookSenderOptions) {
    this.#options = options;
    this.#ids = createObjectIdGenerator({ seed: options.seed ?? randomBytes(4).readUInt32BE(0) });
    this.#fetch = options.fetch ?? fetch;
  }

  /** The alert Atlas would post for `event`, as its JSON text. */
  alertBody(event: PushedEvent, now: number = Date.now()): string {
    const id = this.#ids.next(now);
    return JSON.stringify({
      id,
      alertConfigId: this.#ids.next(now),
      ...(event.groupId === undefined ? {} : { groupId: event.groupId }),
      orgId: event.orgId,
      eventTypeName: event.eventTypeName,
      status: 'INFORMATIONAL',
      humanReadable: `${event.eventTypeName} at ${event.created}`,
      created: event.created,
      updated: event.created,
      links: [],
    });
  }

  /**
   * Waits `delayMs`, then posts the alert of `event`, signed. Resolves to the receiver's status;
   * rejects only when the receiver cannot be reached, or when `signal` aborts the wait or the post
   * (then no timer is left behind).
   */
  async push(event: PushedEvent, options: { signal?: AbortSignal } = {}): Promise<number> {
    const { signal } = options;
    const delayMs = this.#options.delayMs ?? 0;
    if (delayMs > 0) await sleep(delayMs, undefined, signal === undefined ? {} : { signal });
    signal?.throwIfAborted();
    const body = this.alertBody(event);
    const response = await this.#fetch(this.#options.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-mms-event': 'alert.inform',
        'x-mms-signature': webhookSignature(Buffer.from(body), this.#options.secret),
      },
      body,
      ...(signal === undefined ? {} : { signal }),
    });
    await response.arrayBuffer();
    return response.status;
  }
}
