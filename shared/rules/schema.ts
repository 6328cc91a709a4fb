import * as z from 'zod';
import { SEVERITIES, type Severity } from '../notify/alert.js';
import { WEEKDAYS, type Weekday } from './working-hours.js';

/**
 * The rule file format, in one zod schema: the loader validates with it and `rules schema` turns it
 * into the JSON Schema editors use. Objects are strict, so a misspelt key is an error, except in
 * `match`, whose keys are field paths.
 */

export type ScalarValue = string | number | boolean | null;

/** A reference to a named list, from the `lists:` section of any rule file. */
export interface ListRef {
  list: string;
}

/** Conditions on one field; all that are given must hold. */
export interface OperatorsSpec {
  equals?: ScalarValue | undefined;
  in?: ScalarValue[] | ListRef | undefined;
  not_in?: ScalarValue[] | ListRef | undefined;
  regex?: string | undefined;
  starts_with?: string | string[] | ListRef | undefined;
  ends_with?: string | string[] | ListRef | undefined;
  contains?: string | string[] | ListRef | undefined;
  ignore_case?: boolean | undefined;
  exists?: boolean | undefined;
  gt?: number | undefined;
  gte?: number | undefined;
  lt?: number | undefined;
  lte?: number | undefined;
  cidr_in?: string[] | ListRef | undefined;
  cidr_at_least_as_wide_as?: { ipv4?: number | undefined; ipv6?: number | undefined } | undefined;
  cidr_public?: boolean | undefined;
  cidr_valid?: boolean | undefined;
  outside_hours?: { start: string; end: string; time_zone: string; days?: Weekday[] | undefined } | undefined;
  email_domain_in?: string[] | ListRef | undefined;
  email_domain_same_as?: string | undefined;
  not?: OperatorsSpec | undefined;
}

/** A field condition: a value (equals), a list of values (in), or operators. */
export type FieldConditionSpec = ScalarValue | ScalarValue[] | OperatorsSpec;

/**
 * A match: field paths mapped to conditions, all of which must hold, with `any`, `all` and `not`, and
 * `list_empty` (holds when the named list has no values, so a rule can fall back on a default judgment
 * until the list is set).
 */
export interface MatchSpec {
  any?: MatchSpec[] | undefined;
  all?: MatchSpec[] | undefined;
  not?: MatchSpec | undefined;
  list_empty?: string | undefined;
  [fieldPath: string]: FieldConditionSpec | MatchSpec | MatchSpec[] | undefined;
}

export interface RuleTestSpec {
  name: string;
  /** Named lists as the test sees them: each replaces the pack's list of that name. */
  lists?: Record<string, ScalarValue[]> | undefined;
  /**
   * Earlier events a first-seen or distinct-count rule has seen before the test's events: they record
   * values (and count toward windows), never alert.
   */
  seen?: Record<string, unknown>[] | undefined;
  event?: Record<string, unknown> | undefined;
  events?: Record<string, unknown>[] | undefined;
  expect: {
    alert: boolean;
    count?: number | undefined;
    title?: string | undefined;
    summary?: string | undefined;
    severity?: Severity | undefined;
  };
}

/** Holds when a field's value (or its network) was not seen for the group within a period. */
export interface FirstSeenSpec {
  field: string;
  network?: { ipv4?: number | undefined; ipv6?: number | undefined } | undefined;
  within: string;
  learning?: string | undefined;
  max_values?: number | undefined;
}

/** Holds when a group's events show at least `count` distinct values of a field within one window. */
export interface DistinctCountSpec {
  field: string;
  count: number;
  window: string;
}

/**
 * Holds for an event of the rule's match that follows at least `count` events (default 1) of `after`
 * of the same group (the rule's `group_by`) by less than `within`.
 */
export interface SequenceSpec {
  after: MatchSpec;
  within: string;
  count?: number | undefined;
}

/**
 * A rule's suppression: a duration, or the duration and the fields whose values make two occurrences
 * repeats of each other (the roll-up key; default the rule's `group_by`).
 */
export type SuppressSpec = string | { for: string; key?: string[] | undefined };

