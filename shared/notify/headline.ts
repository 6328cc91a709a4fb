import type { Alert } from './alert.js';
import type { AlertFacts, Place } from './alert-facts.js';

/** What a headline says after an inventory finding's title: nobody acted, a snapshot showed it. */
export const FOUND_BY_INVENTORY = 'found by the inventory';
/** What it says after a baseline finding's: the first snapshot showed it, so it predates the deployment. */
export const FOUND_BY_FIRST_INVENTORY = 'pre-existing, first inventory';
/** What a headline says after the title of an event that names no user. */
export const NO_USER = 'no user recorded';

/** Where and who, as a headline adds them to a title; a part the title says already is absent. */
export interface HeadlineParts {
  /** The project, else the organization, by name: `payments-prod`. */
  place?: Place;
  /** `by alice@example.com`, `found by the inventory` (or the first one) or `no user recorded`. */
  who?: string;
}

/**
 * What a headline adds to an alert's title so that it says where and who as well as what: the project
 * (or organization) by name, then the actor (`by alice@example.com`), `found by the inventory` for an
 * inventory finding, or `no user recorded`. What the title says already is not said again: a title
 * that names the project leaves its organization to say, one that names the actor leaves no actor.
 * Raw text: each channel prepares it.
 *
 * @example
 * ```ts
 * headlineParts(alert, describeAlert(alert)).who; // 'by bob@example.com'
 * ```
 */
export function headlineParts(alert: Pick<Alert, 'title'>, facts: AlertFacts): HeadlineParts {
  const title = typeof alert.title === 'string' ? alert.title : '';
  const parts: HeadlineParts = {};
  // A title that names the project already leaves its organization to say.
  let place = facts.place;
  while (place?.names.some((name) => title.includes(name))) place = place.parent;
  if (place !== undefined) parts.place = place;
  const who = headlineWho(facts);
  if (!title.includes(who.name)) parts.who = who.text;
  return parts;
}

/**
 * The headline of an alert, as a Slack title and the summary of a push notification read it: the title,
 * then where and who in brackets (see {@link headlineParts}).
 *
 * @example
 * ```ts
 * formatHeadline(alert, facts); // 'Project IP access list open to 0.0.0.0/0 (payments-prod, by bob@example.com)'
 * ```
 */
export function formatHeadline(alert: Pick<Alert, 'title'>, facts: AlertFacts): string {
  const { place, who } = headlineParts(alert, facts);
  const parts = [place?.text, who].filter((part) => part !== undefined);
  return parts.length === 0 ? alert.title : `${alert.title} (${parts.join(', ')})`;
}

/** Who, as a headline says it, and the name a title would hold if it said so itself. */
function headlineWho(facts: AlertFacts): { text: string; name: string } {
  if (facts.finding !== undefined)
    return {
      text: facts.finding.preExisting ? FOUND_BY_FIRST_INVENTORY : FOUND_BY_INVENTORY,
      name: 'inventory',
    };
  const [first, ...rest] = facts.actorNames;
  if (first === undefined) return { text: NO_USER, name: NO_USER };
  const others = rest.length + facts.moreActors;
  if (others === 0) return { text: `by ${first}`, name: first };
  if (others === 1 && rest[0] !== undefined) return { text: `by ${first} and ${rest[0]}`, name: first };
  return { text: `by ${first} and ${others} others`, name: first };
}
