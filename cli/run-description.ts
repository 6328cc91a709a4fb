import type { RunSettings } from './run-options.js';
import { describeTarget } from './run-targets.js';

/**
 * One line saying what a local poll is about to do: which sources, where, and where state and alerts
 * go. Holds no credential.
 *
 * @example
 * ```ts
 * describeRun(settings);
 * // 'Polling 1 org (and all its projects) at https://cloud.mongodb.com (atlas-v2); state file:/home/me/.atlas-audit-alerts/state.json; alerts to console'
 * ```
 */
export function describeRun(settings: RunSettings): string {
  const { sources, atlas } = settings.config;
  const parts: string[] = [];
  if (sources.orgIds.length > 0) {
    const count = sources.orgIds.length;
    parts.push(
      `${count} ${count === 1 ? 'org' : 'orgs'}${
        sources.allProjectsOfOrgs ? ` (and all ${count === 1 ? 'its' : 'their'} projects)` : ''
      }`,
    );
  }
  if (sources.projectIds.length > 0) {
    const count = sources.projectIds.length;
    parts.push(`${count} ${count === 1 ? 'project' : 'projects'}`);
  }
  return `Polling ${parts.join(' and ')} at ${atlas.baseUrl} (${atlas.flavor}); state ${describeTarget(
    settings.state,
  )}; alerts to ${describeTarget(settings.notify)}`;
}
