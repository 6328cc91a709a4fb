import type { DigestEntry } from '../state/digest-store.js';
import { type Severity, severityRank } from './alert.js';

/** How many actors a group names; the others are counted ("and 3 more"). */
export const DIGEST_ACTORS_SHOWN = 5;

/** The alerts of one rule in one project (or organization) within a digest. */
export interface DigestGroup {
  readonly ruleId: string;
  readonly ruleName: string;
  /** The highest severity among the group's alerts. */
  readonly severity: Severity;
  readonly groupId?: string;
  readonly projectName?: string;
  readonly orgId?: string;
  /** How many alerts. */
  readonly count: number;
  /** When the first and the last were raised, in milliseconds since the epoch. */
  readonly first: number;
  readonly last: number;
  /** Distinct actors, in the order they first acted. */
  readonly actors: readonly string[];
  /** The activity feed of the group's project or organization, from its latest alert that has one. */
  readonly link?: string;
  /** The suppressed repeats the group's alerts rolled up, summed, with their earliest and latest time. */
  readonly rollUp?: { suppressed: number; first: number; last: number };
}

/**
 * Groups a digest's entries by rule and project (or organization, for alerts without a project):
 * counts, first and last time, actors, the link, and the roll-ups of suppressed repeats. Groups come
 * highest severity first, then most alerts first, then by rule id. Never throws.
 *
 * @example
 * ```ts
 * groupDigestEntries(entries)[0]; // { ruleId: 'api-key-created', count: 12, actors: ['alice@example.com'], ... }
 * ```
 */
export function groupDigestEntries(entries: readonly DigestEntry[]): DigestGroup[] {
  const groups = new Map<string, Mutable>();
  for (const entry of entries) {
    const key = JSON.stringify([entry.ruleId, entry.groupId ?? '', entry.groupId ? '' : (entry.orgId ?? '')]);
    const group = groups.get(key);
    if (group === undefined) {
      groups.set(key, {
        ruleId: entry.ruleId,
        ruleName: entry.ruleName,
        severity: entry.severity,
        ...(entry.groupId === undefined ? {} : { groupId: entry.groupId }),
        ...(entry.projectName === undefined ? {} : { projectName: entry.projectName }),
        ...(entry.orgId === undefined ? {} : { orgId: entry.orgId }),
        count: 1,
        first: entry.raisedAt,
        last: entry.raisedAt,
        actors: entry.actor === undefined ? [] : [entry.actor],
        ...(entry.link === undefined ? {} : { link: entry.link }),
        ...(entry.rollUp === undefined ? {} : { rollUp: { ...entry.rollUp } }),
      });
      continue;
    }
    group.count += 1;
    if (severityRank(entry.severity) > severityRank(group.severity)) group.severity = entry.severity;
    group.first = Math.min(group.first, entry.raisedAt);
    if (entry.raisedAt >= group.last && entry.link !== undefined) group.link = entry.link;
    group.last = Math.max(group.last, entry.raisedAt);
    if (entry.projectName !== undefined) group.projectName = entry.projectName;
    if (entry.actor !== undefined && !group.actors.includes(entry.actor)) group.actors.push(entry.actor);
    if (entry.rollUp !== undefined) {
      group.rollUp =
        group.rollUp === undefined
          ? { ...entry.rollUp }
          : {
              suppressed: group.rollUp.suppressed + entry.rollUp.suppressed,
              first: Math.min(group.rollUp.first, entry.rollUp.first),
              last: Math.max(group.rollUp.last, entry.rollUp.last),
            };
    }
  }
  return [...groups.values()].sort(
    (a, b) =>
      severityRank(b.severity) - severityRank(a.severity) ||
      b.count - a.count ||
      (a.ruleId < b.ruleId ? -1 : a.ruleId > b.ruleId ? 1 : 0) ||
      (a.groupId ?? a.orgId ?? '').localeCompare(b.groupId ?? b.orgId ?? ''),
  );
}

type Mutable = {
  -readonly [K in keyof DigestGroup]: K extends 'actors' ? string[] : DigestGroup[K];
};