/** A rule as written in a rule file. */
export interface RuleSpec {
  id: string;
  name: string;
  description?: string | undefined;
  severity: Severity;
  enabled?: boolean | undefined;
  tags?: string[] | undefined;
  match: MatchSpec;
  group_by?: string[] | undefined;
  threshold?: { count: number; window: string } | undefined;
  suppress?: SuppressSpec | undefined;
  first_seen?: FirstSeenSpec | undefined;
  distinct_count?: DistinctCountSpec | undefined;
  sequence?: SequenceSpec | undefined;
  title: string;
  summary?: string | undefined;
  runbook?: string | undefined;
  allow_mentions?: boolean | undefined;
  /** Match blocks: the rule raises no alert for an event that any of them matches. */
  exceptions?: MatchSpec[] | undefined;
  tests?: RuleTestSpec[] | undefined;
}

/** A change to a list defined in an earlier layer. */
export type ListChangeSpec = { append: ScalarValue[] } | { replace: ScalarValue[] };

/** A `lists:` entry: a new list, or a change to a list of an earlier layer. */
export type ListEntrySpec = ScalarValue[] | ListChangeSpec;

/** The rule fields an override may set. */
export const OVERRIDE_FIELDS = [
  'enabled',
  'severity',
  'suppress',
  'threshold',
  'group_by',
  'first_seen',
  'distinct_count',
  'sequence',
  'title',
  'summary',
  'runbook',
  'tags',
] as const;

/** A change to a rule of an earlier layer: only the fields given change. */
export interface RuleOverrideSpec {
  rule: string;
  enabled?: boolean | undefined;
  severity?: Severity | undefined;
  suppress?: SuppressSpec | undefined;
  threshold?: RuleSpec['threshold'];
  group_by?: string[] | undefined;
  first_seen?: FirstSeenSpec | undefined;
  distinct_count?: DistinctCountSpec | undefined;
  sequence?: SequenceSpec | undefined;
  title?: string | undefined;
  summary?: string | undefined;
  runbook?: string | undefined;
  tags?: string[] | undefined;
  /** Added to the rule's exceptions. */
  exceptions?: MatchSpec[] | undefined;
  /** Run against the rule as this layer leaves it. */
  tests?: RuleTestSpec[] | undefined;
}

/** An exception for every rule in scope: rules named, rules tagged, or every rule. */
export interface ExceptionSpec {
  name: string;
  rules?: string[] | undefined;
  tags?: string[] | undefined;
  match: MatchSpec;
}

/** A rule file. */
export interface RuleFileSpec {
  lists?: Record<string, ListEntrySpec> | undefined;
  rules?: RuleSpec[] | undefined;
  overrides?: RuleOverrideSpec[] | undefined;
  exceptions?: ExceptionSpec[] | undefined;
}

/** Rule ids: lower case, digits, `.`, `_`, `-`; they appear in fingerprints and metric dimensions. */
/**
 * The largest `threshold.count` and `distinct_count.count`: a window's counter keeps up to that many
 * event ids or values (at most 64 bytes each as stored) in one DynamoDB item of at most 400 KB.
 */
export const MAX_THRESHOLD_COUNT = 5_000;

/**
 * The most earlier events a sequence group keeps (the newest, by time then id), and so the largest
 * `sequence.count` and the most events a sequence alert carries: a burst of failures before a success
 * is named by its last ten.
 */
export const MAX_SEQUENCE_EARLIER = 10;

export const RULE_ID_PATTERN = /^[a-z0-9][a-z0-9._-]{0,127}$/;
export const LIST_NAME_PATTERN = /^[a-z][a-z0-9_]{0,63}$/;

const scalar = z
  .union([z.string(), z.number(), z.boolean(), z.null()])
  .meta({ id: 'Scalar', description: 'A string, number, boolean or null.' });

const listName = z
  .string()
  .regex(LIST_NAME_PATTERN, 'list names are lower case letters, digits and "_", starting with a letter');

const listRef = z
  .strictObject({ list: listName })
  .meta({ id: 'ListRef', description: 'A named list from the `lists:` section of any rule file.' });

const valueList = z.union([z.array(scalar).min(1), listRef]);
const textList = z.union([z.string(), z.array(z.string()).min(1), listRef]);
const stringList = z.union([z.array(z.string()).min(1), listRef]);

/** A prefix length per IP version, such as `{ipv4: 24, ipv6: 48}`. */
const prefixLengths = z.strictObject({
  ipv4: z.int().min(0).max(32).optional(),
  ipv6: z.int().min(0).max(128).optional(),
});

