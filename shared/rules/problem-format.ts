import type { RuleProblem } from './errors.js';

/**
 * Writes a document path the way people read it: `rules[3].match.opType`.
 *
 * @example
 * ```ts
 * formatDocumentPath(['rules', 3, 'match']); // 'rules[3].match'
 * ```
 */
export function formatDocumentPath(path: readonly (string | number)[]): string {
  let text = '';
  for (const segment of path) {
    if (typeof segment === 'number') text += `[${segment}]`;
    else text += text === '' ? segment : `.${segment}`;
  }
  return text;
}

/**
 * Formats problems as `falco -V` does: `file:line:column`, the message, then the offending line with a
 * caret under the spot. Problems without a position (a serialized pack) name their document path.
 *
 * @example
 * ```ts
 * process.stderr.write(`${formatRuleProblems(error.problems)}\n`);
 * ```
 */
export function formatRuleProblems(problems: readonly RuleProblem[]): string {
  return problems
    .map((problem) => formatRuleProblem(problem, isWarning(problem) ? 'warning: ' : ''))
    .join('\n');
}

/**
 * Formats warnings as {@link formatRuleProblems} formats problems, each marked `warning:`.
 *
 * @example
 * ```ts
 * process.stderr.write(`${formatRuleWarnings(warnings)}\n`);
 * ```
 */
export function formatRuleWarnings(warnings: readonly RuleProblem[]): string {
  return warnings.map((warning) => formatRuleProblem(warning, 'warning: ')).join('\n');
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is this pattern's job.
const CONTROL_CHARACTERS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

function formatRuleProblem(problem: RuleProblem, label: string): string {
  const where =
    problem.line === undefined
      ? `${problem.file}${problem.path.length > 0 ? ` ${formatDocumentPath(problem.path)}` : ''}`
      : `${problem.file}:${problem.line}:${problem.column ?? 1}`;
  const head = `${where}: ${label}${problem.message} [${problem.code}]`;
  const hint =
    problem.hint === undefined ? '' : `\n = hint: ${problem.hint.replace(CONTROL_CHARACTERS, '?')}`;
  if (problem.line === undefined || problem.sourceLine === undefined) return `${head}${hint}`;
  const gutter = String(problem.line);
  const pad = ' '.repeat(gutter.length);
  const column = Math.max(1, problem.column ?? 1);
  const caretLength = Math.max(1, Math.min(problem.length ?? 1, problem.sourceLine.length - column + 1));
  const caret = `${' '.repeat(column - 1)}${'^'.repeat(caretLength)}`;
  // A control character of the file would drive the terminal (colours, cursor moves): show it as "?",
  // one column as it was, so the caret still points where it should.
  const line = problem.sourceLine.replace(CONTROL_CHARACTERS, '?');
  return `${head}\n ${gutter} | ${line}\n ${pad} | ${caret}${hint.replace(' = ', ` ${pad} = `)}`;
}

/** A warning of a rule layer (it carries `severity: 'warning'`), printed among problems. */
function isWarning(problem: RuleProblem): boolean {
  return (problem as { severity?: unknown }).severity === 'warning';
}
