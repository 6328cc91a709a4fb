import ipaddr from 'ipaddr.js';
import type { EventCatalog } from '../catalog/event-catalog.js';
import { MATCH_KEYWORDS, requiredEventTypes } from '../conditions.js';
import { parseFieldPath } from '../field-path.js';
import type { RulePack } from '../rule-pack.js';
import type { FieldConditionSpec, ListRef, MatchSpec, OperatorsSpec, ScalarValue } from '../schema.js';
import { isContextPath } from '../template.js';
import { RuleSources } from './rule-sources.js';
import type { RuleWarning, RuleWarningCode } from './rule-warning.js';

export interface LintRulePackOptions {
  /** The known event types and their fields (`loadEventCatalog()`). */
  readonly catalog: EventCatalog;
  /** The pack's files, to give warnings lines and columns; without them warnings carry document paths. */
  readonly sources?: RuleSources | undefined;
}

type Path = (string | number)[];

/** How many event types a message names before it says "and N more". */
const TYPES_SHOWN = 3;

/**
 * Finds what makes a valid rule silently never fire, or fire less than meant: event type names and
 * field paths that no known event has (checked against the event catalog, with a "did you mean"),
 * template placeholders naming such fields, lists nothing uses, and CIDR blocks with host bits set.
 * Unknown names are warnings, never errors: Atlas adds event types every month. `--strict` (or
 * `rules.strict` when deploying) turns the warnings into errors.
 *
 * @example
 * ```ts
 * const pack = loadRulePackSync({ paths });
 * const warnings = lintRulePack(pack, { catalog: loadEventCatalog(), sources: RuleSources.read(pack.files) });
 * if (warnings.length > 0) process.stderr.write(`${formatRuleWarnings(warnings)}\n`);
 * ```
 */
