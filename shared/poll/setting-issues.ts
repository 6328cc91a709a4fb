import type * as z from 'zod';
import { describeSchemaIssues, type SchemaProblem } from '../rules/schema-issues.js';

/** How zod's own English messages begin; every other message is the schema's own. */
const ZOD_DEFAULT_MESSAGE = /^(Invalid input|Invalid option|Too small|Too big)\b/;

/**
 * Puts a settings issue (deploy configuration, local run configuration) in words a person acts on.
 * The schemas' own messages already say what a setting must be and are kept; zod's defaults ("Too
 * small: expected number to be >=60") get the rule loader's words ("must be at least 60", "expected a
 * list, found the string …", "missing required key …"). Unknown keys are the caller's to word, with
 * a pointer to its own example file.
 *
 * @example
 * ```ts
 * describeSettingIssue(result.error.issues[0], input);
 * // [{ path: ['timing', 'maxWindowSeconds'], message: 'must be at least 60' }]
 * ```
 */
export function describeSettingIssue(issue: z.core.$ZodIssue, input: unknown): SchemaProblem[] {
  if (!ZOD_DEFAULT_MESSAGE.test(issue.message)) {
    return [
      {
        path: issue.path.map((key) => (typeof key === 'number' ? key : String(key))),
        message: issue.message,
      },
    ];
  }
  return describeSchemaIssues([issue], input).map((problem) => withUnit(problem));
}

/** Units of settings named for them (`overlapSeconds`), for bounds that would otherwise be bare numbers. */
const UNIT_SUFFIXES: Record<string, string> = {
  Seconds: 'second',
  Minutes: 'minute',
  Days: 'day',
  MiB: 'MiB',
};

function withUnit(problem: SchemaProblem): SchemaProblem {
  const bound = /^must be at (?:least|most) (\d+)$/.exec(problem.message);
  const name = problem.path[problem.path.length - 1];
  if (bound === null || typeof name !== 'string') return problem;
  const suffix = Object.keys(UNIT_SUFFIXES).find((ending) => name.endsWith(ending));
  if (suffix === undefined) return problem;
  const unit = UNIT_SUFFIXES[suffix] as string;
  const plural = unit !== 'MiB' && bound[1] !== '1' ? 's' : '';
  return { ...problem, message: `${problem.message} ${unit}${plural}` };
}