const operatorsShape = {
  equals: scalar
    .optional()
    .meta({ description: 'The value equals this (strings, numbers, booleans, null).' }),
  in: valueList
    .optional()
    .meta({ description: 'The value is one of these, given inline or as `{list: name}`.' }),
  not_in: valueList
    .optional()
    .meta({ description: 'Shorthand for `not: {in: ...}`: also holds when the field is missing.' }),
  regex: z.string().optional().meta({
    description:
      'An RE2 regex (linear-time: no lookaround, no backreferences) that must match somewhere in the text; anchor it with ^ and $.',
  }),
  starts_with: textList.optional().meta({ description: 'The text starts with this, or with one of these.' }),
  ends_with: textList.optional().meta({ description: 'The text ends with this, or with one of these.' }),
  contains: textList.optional().meta({ description: 'The text contains this, or one of these.' }),
  ignore_case: z.boolean().optional().meta({
    description: 'Compare text without regard to case (equals, in, regex, starts/ends_with, contains).',
  }),
  exists: z
    .boolean()
    .optional()
    .meta({ description: 'The field is present and not null (true) or absent (false).' }),
  gt: z.number().optional().meta({ description: 'The value is a number greater than this.' }),
  gte: z.number().optional().meta({ description: 'The value is a number greater than or equal to this.' }),
  lt: z.number().optional().meta({ description: 'The value is a number less than this.' }),
  lte: z.number().optional().meta({ description: 'The value is a number less than or equal to this.' }),
  cidr_in: stringList.optional().meta({
    description:
      'The IP address or CIDR block lies entirely inside one of these ranges. A bare IP is a /32 or /128.',
  }),
  cidr_at_least_as_wide_as: prefixLengths.optional().meta({
    description:
      'The CIDR block is at least as wide as /N (its prefix length is N or less), per IP version: {ipv4: 16, ipv6: 48} catches 0.0.0.0/0, ::/0 and 10.0.0.0/8.',
  }),
  cidr_public: z.boolean().optional().meta({
    description:
      'The IP range holds publicly routable addresses (true), or only private, loopback, link-local, documentation or other special-purpose ones (false).',
  }),
  cidr_valid: z.boolean().optional().meta({
    description:
      'The value reads as an IP address or CIDR block (true), or is a value that does not, such as 0.0.0.0 /0 or [::]/0 (false). A missing, null, empty or blank field holds neither; the value is trimmed first.',
  }),
  outside_hours: z
    .strictObject({
      start: z.string().meta({ description: 'Start of working hours, HH:MM local time.' }),
      end: z
        .string()
        .meta({ description: 'End of working hours, HH:MM local time (exclusive; 24:00 allowed).' }),
      time_zone: z.string().meta({ description: 'IANA time zone, such as Europe/Paris or UTC.' }),
      days: z
        .array(z.enum(WEEKDAYS))
        .min(1)
        .optional()
        .meta({ description: 'Working days; Monday to Friday when absent.' }),
    })
    .optional()
    .meta({
      description: 'The time (an ISO-8601 field such as created) falls outside working hours or days.',
    }),
  email_domain_in: stringList.optional().meta({
    description: 'The domain after the last @ of the value is one of these (case-insensitive).',
  }),
  email_domain_same_as: z.string().optional().meta({
    description: 'The domain after the last @ of the value equals that of the field at this path.',
  }),
  get not(): z.ZodOptional<z.ZodType<OperatorsSpec>> {
    return operators
      .optional()
      .meta({ description: 'None of these conditions holds (all must fail together).' });
  },
};

const operators: z.ZodType<OperatorsSpec> = z
  .strictObject(operatorsShape)
  .meta({ id: 'Operators', description: 'Conditions on one field; all that are given must hold.' });

const fieldCondition: z.ZodType<FieldConditionSpec> = z.union([scalar, z.array(scalar), operators]).meta({
  id: 'FieldCondition',
  description: 'A value (equals), a list of values (any of them), or an object of operators.',
});

const matchShape = {
  get any(): z.ZodOptional<z.ZodArray<z.ZodType<MatchSpec>>> {
    return z.array(match).min(1).optional().meta({ description: 'At least one of these matches holds.' });
  },
  get all(): z.ZodOptional<z.ZodArray<z.ZodType<MatchSpec>>> {
    return z.array(match).min(1).optional().meta({ description: 'Every one of these matches holds.' });
  },
  get not(): z.ZodOptional<z.ZodType<MatchSpec>> {
    return match.optional().meta({ description: 'This match does not hold.' });
  },
  list_empty: listName.optional().meta({
    description:
      'Holds when the named list has no values: a judgment used until the list is set (under not: once it is).',
  }),
};