export function lintRulePack(pack: RulePack, options: LintRulePackOptions): RuleWarning[] {
  const { catalog } = options;
  const sources = options.sources ?? new RuleSources([]);
  const warnings: RuleWarning[] = [];
  const warn = (
    code: RuleWarningCode,
    file: string,
    path: Path,
    message: string,
    hint: string,
    target: { key?: boolean; needle?: string } = {},
  ): void => {
    const position = sources.positionOf(file, path, target);
    warnings.push({ code, file, path, message, hint, ...position });
  };
  // Set for the rule being checked: what its `# lint-allow CODE subject` comments accept.
  let allowedTypes: ReadonlySet<string> = new Set();
  let allowedFields: ReadonlySet<string> = new Set();
  const usedLists = new Set<string>();
  const eventTypeLists = new Set<string>();
  const cidrLists = new Set<string>();
  const lowerCaseTypes = new Map([...catalog.types.keys()].map((name) => [name.toLowerCase(), name]));

  const checkEventType = (value: unknown, file: string, path: Path, ignoreCase: boolean): void => {
    if (typeof value !== 'string' || catalog.types.has(value) || allowedTypes.has(value)) return;
    if (ignoreCase && lowerCaseTypes.has(value.toLowerCase())) return;
    const suggestion = catalog.suggestType(value);
    warn(
      'UNKNOWN_EVENT_TYPE',
      file,
      path,
      `${JSON.stringify(value)} is not a known Atlas event type, so no event will match it`,
      suggestion === undefined
        ? 'check the spelling; if Atlas added this type after this version was released, refresh the catalog with npm run catalog'
        : `did you mean ${JSON.stringify(suggestion)}?`,
    );
  };

  const checkPath = (
    pathText: string,
    types: ReadonlySet<string> | undefined,
    report: (message: string, hint: string) => void,
  ): void => {
    if (!parseFieldPath(pathText).ok || allowedFields.has(pathText)) return;
    const known = types === undefined ? undefined : [...types].filter((type) => catalog.types.has(type));
    // A rule on unknown types alone has its warning already; its fields cannot be judged.
    if (known !== undefined && known.length === 0) return;
    if (catalog.knowsPath(pathText, known)) return;
    const suggestion = catalog.suggestPath(pathText, known);
    report(
      `${describeTypes(known)} carries the field ${JSON.stringify(pathText)}`,
      suggestion === undefined
        ? 'check the spelling against the fields of the event types matched; raw.* reaches fields the API does not declare'
        : `did you mean ${JSON.stringify(suggestion)}?`,
    );
  };

  const walkOperators = (
    field: string,
    spec: OperatorsSpec,
    file: string,
    path: Path,
    types: ReadonlySet<string> | undefined,
  ): void => {
    for (const operator of [
      'in',
      'not_in',
      'starts_with',
      'ends_with',
      'contains',
      'email_domain_in',
    ] as const) {
      const operand = spec[operator];
      if (isListRef(operand)) usedLists.add(operand.list);
    }
    if (field === 'eventTypeName') {
      const ignoreCase = spec.ignore_case === true;
      checkEventType(spec.equals, file, [...path, 'equals'], ignoreCase);
      for (const operator of ['in', 'not_in'] as const) {
        const operand = spec[operator];
        if (isListRef(operand)) eventTypeLists.add(operand.list);
        else
          operand?.forEach((value, index) => {
            checkEventType(value, file, [...path, operator, index], ignoreCase);
          });
      }
    }
    if (isListRef(spec.cidr_in)) {
      usedLists.add(spec.cidr_in.list);
      cidrLists.add(spec.cidr_in.list);
    } else {
      spec.cidr_in?.forEach((value, index) => {
        checkHostBits(value, file, [...path, 'cidr_in', index]);
      });
    }
    if (spec.email_domain_same_as !== undefined) {
      checkPath(spec.email_domain_same_as, types, (message, hint) =>
        warn(
          'UNKNOWN_FIELD',
          file,
          [...path, 'email_domain_same_as'],
          `${message}: email_domain_same_as never finds a domain there`,
          hint,
        ),
      );
    }
    if (spec.not !== undefined) walkOperators(field, spec.not, file, [...path, 'not'], types);
  };

  const walkCondition = (
    field: string,
    condition: FieldConditionSpec,
    file: string,
    path: Path,
    types: ReadonlySet<string> | undefined,
  ): void => {
    checkPath(field, types, (message, hint) =>
      warn('UNKNOWN_FIELD', file, path, `${message}: this condition never sees a value`, hint, { key: true }),
    );
    if (Array.isArray(condition)) {
      if (field === 'eventTypeName')
        condition.forEach((value, index) => {
          checkEventType(value, file, [...path, index], false);
        });
    } else if (condition === null || typeof condition !== 'object') {
      if (field === 'eventTypeName') checkEventType(condition, file, path, false);
    } else {
      walkOperators(field, condition, file, path, types);
    }
  };

  const walkMatch = (
    spec: MatchSpec,
    file: string,
    path: Path,
    types: ReadonlySet<string> | undefined,
    narrow: boolean,
  ): void => {
    const here = narrow ? intersect(types, requiredEventTypes(spec, pack.lists)) : types;
    for (const [key, value] of Object.entries(spec)) {
      if (value === undefined) continue;
      if (key === 'any' || key === 'all') {
        (value as MatchSpec[]).forEach((branch, index) => {
          walkMatch(branch, file, [...path, key, index], here, narrow);
        });
      } else if (key === 'not') {
        // Conditions under `not` do not narrow the event types: `not: {eventTypeName: A}` means "not A".
        walkMatch(value as MatchSpec, file, [...path, key], here, false);
      } else if (key === 'list_empty') {
        usedLists.add(value as string);
      } else if (!MATCH_KEYWORDS.has(key)) {
        walkCondition(key, value as FieldConditionSpec, file, [...path, key], here);
      }
    }
  };

  const checkHostBits = (value: unknown, file: string, path: Path, list?: string): void => {
    const found = hostBits(value);
    if (found === undefined) return;
    warn(
      'CIDR_HOST_BITS',
      file,
      path,
      `${JSON.stringify(value)}${list === undefined ? '' : ` (in list "${list}")`} has host bits set: it is read as ${found.network}, ${found.size}`,
      `write ${found.network} for the whole block, or ${found.single} for that one address`,
    );
  };

  const fileRuleCounts = new Map<string, number>();
  for (const rule of pack.rules) {
    const file = rule.origin.file;
    // The loader keeps every rule of a valid file, in order: the count is the index in its file.
    const index = fileRuleCounts.get(file) ?? 0;
    fileRuleCounts.set(file, index + 1);
    const base: Path = ['rules', index];
    const directives = lintAllowDirectives(sources.ruleText(file, index) ?? '');
    allowedFields = directives.get('UNKNOWN_FIELD') ?? new Set();
    allowedTypes = directives.get('UNKNOWN_EVENT_TYPE') ?? new Set();
    const types = requiredEventTypes(rule.spec.match, pack.lists);
    walkMatch(rule.spec.match, file, [...base, 'match'], undefined, true);
    // The rule's own exceptions use lists too; the layers' shared ones are collected below.
    collectListRefs(rule.spec.exceptions, usedLists);
    const after = rule.spec.sequence?.after;
    if (after !== undefined) walkMatch(after, file, [...base, 'sequence', 'after'], undefined, true);
    const afterTypes = after === undefined ? undefined : requiredEventTypes(after, pack.lists);
    rule.spec.group_by?.forEach((field, position) => {
      checkPath(field, types, (message, hint) =>
        warn(
          'UNKNOWN_FIELD',
          file,
          [...base, 'group_by', position],
          `${message}: every event falls in the same group`,
          hint,
        ),
      );
      // A sequence joins its two steps on the group: the earlier step's events must carry it too.
      if (after === undefined) return;
      checkPath(field, afterTypes, (message, hint) =>
        warn(
          'UNKNOWN_FIELD',
          file,
          [...base, 'group_by', position],
          `${message} in the sequence's earlier step: no earlier event joins a group, and the rule never alerts`,
          hint,
        ),
      );
    });
    const suppress = rule.spec.suppress;
    if (typeof suppress === 'object') {
      suppress.key?.forEach((field, position) => {
        checkPath(field, types, (message, hint) =>
          warn(
            'UNKNOWN_FIELD',
            file,
            [...base, 'suppress', 'key', position],
            `${message}: every occurrence falls under the same roll-up key`,
            hint,
          ),
        );
      });
    }
    const distinctField = rule.spec.distinct_count?.field;
    if (distinctField !== undefined) {
      checkPath(distinctField, types, (message, hint) =>
        warn(
          'UNKNOWN_FIELD',
          file,
          [...base, 'distinct_count', 'field'],
          `${message}: no event counts toward the distinct count`,
          hint,
        ),
      );
    }
    for (const key of ['title', 'summary'] as const) {
      const template = rule.spec[key];
      if (template === undefined) continue;
      for (const { placeholder, paths } of placeholders(template)) {
        for (const field of paths) {
          checkPath(field, types, (message, hint) =>
            warn(
              'UNKNOWN_TEMPLATE_FIELD',
              file,
              [...base, key],
              `${message}, so ${placeholder} in the ${key} never shows it`,
              hint,
              { needle: placeholder },
            ),
          );
        }
      }
    }
  }

  // Exceptions: each where it was written, once, judged against the event types of every rule it
  // applies to (a global exception applies to many), narrowed by its own eventTypeName.
  for (const exception of exceptionsOf(pack)) {
    const [section, index] = exception.path;
    const text =
      typeof section === 'string' && typeof index === 'number'
        ? sources.itemText(exception.file, section, index)
        : undefined;
    const directives = lintAllowDirectives(text ?? '');
    allowedFields = directives.get('UNKNOWN_FIELD') ?? new Set();
    allowedTypes = directives.get('UNKNOWN_EVENT_TYPE') ?? new Set();
    walkMatch(exception.match, exception.file, [...exception.path], exception.types, true);
  }

  for (const exception of pack.exceptions) collectListRefs(exception.match, usedLists);

  allowedTypes = new Set();
  allowedFields = new Set();
  for (const [name, values] of pack.lists) {
    const file = sources.listFile(name, pack.files) ?? pack.files[0] ?? '<rules>';
    if (!usedLists.has(name)) {
      warn(
        'UNUSED_LIST',
        file,
        ['lists', name],
        `list "${name}" is defined but no rule uses it`,
        `use it in a rule as {list: ${name}}, or remove it`,
        { key: true },
      );
    }
    values.forEach((value, index) => {
      if (eventTypeLists.has(name)) checkEventType(value, file, ['lists', name, index], false);
      if (cidrLists.has(name)) checkHostBits(value, file, ['lists', name, index], name);
    });
  }
  const fileOrder = new Map(pack.files.map((file, index) => [file, index]));
  return warnings.sort(
    (a, b) =>
      (fileOrder.get(a.file) ?? -1) - (fileOrder.get(b.file) ?? -1) ||
      (a.line ?? 0) - (b.line ?? 0) ||
      (a.column ?? 0) - (b.column ?? 0),
  );
}

