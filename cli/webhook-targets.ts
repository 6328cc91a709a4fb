import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { AtlasClient } from '../shared/atlas/index.js';
import { DEFAULT_CONNECTION, type EffectiveConnection } from '../shared/poll/index.js';
import { isAlertableEventType } from '../shared/rules/catalog/alertable-event-types.js';
import { UsageError } from './errors.js';
import { pushUrlOutput } from './webhook-plan-format.js';

/** Where the receiver's URL comes from: `--url`, or the outputs file `cdk deploy --outputs-file` wrote. */
export interface ReceiverUrlSource {
  readonly url?: string | undefined;
  readonly outputsFile?: string | undefined;
  /** The stack in the outputs file; needed only when it holds more than one. */
  readonly stack?: string | undefined;
  readonly cwd: string;
}

function checkedUrl(text: string, origin: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UsageError(`${origin} is not a URL: give the receiver's https:// URL`);
  }
  if (
    url.protocol !== 'https:' &&
    !(url.protocol === 'http:' && /^(127\.0\.0\.1|localhost|\[::1\])$/.test(url.host.replace(/:\d+$/, '')))
  ) {
    throw new UsageError(
      `${origin} must be an https:// URL (http:// only to loopback): Atlas posts alerts to it`,
    );
  }
  return url.toString();
}

/**
 * The receiver's URL for each connection: with `--url` (the function URL, the connection `default`'s)
 * another connection's is that URL with its name as the path, as the stack makes it; with
 * `--outputs-file`, each connection's `PushWebhookUrl` output of the deployed stack.
 *
 * @throws UsageError when neither or both are given, the file is not the JSON `cdk deploy` writes, it
 *   holds several stacks and no `--stack`, or it lacks a connection's output (push not enabled).
 */
export async function receiverUrls(
  source: ReceiverUrlSource,
  connections: readonly string[],
): Promise<Map<string, string>> {
  if ((source.url === undefined) === (source.outputsFile === undefined)) {
    throw new UsageError(
      "give the receiver's URL: --url URL (the stack's PushWebhookUrl output) or --outputs-file FILE (what cdk deploy --outputs-file wrote)",
    );
  }
  const urls = new Map<string, string>();
  if (source.url !== undefined) {
    const base = checkedUrl(source.url, '--url');
    for (const connection of connections) {
      urls.set(
        connection,
        connection === DEFAULT_CONNECTION ? base : `${base.endsWith('/') ? base : `${base}/`}${connection}`,
      );
    }
    return urls;
  }
  const file = resolve(source.cwd, source.outputsFile as string);
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readFile(file, 'utf8'));
  } catch (cause) {
    throw new UsageError(`--outputs-file ${source.outputsFile}: cannot read it as JSON`, { cause });
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new UsageError(
      `--outputs-file ${source.outputsFile}: expected the {stack: {output: value}} object cdk deploy writes`,
    );
  }
  const stacks = Object.keys(parsed);
  const stack = source.stack ?? (stacks.length === 1 ? stacks[0] : undefined);
  if (stack === undefined) {
    throw new UsageError(
      `--outputs-file ${source.outputsFile} holds ${stacks.length} stacks (${stacks.join(', ')}): name one with --stack`,
    );
  }
  const outputs = (parsed as Record<string, unknown>)[stack];
  if (typeof outputs !== 'object' || outputs === null) {
    throw new UsageError(`--outputs-file ${source.outputsFile} has no stack ${stack}`);
  }
  for (const connection of connections) {
    const key = pushUrlOutput(connection);
    const value = (outputs as Record<string, unknown>)[key];
    if (typeof value !== 'string') {
      throw new UsageError(
        `stack ${stack} has no output ${key}: deploy with push.enabled (see docs/push.md), or give --url`,
      );
    }
    urls.set(connection, checkedUrl(value, `output ${key}`));
  }
  return urls;
}

/**
 * The projects of a connection: its `sources.projectIds`, and with `allProjectsOfOrgs` every project
 * of its organizations as Atlas lists them to the client's key.
 */
export async function connectionProjects(
  connection: EffectiveConnection,
  client: AtlasClient,
): Promise<string[]> {
  const ids = new Set(connection.sources.projectIds);
  if (connection.sources.allProjectsOfOrgs) {
    for (const orgId of connection.sources.orgIds) {
      for await (const project of client.listOrgProjects(orgId)) ids.add(project.id);
    }
  }
  return [...ids];
}

/**
 * Whether Atlas can alert on each event type: `alertable` of `GET /eventTypes` on Atlas v2; elsewhere
 * (the legacy API, Ops Manager: no such resource) the list read from the OpenAPI document.
 */
export async function alertableTypes(
  connection: EffectiveConnection,
  client: AtlasClient,
): Promise<(eventTypeName: string) => boolean> {
  if (connection.flavor !== 'atlas-v2') return isAlertableEventType;
  const alertable = new Set<string>();
  for await (const type of client.listEventTypes()) if (type.alertable) alertable.add(type.eventType);
  return (eventTypeName) => alertable.has(eventTypeName);
}
