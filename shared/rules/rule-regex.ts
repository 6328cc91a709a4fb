import { RE2JS, RE2JSSyntaxException } from 're2js';
import type { RuleProblemCode } from './errors.js';

/**
 * Rule regexes run on text that anyone who can act in Atlas controls (user names, database names,
 * collection names), so they run on RE2 (`re2js`, a pure JavaScript port): matching takes time
 * linear in the length of the text whatever the pattern, and no pattern can stall the poller. The
 * price is RE2 syntax: no lookaround and no backreferences, which need backtracking. A pattern that
 * JavaScript accepts but RE2 cannot express is reported as such, with the way to write it instead.
 *
 * Semantics differ from a JavaScript `u` regex in small ways, listed in the README: `\s` is ASCII
 * whitespace, `.` matches `\r` and every character but `\n`, code points are written `\x{00E9}`.
 */

/** Whether a compiled rule regex matches somewhere in a text. */
export type TextTest = (text: string) => boolean;

/** A rule regex compiled, or why it cannot be. */
export type RuleRegex =
  | { ok: true; test: TextTest }
  | { ok: false; code: Extract<RuleProblemCode, 'INVALID_REGEX' | 'UNSUPPORTED_REGEX'>; message: string };

const RE2_SYNTAX = 'https://github.com/google/re2/wiki/Syntax';

/**
 * Compiles a rule regex on RE2, case-insensitive when `ignoreCase`. The test it returns is unanchored
 * (like `RegExp.prototype.test`) and takes linear time. Never throws: a pattern that does not compile
 * comes back as `INVALID_REGEX` (not a regex at all) or `UNSUPPORTED_REGEX` (a JavaScript construct
 * RE2 cannot express, such as lookahead or a backreference), with a message that says what to write.
 *
 * @example
 * ```ts
 * const compiled = compileRuleRegex('^svc-[a-z]+$', false);
 * if (compiled.ok) compiled.test('svc-deploy'); // true
 * compileRuleRegex('^(?!admin)', false); // { ok: false, code: 'UNSUPPORTED_REGEX', message: '...' }
 * ```
 */
export function compileRuleRegex(pattern: string, ignoreCase: boolean): RuleRegex {
  let compiled: RE2JS;
  try {
    compiled = RE2JS.compile(pattern, ignoreCase ? RE2JS.CASE_INSENSITIVE : 0);
  } catch (error) {
    return explainRejection(pattern, error);
  }
  return { ok: true, test: (text) => compiled.test(text) };
}

function explainRejection(pattern: string, error: unknown): Extract<RuleRegex, { ok: false }> {
  const reason =
    error instanceof RE2JSSyntaxException
      ? error.getDescription() + (error.getPattern() ? ` \`${error.getPattern()}\`` : '')
      : error instanceof Error
        ? error.message
        : String(error);
  const shown = `regex /${pattern}/`;
  const unsupported = (what: string, instead: string): Extract<RuleRegex, { ok: false }> => ({
    ok: false,
    code: 'UNSUPPORTED_REGEX',
    message: `${shown} uses ${what}, which rule regexes cannot: they run on a linear-time engine (RE2 syntax, ${RE2_SYNTAX}) so that event text can never stall the poller; ${instead}`,
  });
  const construct = unsupportedConstruct(pattern);
  if (construct !== undefined) return unsupported(construct.what, construct.instead);
  if (!acceptedByJavaScript(pattern)) {
    return { ok: false, code: 'INVALID_REGEX', message: `invalid ${shown}: ${reason}` };
  }
  if (reason.startsWith('invalid repeat count')) {
    return unsupported(
      `a repeat count over 1000 (${reason})`,
      'use + or *, or a bound of at most 1000, such as {1,1000}',
    );
  }
  return unsupported(
    `JavaScript-only syntax (${reason})`,
    'write it in RE2 syntax, such as \\x{00E9} for a code point or (?s:.) for any character',
  );
}

/** The first construct of `pattern` that RE2 cannot express, with what to write instead. */
function unsupportedConstruct(pattern: string): { what: string; instead: string } | undefined {
  let inClass = false;
  for (let index = 0; index < pattern.length; index++) {
    const char = pattern[index];
    if (char === '\\') {
      const next = pattern[index + 1] ?? '';
      if (/[1-9]/.test(next) && !inClass) {
        return {
          what: `a backreference (\\${next})`,
          instead: 'spell the repeated text out, or list the accepted values with in: or |',
        };
      }
      if (next === 'k' && pattern[index + 2] === '<') {
        return {
          what: 'a named backreference (\\k<...>)',
          instead: 'spell the repeated text out, or list the accepted values with in: or |',
        };
      }
      if (next === 'u') {
        return {
          what: 'a \\u escape',
          instead: 'write the code point as \\x{...}, such as \\x{00E9} for é',
        };
      }
      if (next === 'c') {
        return { what: 'a \\c control escape', instead: 'write the character as \\x{...}, such as \\x{01}' };
      }
      index += 1;
      continue;
    }
    if (inClass) {
      if (char === ']') inClass = false;
      continue;
    }
    if (char === '[') {
      if (pattern.startsWith('[^]', index)) {
        return {
          what: '[^] (any character)',
          instead: 'write (?s:.) for any character, line breaks included',
        };
      }
      inClass = true;
      // A `]` right after `[` or `[^` is a literal in RE2.
      if (pattern[index + 1] === '^') index += 1;
      if (pattern[index + 1] === ']') index += 1;
      continue;
    }
    if (char !== '(' || pattern[index + 1] !== '?') continue;
    const group = pattern.slice(index, index + 4);
    if (group.startsWith('(?=') || group.startsWith('(?!')) {
      return {
        what: `a lookahead (${group.slice(0, 3)}...)`,
        instead:
          group[2] === '!'
            ? 'put what must not match in a not: condition on the same field, such as not: { regex: ... }'
            : 'add a second condition on the same field under all:, each with its own regex',
      };
    }
    if (group === '(?<=' || group === '(?<!') {
      return {
        what: `a lookbehind (${group}...)`,
        instead:
          group[3] === '!'
            ? 'put what must not match in a not: condition on the same field, such as not: { regex: ... }'
            : 'add a second condition on the same field under all:, each with its own regex',
      };
    }
  }
  return undefined;
}

function acceptedByJavaScript(pattern: string): boolean {
  try {
    // Only compiled to tell syntax apart, never run on event text.
    new RegExp(pattern, 'u');
    return true;
  } catch {
    return false;
  }
}