/** An exception as written once, with the event types of the rules it applies to (`undefined`: any). */
interface WrittenException {
  readonly file: string;
  readonly path: readonly (string | number)[];
  readonly match: MatchSpec;
  readonly types: ReadonlySet<string> | undefined;
}

/**
 * The exceptions of a pack, each once where it was written, with the union of the event types the
 * rules it applies to require (`undefined` when one of them requires none). An exception without a
 * known origin (a serialized pack) is placed under its rule.
 */
function exceptionsOf(pack: RulePack): WrittenException[] {
  const found = new Map<
    string,
    { file: string; path: readonly (string | number)[]; match: MatchSpec; types: Set<string> | undefined }
  >();
  const fileRuleCounts = new Map<string, number>();
  for (const rule of pack.rules) {
    const index = fileRuleCounts.get(rule.origin.file) ?? 0;
    fileRuleCounts.set(rule.origin.file, index + 1);
    const ruleTypes = requiredEventTypes(rule.spec.match, pack.lists);
    (rule.spec.exceptions ?? []).forEach((match, position) => {
      const origin = rule.exceptionOrigins?.[position] ?? {
        file: rule.origin.file,
        path: ['rules', index, 'exceptions', position],
      };
      const key = `${origin.file}\u0000${JSON.stringify(origin.path)}`;
      const known = found.get(key);
      if (known === undefined) {
        found.set(key, { ...origin, match, types: ruleTypes === undefined ? undefined : new Set(ruleTypes) });
      } else if (known.types !== undefined) {
        if (ruleTypes === undefined) known.types = undefined;
        else for (const type of ruleTypes) known.types.add(type);
      }
    });
  }
  // A layer's exceptions, shared by the rules in their scope: judged against all of those rules' types.
  // Exceptions written alike share their scope's set: its types are worked out once.
  const typesOfScope = new Map<ReadonlySet<string>, Set<string> | undefined>();
  const typesOfRule = new Map<string, ReadonlySet<string> | undefined>();
  const scopeTypes = (scope: ReadonlySet<string>): Set<string> | undefined => {
    if (typesOfScope.has(scope)) return typesOfScope.get(scope);
    let types: Set<string> | undefined = new Set();
    for (const rule of pack.rules) {
      if (!scope.has(rule.spec.id)) continue;
      if (!typesOfRule.has(rule.spec.id)) {
        const found = requiredEventTypes(rule.spec.match, pack.lists);
        typesOfRule.set(rule.spec.id, found === undefined ? undefined : new Set(found));
      }
      const ruleTypes = typesOfRule.get(rule.spec.id);
      if (ruleTypes === undefined) {
        types = undefined;
        break;
      }
      for (const type of ruleTypes) types.add(type);
    }
    typesOfScope.set(scope, types);
    return types;
  };
  for (const exception of pack.exceptions) {
    if (exception.origin === undefined) continue;
    const types = scopeTypes(exception.scope);
    found.set(`${exception.origin.file}\u0000${JSON.stringify(exception.origin.path)}`, {
      ...exception.origin,
      match: exception.match,
      types,
    });
  }
  return [...found.values()];
}

