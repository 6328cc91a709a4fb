import type { ProjectRecord } from './simulator-data.js';
import { WebhookSender } from './webhook-sender.js';

/** What the simulator's own alert posts have come to so far. */
export interface SimulatorPushes {
  /** Posts the receiver answered with a 2xx status. */
  readonly sent: number;
  /** Posts that failed: the receiver could not be reached or answered another status. */
  readonly failed: number;
  /** Posts dropped because the simulator stopped before they were made. */
  readonly cancelled: number;
  /** Posts waiting for their delay or their answer. */
  readonly pending: number;
  /** Resolves once every post started so far has been sent, has failed or was cancelled; never rejects. */
  settled(): Promise<void>;
}

/** Options of {@link AlertPusher}. */
export interface AlertPusherOptions {
  /** Whether the simulator posts at all. */
  enabled: boolean;
  /** How long after an event its alert is posted (the sender's delay). */
  delayMs: number;
  /** Default: the global `fetch`. */
  fetch?: typeof fetch;
}

/** One Webhook destination an alert configuration names: where to post and the secret to sign with. */
interface WebhookTarget {
  readonly url: string;
  readonly secret: string;
}

/**
 * The project's Webhook destinations for an event type, as Atlas resolves them: each enabled alert
 * configuration of that event type, each of its `WEBHOOK` notifications, with the notification's own
 * `webhookUrl` / `webhookSecret` where it has them and the project's Webhook integration otherwise.
 * A destination without both a URL and a secret is skipped. `matchers` are not evaluated.
 */
export function webhookTargets(project: ProjectRecord, eventTypeName: string): WebhookTarget[] {
  const integration = project.integrations.get('WEBHOOK');
  const targets: WebhookTarget[] = [];
  for (const config of project.alertConfigs.values()) {
    if (config.enabled !== true || config.eventTypeName !== eventTypeName) continue;
    const notifications = Array.isArray(config.notifications) ? config.notifications : [];
    for (const notification of notifications as Array<Record<string, unknown>>) {
      if (notification.typeName !== 'WEBHOOK') continue;
      const url = notification.webhookUrl ?? integration?.url;
      const secret = notification.webhookSecret ?? integration?.secret;
      if (typeof url === 'string' && typeof secret === 'string') targets.push({ url, secret });
    }
  }
  return targets;
}

/**
 * Posts alerts by itself, as an Atlas project's alert configurations do: for each event added at run
 * time whose type an enabled configuration with a Webhook notification matches, one signed alert per
 * destination through {@link WebhookSender}, after its delay. Fire and forget: adding an event never
 * waits for a post, and a failed post is counted, never thrown. `stop` cancels what is pending.
 */
export class AlertPusher implements SimulatorPushes {
  readonly #options: AlertPusherOptions;
  readonly #pending = new Set<Promise<void>>();
  readonly #abort = new AbortController();
  #sent = 0;
  #failed = 0;
  #cancelled = 0;

  constructor(options: AlertPusherOptions) {
    this.#options = options;
  }

  get sent(): number {
    return this.#sent;
  }

  get failed(): number {
    return this.#failed;
  }

  get cancelled(): number {
    return this.#cancelled;
  }

  get pending(): number {
    return this.#pending.size;
  }

  /** Starts the posts for events just added to `project`; returns at once. */
  eventsAdded(
    project: ProjectRecord,
    events: ReadonlyArray<{ readonly eventTypeName: string; readonly created: string }>,
  ): void {
    if (!this.#options.enabled || this.#abort.signal.aborted) return;
    for (const event of events) {
      for (const target of webhookTargets(project, event.eventTypeName)) {
        const sender = new WebhookSender({
          url: target.url,
          secret: target.secret,
          delayMs: this.#options.delayMs,
          ...(this.#options.fetch === undefined ? {} : { fetch: this.#options.fetch }),
        });
        const pushed = {
          eventTypeName: event.eventTypeName,
          groupId: project.id,
          orgId: project.orgId,
          created: event.created,
        };
        const post: Promise<void> = sender.push(pushed, { signal: this.#abort.signal }).then(
          (status) => {
            if (status >= 200 && status < 300) this.#sent += 1;
            else this.#failed += 1;
          },
          () => {
            if (this.#abort.signal.aborted) this.#cancelled += 1;
            else this.#failed += 1;
          },
        );
        this.#pending.add(post);
        void post.finally(() => this.#pending.delete(post));
      }
    }
  }

  async settled(): Promise<void> {
    while (this.#pending.size > 0) await Promise.all([...this.#pending]);
  }

  /** Cancels every pending post (its timer and its request) and waits until they are all done. */
  async stop(): Promise<void> {
    this.#abort.abort();
    await this.settled();
  }
}
