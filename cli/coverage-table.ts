import { EVENT_SCOPES } from '../shared/rules/catalog/openapi-events.js';
import type { RuleCoverage } from '../shared/rules/lint/index.js';
import { counted } from './plural.js';

/** How many event types a rule's row names before it says "+N more". */
const TYPES_SHOWN = 3;

/**
 * The report of `rules coverage` for people: one row per enabled rule with the event types it can
 * match, the coverage of each scope and of the security-relevant list, how many covered types Atlas
 * can push, then the security-relevant types no rule names, the covered types Atlas can push and the
 * poll-only ones, and the known event types no rule names, by scope.
 *
 * @example
 * ```ts
 * stdout.write(formatCoverageTable(ruleCoverage(pack, loadEventCatalog(), loadSecurityEventTypes())));
 * ```
 */
export function formatCoverageTable(coverage: RuleCoverage): string {
  const header = ['RULE', 'SEVERITY', 'TYPES', 'EVENT TYPES'];
  const body = coverage.rules.map((rule) => {
    const shown = rule.eventTypes.slice(0, TYPES_SHOWN).join(', ');
    const more = rule.eventTypes.length > TYPES_SHOWN ? ` +${rule.eventTypes.length - TYPES_SHOWN} more` : '';
    const unknown =
      rule.unknownEventTypes.length > 0 ? ` (unknown: ${rule.unknownEventTypes.join(', ')})` : '';
    const types = rule.namesEventTypes
      ? `${shown}${more}${unknown}`
      : `any type with ${rule.requiredFields.join(', ') || 'any field'} (not counted as coverage)`;
    return [rule.id, rule.severity, String(rule.eventTypes.length), types];
  });
  const widths = header.map((_, index) =>
    Math.max(...[header, ...body].map((row) => (row[index] ?? '').length)),
  );
  const line = (cells: readonly string[]): string =>
    cells
      .map((cell, index) =>
        index === 2 ? cell.padStart(widths[index] ?? 0) : cell.padEnd(widths[index] ?? 0),
      )
      .join('  ')
      .trimEnd();
  const lines = [line(header), ...body.map(line), ''];
  const disabled =
    coverage.disabledRules > 0 ? ` (${counted(coverage.disabledRules, 'disabled rule')} left out)` : '';
  lines.push(`${counted(coverage.rules.length, 'enabled rule')}${disabled}`);
  for (const scope of EVENT_SCOPES) {
    const { known, covered } = coverage.scopes[scope];
    lines.push(`${scope} event types: ${covered} of ${known} covered`);
  }
  const { security, push } = coverage;
  if (security !== undefined) {
    lines.push(`security-relevant event types: ${security.covered} of ${security.listed} covered`);
  }
  const coveredCount = push.pushable.length + push.pollOnly.length;
  lines.push(
    `covered event types Atlas can push: ${push.pushable.length} of ${coveredCount} (${push.pollOnly.length} poll-only)`,
  );
  if (security !== undefined && security.uncovered.length > 0) {
    lines.push('', `Uncovered security-relevant event types (${security.uncovered.length}):`);
    for (const { type, area } of security.uncovered) lines.push(`  ${type} (${area})`);
  }
  lines.push('', `Covered event types Atlas can push (${push.pushable.length}): see webhooks plan`);
  for (const type of push.pushable) lines.push(`  ${type}`);
  lines.push('', `Poll-only covered event types (${push.pollOnly.length}): Atlas cannot alert on them`);
  for (const type of push.pollOnly) lines.push(`  ${type}`);
  for (const scope of EVENT_SCOPES) {
    const { uncovered } = coverage.scopes[scope];
    lines.push('', `Uncovered ${scope} event types (${uncovered.length}):`);
    for (const type of uncovered) lines.push(`  ${type}`);
  }
  return `${lines.join('\n')}\n`;
}
