import type { RulePack } from '../shared/rules/index.js';
import type { RunSettings } from './run-options.js';
import { describeTarget } from './run-targets.js';

/**
 * One line saying what a local poll is about to do: which sources, where, with which rule layers (so
 * a layer list that left the built-in pack out shows), and where state and alerts go. Holds no
 * credential.
 *
 * @example
 * ```ts
 * describeRun(settings, pack);
 * // 'Polling 1 org (and all its projects) at https://cloud.mongodb.com (atlas-v2); rules builtin, my-rules (149 rules, 3 disabled); state file:/home/me/.atlas-audit-alerts/state.json; alerts to console'
 * ```
 */
export function describeRun(settings: RunSettings, pack: RulePack): string {
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
  return `Polling ${parts.join(' and ')} at ${atlas.baseUrl} (${atlas.flavor}); rules ${describeLayers(pack)}; state ${describeTarget(
    settings.state,
  )}; alerts to ${describeTarget(settings.notify)}`;
}

/**
 * The rule layers of a pack as the header names them, with how many rules run.
 *
 * @example
 * ```ts
 * describeLayers(pack); // 'builtin, my-rules (149 rules, 3 disabled)'
 * ```
 */
export function describeLayers(pack: RulePack): string {
  const disabled = pack.rules.filter((rule) => rule.spec.enabled === false).length;
  const count = `${pack.rules.length} ${pack.rules.length === 1 ? 'rule' : 'rules'}`;
  return `${pack.layers.map((layer) => layer.name).join(', ')} (${count}${disabled === 0 ? '' : `, ${disabled} disabled`})`;
}
