import { ACCESS_HISTORY_SOURCE, type AtlasEvent } from '../atlas/types.js';
import { NotifyConfigError } from './errors.js';
import type { ConsoleLinkOptions } from './format-context.js';

/** A link a person can follow from an alert. */
export interface EventLink {
  /** A page of the web console, or the event in the Admin API. */
  kind: 'console' | 'api';
  label: string;
  /** An absolute `http:` or `https:` URL, normalised by the WHATWG URL parser. */
  url: string;
}

/** Atlas project and organization ids are ObjectIds; anything else is not put into a URL. */
const ATLAS_ID = /^[0-9a-f]{24}$/;

/**
 * The links of an event, best first:
 *
 * - Atlas (`atlas-v1`, `atlas-v2`): the activity feed of the event's project
 *   (`{base}/v2/{groupId}#/activity`), or of its organization (`{base}/v2#/org/{orgId}/activity`)
 *   when the event has no project; for a login of a cluster's access history, which the feed does
 *   not show, the project's Database Access page (`{base}/v2/{groupId}#/security/database/users`),
 *   where its access history opens.
 * - Ops Manager: the project's page (`{base}/v2/{groupId}`), from which its Activity Feed is one click
 *   away. Ops Manager's own deep links to the feed are not documented for every version, so none is
 *   guessed; organization events get no console link.
 * - Every flavour: the event in the Admin API (its `self` link), when it is an http(s) URL.
 *
 * Ids that are not 24 hexadecimal characters and a base URL that does not parse give no link. Never
 * throws.
 *
 * @example
 * ```ts
 * eventLinks({ groupId: '5b43d04087d9d6357de591a2' }, { flavor: 'atlas-v2', baseUrl: 'https://cloud.mongodb.com' });
 * // [{ kind: 'console', label: 'Project activity feed', url: 'https://cloud.mongodb.com/v2/5b43d04087d9d6357de591a2#/activity' }]
 * ```
 */
export function eventLinks(event: AtlasEvent, consoleLinks?: ConsoleLinkOptions): EventLink[] {
  const links: EventLink[] = [];
  const base = consoleLinks === undefined ? undefined : consoleBase(consoleLinks.baseUrl);
  const groupId =
    typeof event.groupId === 'string' && ATLAS_ID.test(event.groupId) ? event.groupId : undefined;
  const orgId = typeof event.orgId === 'string' && ATLAS_ID.test(event.orgId) ? event.orgId : undefined;
  if (base !== undefined && consoleLinks !== undefined) {
    if (consoleLinks.flavor === 'ops-manager') {
      if (groupId)
        links.push({ kind: 'console', label: 'Project in Ops Manager', url: `${base}/v2/${groupId}` });
    } else if (groupId && event.source === ACCESS_HISTORY_SOURCE) {
      // Logins are not in the activity feed: the Database Access page opens the access history.
      links.push({
        kind: 'console',
        label: 'Project database access',
        url: `${base}/v2/${groupId}#/security/database/users`,
      });
    } else if (groupId) {
      links.push({ kind: 'console', label: 'Project activity feed', url: `${base}/v2/${groupId}#/activity` });
    } else if (orgId) {
      links.push({
        kind: 'console',
        label: 'Organization activity feed',
        url: `${base}/v2#/org/${orgId}/activity`,
      });
    }
  }
  const self = selfLink(event);
  if (self !== undefined) links.push({ kind: 'api', label: 'Event in the Admin API', url: self });
  return links;
}

/**
 * The base URL without a trailing slash, query or fragment, or `undefined` when it is not an absolute
 * http(s) URL.
 *
 * @example
 * ```ts
 * consoleBase('https://om.example.com:8080/'); // 'https://om.example.com:8080'
 * ```
 */
export function consoleBase(baseUrl: string): string | undefined {
  const url = parseHttpUrl(baseUrl);
  return url === undefined ? undefined : `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}

/**
 * Checks the console link options a notifier is built with.
 *
 * @throws {NotifyConfigError} when the base URL is not an absolute http(s) URL.
 * @example
 * ```ts
 * assertConsoleLinks({ flavor: 'atlas-v2', baseUrl: 'https://cloud.mongodb.com' });
 * ```
 */
export function assertConsoleLinks(consoleLinks: ConsoleLinkOptions | undefined): void {
  if (consoleLinks !== undefined && consoleBase(consoleLinks.baseUrl) === undefined) {
    throw new NotifyConfigError(
      `console base URL "${consoleLinks.baseUrl.slice(0, 300)}" is not an http(s) URL: pass one such as https://cloud.mongodb.com`,
    );
  }
}

function selfLink(event: AtlasEvent): string | undefined {
  if (!Array.isArray(event.links)) return undefined;
  for (const link of event.links as unknown[]) {
    if (typeof link !== 'object' || link === null) continue;
    const { rel, href } = link as { rel?: unknown; href?: unknown };
    if (rel === 'self' && typeof href === 'string' && href.length <= 2048) return parseHttpUrl(href)?.href;
  }
  return undefined;
}

function parseHttpUrl(text: string): URL | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return undefined;
  if (url.username !== '' || url.password !== '') return undefined;
  // The URL standard now percent-encodes `^` in paths (Node 22 and later do; Node 20 does not): encode
  // it on every Node, so that an alert reads the same whichever runs the poller.
  if (url.pathname.includes('^')) url.pathname = url.pathname.replaceAll('^', '%5E');
  return url;
}
