import { DEFAULT_CONNECTION } from '../shared/poll/connections.js';
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
 * // with connections: 'Polling 1 org at https://cloud.mongodb.com (atlas-v2) (connection default), 2 projects at https://opsmanager.example.com (ops-manager) (connection ops); rules ...'
 * ```
 */
export function describeRun(settings: RunSettings, pack: RulePack): string {
  const connections = settings.connections.map(({ connection }) => connection);
  const where =
    connections.length === 0
      ? describeSources(settings.config.sources, settings.config.atlas)
      : connections
          .map((connection) =>
            connections.length === 1 && connection.name === DEFAULT_CONNECTION
              ? describeSources(connection.sources, connection)
              : `${describeSources(connection.sources, connection)} (connection ${connection.name})`,
          )
          .join(', ');
  return `Polling ${where}; rules ${describeLayers(pack)}; state ${describeTarget(
    settings.state,
  )}; alerts to ${describeTarget(settings.notify)}`;
}

/** `1 org (and all its projects) at https://cloud.mongodb.com (atlas-v2)`. */
function describeSources(
  sources: RunSettings['config']['sources'],
  atlas: { baseUrl: string; flavor: string },
): string {
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
  const history = sources.accessHistory === true ? ", with their clusters' access history," : '';
  return `${parts.join(' and ')}${history} at ${atlas.baseUrl} (${atlas.flavor})`;
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
