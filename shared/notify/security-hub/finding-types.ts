import { cleanVisibleLine, sliceCodePoints } from '../../text-cleaning.js';
import { MAX_TYPES } from './asff-limits.js';

/**
 * The ASFF `Types` of a finding, from its rule's tags, in the taxonomy's `namespace/category/classifier`
 * form:
 *
 * - a tag that names a MITRE ATT&CK tactic the taxonomy lists gives `TTPs/<tactic>`
 *   (`privilege-escalation` gives `TTPs/Privilege Escalation`);
 * - a tag that names an effect gives `Effects/<effect>` (`exfiltration` gives `Effects/Data
 *   Exfiltration`, `destruction` `Effects/Data Destruction`, `impact` the namespace `Effects` alone);
 * - any other tag gives `Software and Configuration Checks/MongoDB Atlas/<tag>`
 *   (`network-access` gives `Software and Configuration Checks/MongoDB Atlas/network-access`).
 *
 * A rule without tags gets `Software and Configuration Checks/MongoDB Atlas`, so every finding has a
 * type. The taxonomy makes namespaces mandatory and categories and classifiers recommended, and takes
 * a partial path ("Types taxonomy for ASFF" in the Security Hub User Guide).
 */

/** The category of every finding not classified by a tactic or an effect. */
export const ATLAS_TYPE = 'Software and Configuration Checks/MongoDB Atlas';

/** Tags (lower case, words joined by `-`) that name a tactic or an effect of the taxonomy. */
const TAG_TYPES: ReadonlyMap<string, string> = new Map([
  ['initial-access', 'TTPs/Initial Access'],
  ['execution', 'TTPs/Execution'],
  ['persistence', 'TTPs/Persistence'],
  ['privilege-escalation', 'TTPs/Privilege Escalation'],
  ['defense-evasion', 'TTPs/Defense Evasion'],
  ['credential-access', 'TTPs/Credential Access'],
  ['discovery', 'TTPs/Discovery'],
  ['lateral-movement', 'TTPs/Lateral Movement'],
  ['collection', 'TTPs/Collection'],
  ['command-and-control', 'TTPs/Command and Control'],
  ['exfiltration', 'Effects/Data Exfiltration'],
  ['data-exposure', 'Effects/Data Exposure'],
  ['destruction', 'Effects/Data Destruction'],
  ['denial-of-service', 'Effects/Denial of Service'],
  ['resource-consumption', 'Effects/Resource Consumption'],
  ['impact', 'Effects'],
]);

/** A classifier is one path segment: a tag is cut to this many characters. */
const MAX_CLASSIFIER_LENGTH = 64;

/**
 * The finding types of a rule's tags: one per distinct tag, in the tags' order, at most
 * {@link MAX_TYPES}; {@link ATLAS_TYPE} alone when no tag gives one. Tags are cleaned (control and
 * invisible characters removed, `/` replaced by `-`, cut to 64 characters) so that a tag is always one
 * segment of the path. Never throws.
 *
 * @example
 * ```ts
 * findingTypes(['api-keys', 'privilege-escalation']);
 * // ['Software and Configuration Checks/MongoDB Atlas/api-keys', 'TTPs/Privilege Escalation']
 * ```
 */
export function findingTypes(tags: readonly unknown[]): string[] {
  const types = new Set<string>();
  for (const tag of Array.isArray(tags) ? tags : []) {
    if (types.size >= MAX_TYPES) break;
    const type = typeOfTag(tag);
    if (type !== undefined) types.add(type);
  }
  return types.size === 0 ? [ATLAS_TYPE] : [...types];
}

function typeOfTag(tag: unknown): string | undefined {
  if (typeof tag !== 'string') return undefined;
  const classifier = cleanVisibleLine(sliceCodePoints(tag, MAX_CLASSIFIER_LENGTH * 2))
    .replaceAll('/', '-')
    .trim();
  if (classifier === '') return undefined;
  const known = TAG_TYPES.get(classifier.toLowerCase().replace(/[\s_]+/g, '-'));
  return known ?? `${ATLAS_TYPE}/${sliceCodePoints(classifier, MAX_CLASSIFIER_LENGTH).trim()}`;
}
