import { createRandom, type Random } from './random.js';

/**
 * Generates rule files as a team would write on top of the default pack: most rules name the event
 * types they watch, some combine several, a fifth match on fields of any event (and so run for every
 * event), and one in ten counts or suppresses. Their conditions are specific (a vendor's domain, a
 * payroll database, 0.0.0.0/0), so, as in real use, they rarely hold.
 */

export interface RuleMixOptions {
  /** How many rules to generate. */
  count: number;
  /** The same seed gives the same rules. */
  seed?: number;
  /**
   * Layer-wide exceptions added after the rules, each for every rule: half a service account's name
   * by regex, half a user or an address by value, as a team silences its automation. Default: none.
   */
  exceptions?: number;
}

const EVENT_TYPES = [
  'OUTSIDE_METRIC_THRESHOLD',
  'AUTOMATION_CONFIG_PUBLISHED_AUDIT',
  'DATA_EXPLORER',
  'DATA_EXPLORER_CRUD',
  'NETWORK_PERMISSION_ENTRY_ADDED',
  'API_KEY_CREATED',
  'API_KEY_ACCESS_LIST_ENTRY_ADDED',
  'MONGODB_USER_ADDED',
  'CLUSTER_UPDATE_COMPLETED',
  'CPS_SNAPSHOT_SUCCESSFUL',
  'HOST_RESTARTED',
  'INVITED_TO_ORG',
  'CLUSTER_DELETE_SUBMITTED',
  'PROJECT_SETTINGS_UPDATED',
  'SEARCH_INDEX_CREATED',
];

/** A condition of the kind such rules hold: specific, so it rarely holds, but evaluated all the same. */
function fieldCondition(random: Random, index: number): string {
  switch (random.int(8)) {
    case 0:
      return `username: { ends_with: ['@vendor${index}.example', '@agency${index}.example'], ignore_case: true }`;
    case 1:
      return `username: { regex: '^svc-[a-z]+${index}-[0-9]+@' }`;
    case 2:
      return `remoteAddress: { cidr_in: [192.0.2.${index % 250}/32, 198.18.${index % 250}.0/24] }`;
    case 3:
      return `database: { in: [finance${index}, payroll${index}] }`;
    case 4:
      return `'currentValue.number': { gt: ${990 + (index % 10)} }`;
    case 5:
      return `whitelistEntry: { cidr_at_least_as_wide_as: { ipv4: ${index % 4}, ipv6: ${index % 4} } }`;
    case 6:
      return `'diffs[].roles[].role': { in: [root, custom${index}] }`;
    default:
      return `opType: { starts_with: [drop, purge${index}] }`;
  }
}

/**
 * Rule file text holding `count` generated rules with ids `extra-0000`...
 *
 * @example
 * ```ts
 * const text = generateRuleMix({ count: 200 });
 * const pack = parseRulePack({ sources: [...defaultSources, { file: 'extra.yaml', text }] });
 * ```
 */
export function generateRuleMix(options: RuleMixOptions): string {
  const random = createRandom(options.seed ?? 2);
  const rules: string[] = [];
  for (let index = 0; index < options.count; index++) {
    const id = `extra-${String(index).padStart(4, '0')}`;
    const shape = random.next();
    const lines = [
      `  - id: ${id}`,
      `    name: Generated rule ${index}`,
      `    severity: ${random.pick(['low', 'medium', 'high'])}`,
      '    match:',
    ];
    if (shape < 0.6) {
      lines.push(
        `      eventTypeName: ${random.pick(EVENT_TYPES)}`,
        `      ${fieldCondition(random, index)}`,
      );
    } else if (shape < 0.8) {
      lines.push(
        '      any:',
        `        - eventTypeName: ${random.pick(EVENT_TYPES)}`,
        `        - eventTypeName: [${random.pick(EVENT_TYPES)}, ${random.pick(EVENT_TYPES)}]`,
        `      ${fieldCondition(random, index)}`,
      );
    } else {
      lines.push(`      ${fieldCondition(random, index)}`, '      isGlobalAdmin: { not_in: [true] }');
    }
    const state = random.next();
    if (state < 0.1) {
      lines.push(
        '    group_by: [groupId, username]',
        `    threshold: { count: ${3 + random.int(5)}, window: 10m }`,
      );
    } else if (state < 0.2) {
      lines.push('    group_by: [groupId]', '    suppress: 1h');
    }
    lines.push(`    title: 'Generated ${index}: {{eventTypeName}} by {{username | publicKey | "?"}}'`);
    rules.push(lines.join('\n'));
  }
  const exceptions = Array.from({ length: options.exceptions ?? 0 }, (_, index) => {
    const match =
      index % 2 === 0
        ? `{ username: { regex: '^svc-[a-z]+${index}-[0-9]+@' } }`
        : random.next() < 0.5
          ? `{ username: automation${index}@example.com }`
          : `{ remoteAddress: { cidr_in: [198.51.${index % 250}.0/24] } }`;
    return `  - name: automation ${index}\n    match: ${match}`;
  });
  const exceptionSection = exceptions.length === 0 ? '' : `exceptions:\n${exceptions.join('\n')}\n`;
  return `rules:\n${rules.join('\n')}\n${exceptionSection}`;
}