const match: z.ZodType<MatchSpec> = z.object(matchShape).catchall(fieldCondition).meta({
  id: 'Match',
  description:
    'Field paths (username, currentValue.number, diffs[].type) mapped to conditions, all of which must hold; combine with any, all and not.',
}) as z.ZodType<MatchSpec>;

const severity = z.enum(SEVERITIES).meta({ description: 'info, low, medium, high or critical.' });

const ruleTestShape = {
  name: z.string().min(1),
  lists: z.record(listName, z.array(scalar)).optional().meta({
    description:
      "Named lists as this test sees them, each replacing the pack's list of that name: a test of the rule once a list is set (or emptied).",
  }),
  seen: z.array(z.record(z.string(), z.unknown())).min(1).optional().meta({
    description:
      'Events seen before the test, in order, for first-seen, distinct-count and sequence rules: they record values (and count toward windows, or stand as earlier steps) and never alert (each needs created).',
  }),
  event: z.record(z.string(), z.unknown()).optional().meta({ description: 'One event to evaluate.' }),
  events: z
    .array(z.record(z.string(), z.unknown()))
    .min(1)
    .optional()
    .meta({ description: 'Events evaluated in order, for threshold, distinct-count and suppression rules.' }),
  expect: z.strictObject({
    alert: z.boolean().meta({ description: 'Whether the rule raises at least one alert.' }),
    count: z.int().min(0).optional().meta({ description: 'How many alerts the rule raises.' }),
    title: z.string().optional().meta({ description: 'The title of the first alert.' }),
    summary: z.string().optional().meta({ description: 'The summary of the first alert.' }),
    severity: severity.optional(),
  }),
};

const ruleTest: z.ZodType<RuleTestSpec> = z
  .strictObject(ruleTestShape)
  .meta({ id: 'RuleTest', description: 'An inline test: events in, the expected outcome.' });

const ruleId = z
  .string()
  .regex(RULE_ID_PATTERN, 'rule ids are lower case letters, digits, ".", "_" and "-" (at most 128)');

const exceptionMatches = z.array(match).min(1).meta({
  description: 'Match blocks: the rule raises no alert for an event that any of them matches.',
});