/**
 * The `# lint-allow CODE subject` comments of a rule: a field (`UNKNOWN_FIELD whitelistEntry`, which
 * covers its template placeholders too) or an event type (`UNKNOWN_EVENT_TYPE NEW_TYPE`) the author
 * knows the catalog lacks, with the reason after the subject.
 */
function lintAllowDirectives(text: string): Map<string, Set<string>> {
  const directives = new Map<string, Set<string>>();
  for (const match of text.matchAll(/#\s*lint-allow\s+([A-Z_]+)\s+([^\s:,]+)/g)) {
    const [, code, subject] = match as unknown as [string, string, string];
    const set = directives.get(code) ?? new Set<string>();
    set.add(subject);
    directives.set(code, set);
  }
  return directives;
}

/** Adds the name of every `{list: name}` found anywhere in `value` to `into`. */
function collectListRefs(value: unknown, into: Set<string>): void {
  if (Array.isArray(value)) {
    for (const item of value) collectListRefs(item, into);
    return;
  }
  if (typeof value !== 'object' || value === null) return;
  if (isListRef(value)) into.add(value.list);
  for (const item of Object.values(value)) collectListRefs(item, into);
}

function isListRef(value: unknown): value is ListRef {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && 'list' in value;
}

function intersect(
  outer: ReadonlySet<string> | undefined,
  inner: ReadonlySet<string> | undefined,
): ReadonlySet<string> | undefined {
  if (outer === undefined) return inner;
  if (inner === undefined) return outer;
  return new Set([...inner].filter((type) => outer.has(type)));
}

function describeTypes(types: readonly string[] | undefined): string {
  if (types === undefined) return 'no known event';
  const sorted = [...types].sort();
  const shown = sorted.slice(0, TYPES_SHOWN).join(', ');
  const more = sorted.length > TYPES_SHOWN ? ` and ${sorted.length - TYPES_SHOWN} more` : '';
  return `no known event of type${sorted.length === 1 ? '' : 's'} ${shown}${more}`;
}

/** The placeholders of a template with the event field paths they name (quoted defaults left out). */
function placeholders(template: string): { placeholder: string; paths: string[] }[] {
  const found: { placeholder: string; paths: string[] }[] = [];
  for (const match of template.matchAll(/\{\{(.*?)\}\}/gs)) {
    const inner = match[1] ?? '';
    const paths = inner
      .split('|')
      .map((choice) => choice.trim())
      // `context.*` fields are the poller's, not the event's: the template compiler checks their names.
      .filter(
        (choice) =>
          choice !== '' && !choice.startsWith('"') && !choice.endsWith('"') && !isContextPath(choice),
      );
    found.push({ placeholder: match[0], paths });
  }
  return found;
}

/** For a CIDR block with host bits set: its network, its size in words, and the single address. */
function hostBits(
  value: ScalarValue | unknown,
): { network: string; size: string; single: string } | undefined {
  if (typeof value !== 'string' || !value.includes('/')) return undefined;
  let parsed: [ipaddr.IPv4 | ipaddr.IPv6, number];
  try {
    parsed = ipaddr.parseCIDR(value.trim());
  } catch {
    return undefined;
  }
  const [address, prefix] = parsed;
  const ipv4 = address.kind() === 'ipv4';
  const network = ipv4
    ? ipaddr.IPv4.networkAddressFromCIDR(value.trim())
    : ipaddr.IPv6.networkAddressFromCIDR(value.trim());
  if (network.toString() === address.toString()) return undefined;
  const hostBitCount = (ipv4 ? 32 : 128) - prefix;
  return {
    network: `${network.toString()}/${prefix}`,
    size:
      hostBitCount <= 24
        ? `all ${(2 ** hostBitCount).toLocaleString('en-US')} addresses`
        : `a /${prefix} block`,
    single: `${address.toString()}/${ipv4 ? 32 : 128}`,
  };
}
