/**
 * What `npm run mutate` mutates, area by area: the modules that keep the project's promises (window
 * and seen-id maths, rule conditions, digest parsing, escaping and size limits), each with the unit
 * test files that state their behaviour. Only those test files run against a mutant, so an area takes
 * minutes, not the hours the whole suite would.
 */

/** One area of `shared/` and how to mutation-test it. */
export interface MutationArea {
  /** Source files mutated, relative to the repository root. */
  mutate: readonly string[];
  /** Test files run against the mutants (globs allowed). */
  testFiles: readonly string[];
  /** Whether the tests need DynamoDB Local (and so the main vitest configuration with its global setup). */
  dynamoDbLocal: boolean;
}

/** The areas by the name given on the command line (`npm run mutate -- poll`). */
export const mutationAreas = {
  poll: {
    mutate: [
      'shared/poll/window-math.ts',
      'shared/poll/recent-event-ids.ts',
      'shared/poll/event-order.ts',
      'shared/poll/tick-budget.ts',
    ],
    testFiles: [
      'test/poll/window-math*.test.ts',
      'test/poll/recent-event-ids*.test.ts',
      'test/poll/event-order*.test.ts',
      'test/poll/tick-budget*.test.ts',
    ],
    dynamoDbLocal: false,
  },
  state: {
    mutate: [
      'shared/state/seen-id-set.ts',
      'shared/state/dynamodb-chunks.ts',
      'shared/state/dynamodb-keys.ts',
      'shared/state/expiry.ts',
    ],
    testFiles: [
      'test/state/seen-id-set*.test.ts',
      'test/state/dynamodb-chunks*.test.ts',
      'test/state/dynamodb-keys*.test.ts',
      'test/state/expiry*.test.ts',
    ],
    dynamoDbLocal: true,
  },
  rules: {
    mutate: [
      'shared/rules/conditions.ts',
      'shared/rules/field-path.ts',
      'shared/rules/template.ts',
      'shared/rules/ip-range.ts',
      'shared/rules/distinct-count.ts',
      'shared/rules/sequence.ts',
    ],
    testFiles: [
      'test/rules/conditions*.test.ts',
      'test/rules/field-path*.test.ts',
      'test/rules/template*.test.ts',
      'test/rules/ip-range*.test.ts',
      'test/rules/distinct-count*.test.ts',
      'test/rules/*sequence*.test.ts',
    ],
    dynamoDbLocal: false,
  },
  atlas: {
    mutate: [
      'shared/atlas/digest-challenge.ts',
      'shared/atlas/digest-response.ts',
      'shared/atlas/retry-policy.ts',
      'shared/atlas/response-shapes.ts',
    ],
    testFiles: [
      'test/atlas/digest-challenge*.test.ts',
      'test/atlas/digest-response*.test.ts',
      'test/atlas/retry-policy*.test.ts',
      'test/atlas/response-shapes*.test.ts',
    ],
    dynamoDbLocal: false,
  },
  notify: {
    mutate: [
      'shared/notify/slack-escape.ts',
      'shared/notify/subject.ts',
      'shared/notify/json-truncation.ts',
      'shared/notify/validate-sns-entry.ts',
    ],
    testFiles: [
      'test/notify/slack-escape*.test.ts',
      'test/notify/subject*.test.ts',
      'test/notify/json-truncation*.test.ts',
      'test/notify/validate-sns-entry*.test.ts',
    ],
    dynamoDbLocal: false,
  },
} as const satisfies Record<string, MutationArea>;

export type MutationAreaName = keyof typeof mutationAreas;