const ruleShape = {
  id: ruleId.meta({ description: 'Unique across all rule files and layers.' }),
  name: z.string().min(1),
  description: z.string().optional(),
  severity,
  enabled: z
    .boolean()
    .optional()
    .meta({ description: 'false keeps the rule (and runs its tests) but never alerts.' }),
  tags: z.array(z.string()).optional(),
  match,
  group_by: z.array(z.string()).min(1).optional().meta({
    description:
      'Field paths whose values form the group key (thresholds, distinct counts, suppression, threading).',
  }),
  threshold: z
    .strictObject({
      count: z
        .int()
        .min(1)
        .max(
          MAX_THRESHOLD_COUNT,
          `at most ${MAX_THRESHOLD_COUNT}: a group's window keeps the ids it counts in one state item, which DynamoDB bounds at 400 KB`,
        ),
      window: z.string().meta({ description: 'A duration such as 10m, 1h or 1d.' }),
    })
    .optional()
    .meta({
      description: 'Alert when count matching events of one group fall in one window (windows tumble).',
    }),
  suppress: z
    .union([
      z.string(),
      z.strictObject({
        for: z.string().meta({ description: 'A duration such as 1h or 1d.' }),
        key: z.array(z.string()).min(1).optional().meta({
          description:
            "The roll-up key: field paths whose values make two occurrences repeats of each other (default group_by), such as [username] to roll up one person's repeats across projects.",
        }),
      }),
    ])
    .optional()
    .meta({
      description:
        'A duration, or {for, key}: one alert per group (or roll-up key) per period, the first goes out; the next alert says how many were held back and between when.',
    }),
  first_seen: z
    .strictObject({
      field: z.string().meta({
        description: 'The field path whose value must be new for the group, such as remoteAddress.',
      }),
      network: prefixLengths.optional().meta({
        description:
          'Compare the network of the address instead of the address: {ipv4: 24, ipv6: 48} compares /24 and /48 networks. A value that is not an IP address never matches.',
      }),
      within: z.string().meta({
        description: 'A duration such as 30d: a value not seen for the group for this long is new again.',
      }),
      learning: z.string().optional().meta({
        description:
          'A duration (default 7d; 0s for none): after the rule is first evaluated, it records values for this long before it alerts.',
      }),
      max_values: z.int().min(1).max(1000).optional().meta({
        description: 'Most values kept per group (default 100); the least recently seen are dropped first.',
      }),
    })
    .optional()
    .meta({
      id: 'FirstSeen',
      description:
        "Alert when the field's value was not seen for the group (group_by) within a period, such as an API key used from a new address. Not with threshold or suppress.",
    }),
  distinct_count: z
    .strictObject({
      field: z.string().meta({
        description: 'The field path whose distinct values are counted per group, such as username.',
      }),
      count: z
        .int()
        .min(1)
        .max(
          MAX_THRESHOLD_COUNT,
          `at most ${MAX_THRESHOLD_COUNT}: a group's window keeps the values it counts in one state item, which DynamoDB bounds at 400 KB`,
        )
        .meta({ description: 'How many distinct values of one group in one window alert.' }),
      window: z.string().meta({ description: 'A duration such as 10m, 1h or 1d.' }),
    })
    .optional()
    .meta({
      id: 'DistinctCount',
      description:
        "Alert when a group's matching events show count distinct values of the field in one window (windows tumble), such as one address trying many user names. Not with threshold or first_seen.",
    }),
  sequence: z
    .strictObject({
      after: match,
      within: z.string().meta({
        description: 'How long after an earlier event a matching event of its group alerts, such as 10m.',
      }),
      count: z
        .int()
        .min(1)
        .max(
          MAX_SEQUENCE_EARLIER,
          `at most ${MAX_SEQUENCE_EARLIER}: a group keeps its ${MAX_SEQUENCE_EARLIER} newest earlier events`,
        )
        .optional()
        .meta({
          description: `How many events of after (default 1, at most ${MAX_SEQUENCE_EARLIER}) must come before a matching event, within the window, for it to alert: five failed logins, then a success.`,
        }),
    })
    .optional()
    .meta({
      id: 'Sequence',
      description:
        "Alert for an event of the rule's match that follows an event of after of the same group (group_by) within the window, such as an API key created, then its access list opened. Not with threshold, suppress, first_seen or distinct_count.",
    }),
  title: z
    .string()
    .min(1)
    .meta({ description: 'Template: {{field.path}}, {{path | other.path | "default"}}.' }),
  summary: z.string().optional().meta({ description: 'Template, as title.' }),
  runbook: z.string().optional().meta({ description: 'What to do: a URL or a few sentences.' }),
  allow_mentions: z
    .boolean()
    .optional()
    .meta({ description: 'Let the templates emit Slack mentions such as <!channel>. Off by default.' }),
  exceptions: exceptionMatches.optional(),
  tests: z.array(ruleTest).optional(),
};

const rule: z.ZodType<RuleSpec> = z.strictObject(ruleShape).meta({ id: 'Rule' });

const overrideShape = {
  rule: ruleId.meta({ description: 'The id of a rule defined in an earlier layer.' }),
  enabled: ruleShape.enabled,
  severity: severity.optional(),
  suppress: ruleShape.suppress,
  threshold: ruleShape.threshold,
  group_by: ruleShape.group_by,
  first_seen: ruleShape.first_seen,
  distinct_count: ruleShape.distinct_count,
  sequence: ruleShape.sequence,
  title: ruleShape.title.optional(),
  summary: ruleShape.summary,
  runbook: ruleShape.runbook,
  tags: ruleShape.tags.meta({ description: "Replaces the rule's tags." }),
  exceptions: exceptionMatches
    .optional()
    .meta({ description: "Added to the rule's exceptions: no alert for an event any of them matches." }),
  tests: z
    .array(ruleTest)
    .optional()
    .meta({ description: 'Tests run against the rule as this layer leaves it.' }),
};

const override: z.ZodType<RuleOverrideSpec> = z.strictObject(overrideShape).meta({
  id: 'Override',
  description: 'Changes a rule of an earlier layer: only the fields given change.',
});

const exceptionShape = {
  name: z.string().min(1).meta({ description: 'What the exception is for, shown in warnings.' }),
  rules: z
    .array(ruleId)
    .min(1)
    .optional()
    .meta({ description: 'The rules it applies to, by id; with tags, rules named or tagged.' }),
  tags: z.array(z.string()).min(1).optional().meta({
    description: 'The rules it applies to, by tag. Every rule when neither rules nor tags is given.',
  }),
  match,
};

