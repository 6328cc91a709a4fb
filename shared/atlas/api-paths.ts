import { FLAVOR_PREFIXES } from './client-options.js';
import { AtlasRequestError } from './errors.js';

/** Atlas ids are 24 hex digits; other deployments and tests may use other ids, never path syntax. */
const ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * Checks one id that goes into a path (org, project, API key, event) and encodes it. Only letters,
 * digits, `_` and `-` pass, so no id can add a path segment, a query or a dot segment.
 *
 * @throws AtlasRequestError when the id is empty, too long or has any other character.
 *
 * @example
 * ```ts
 * `/orgs/${pathId('orgId', '5f4e3d2c1b0a998877665544')}/events`;
 * pathId('groupId', '../orgs'); // throws AtlasRequestError
 * ```
 */
export function pathId(name: string, value: string): string {
  if (typeof value !== 'string' || !ID_PATTERN.test(value)) {
    const shown = typeof value === 'string' ? JSON.stringify(value.slice(0, 40)) : typeof value;
    throw new AtlasRequestError(
      `${name} ${shown} is not an Atlas id: use the 24-character hexadecimal id, such as 5f4e3d2c1b0a998877665544`,
    );
  }
  return encodeURIComponent(value);
}

/**
 * The resource part of a link Atlas returned (`/groups/x/events?pageNum=2`): the path after whichever
 * API prefix it carries, and its query. The client rebases it onto its own origin and prefix, so a
 * `next` link can never send credentials to another host, and an Ops Manager whose central URL differs
 * from the address the client uses still paginates.
 *
 * @returns The resource path and the query as written (`?` and all, or empty), or `undefined` when
 *   the link is not a URL with a known prefix.
 *
 * @example
 * ```ts
 * resourceOfLink('https://cloud.mongodb.com/api/atlas/v2/groups/x/events?pageNum=2&itemsPerPage=500');
 * // { path: '/groups/x/events', search: '?pageNum=2&itemsPerPage=500' }
 * ```
 */
export function resourceOfLink(href: string): { path: string; search: string } | undefined {
  let url: URL;
  try {
    url = new URL(href, 'https://link.invalid');
  } catch {
    return undefined;
  }
  const { pathname } = url;
  for (const prefix of LINK_PREFIXES) {
    const index = pathname.indexOf(prefix);
    if (index !== -1) {
      // The path keeps the prefix's closing slash.
      return { path: pathname.slice(index + prefix.length - 1), search: url.search };
    }
  }
  return undefined;
}

/** Each flavour's API prefix as a link's path holds it, a slash after it. */
const LINK_PREFIXES = Object.values(FLAVOR_PREFIXES).map((prefix) => `${prefix}/`);