const exception: z.ZodType<ExceptionSpec> = z.strictObject(exceptionShape).meta({
  id: 'Exception',
  description: 'No rule in scope alerts on an event that match matches.',
});

const listsShape = z
  .record(listName, z.array(scalar))
  .meta({ description: 'Named lists, usable from any rule file as {list: name}.' });

const listEntry: z.ZodType<ListEntrySpec> = z
  .union([
    z.array(scalar),
    z.strictObject({
      append: z.array(scalar).min(1).meta({ description: 'Values added to a list of an earlier layer.' }),
    }),
    z.strictObject({
      replace: z.array(scalar).meta({ description: 'Values that replace a list of an earlier layer.' }),
    }),
  ])
  .meta({
    id: 'ListEntry',
    description:
      'A new list, or {append: [...]} / {replace: [...]} to change a list defined in an earlier layer.',
  });

/** The schema of one rule file. */
export const ruleFileSchema: z.ZodType<RuleFileSpec> = z
  .strictObject({
    lists: z
      .record(listName, listEntry)
      .optional()
      .meta({ description: 'Named lists, usable from any rule file as {list: name}.' }),
    rules: z.array(rule).optional(),
    overrides: z
      .array(override)
      .optional()
      .meta({ description: 'Changes to rules of earlier layers (such as the built-in pack).' }),
    exceptions: z
      .array(exception)
      .optional()
      .meta({ description: 'Events that rules of this and earlier layers never alert on.' }),
  })
  .meta({
    title: 'atlas-audit-alerts rule file',
    description:
      'Named lists, rules, overrides and exceptions for atlas-audit-alerts. Rule paths are layers: a later layer tunes an earlier one.',
  });

/** Identifies a serialized rule pack; `version` changes when the format does. */
export const SERIALIZED_PACK_FORMAT = 'atlas-audit-alerts.rule-pack';

/** An exception of a serialized pack: its scope is an index into the pack's `exceptionScopes`. */
export interface SerializedExceptionSpec {
  name: string;
  scope: number;
  match: MatchSpec;
}

export interface SerializedRulePackSpec {
  format: typeof SERIALIZED_PACK_FORMAT;
  version: 3;
  /** The version of atlas-audit-alerts whose built-in pack this is built on. */
  packVersion?: string | undefined;
  lists: Record<string, ScalarValue[]>;
  /** The rules, each with its own exceptions (its file's and its overrides'), not the layers' shared ones. */
  rules: RuleSpec[];
  /** For each rule id, the layers that defined or changed the rule, in order. */
  ruleLayers: Record<string, string[]>;
  /** The layers' `exceptions:`, in order, each written once whatever the number of rules it scopes. */
  exceptions: SerializedExceptionSpec[];
  /** The rule ids each scope holds; the exceptions written with the same scope in a layer share one. */
  exceptionScopes: string[][];
}

/** The schema of a serialized rule pack (what the Lambda bundle carries). */
export const serializedRulePackSchema: z.ZodType<SerializedRulePackSpec> = z.strictObject({
  format: z.literal(SERIALIZED_PACK_FORMAT),
  version: z.literal(3),
  packVersion: z.string().min(1).max(64).optional(),
  lists: listsShape,
  rules: z.array(rule),
  ruleLayers: z.record(ruleId, z.array(z.string().min(1).max(256)).max(64)),
  exceptions: z.array(z.strictObject({ name: z.string().min(1), scope: z.int().min(0), match })),
  exceptionScopes: z.array(z.array(ruleId).min(1)),
});

/** Every key the format knows, for "did you mean" hints on misspelt keys. */
export const KNOWN_KEYS: readonly string[] = [
  ...new Set([
    'lists',
    'rules',
    'overrides',
    'exceptions',
    'append',
    'replace',
    'list',
    'ipv4',
    'ipv6',
    'start',
    'end',
    'time_zone',
    'days',
    'count',
    'window',
    'field',
    'network',
    'within',
    'learning',
    'max_values',
    'alert',
    ...Object.keys(ruleShape),
    ...Object.keys(overrideShape),
    ...Object.keys(exceptionShape),
    ...Object.keys(ruleTestShape),
    ...Object.keys(operatorsShape),
    ...Object.keys(matchShape),
  ]),
];
