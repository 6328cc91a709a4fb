/**
 * Rule regexes run on text that anyone who can act in Atlas controls (user names, database names), so
 * a pattern that backtracks exponentially would let them stall the poller. This module rejects the
 * classic shapes of catastrophic backtracking, with a check that is cheap and explainable:
 *
 * - a repeating quantifier (`*`, `+`, `{n,}`, `{n,m}` with m > 1) applied to a group that itself holds a
 *   repeating quantifier: `(a+)+`, `(\w*x?)*`, `(.*,){3,}`;
 * - backreferences (`\1`, `\k<name>`), which make matching non-regular.
 *
 * Overlapping alternatives under one quantifier (`(a|a)*`) are not detected; to bound what is left,
 * the engine tests a regex against at most the first `MAX_REGEX_INPUT` characters of a value.
 */

/** The engine tests a regex against at most this many characters of a value. */
export const MAX_REGEX_INPUT = 4096;

interface GroupFrame {
  repeats: boolean;
}

/**
 * Compiles a rule regex (`u` flag, plus `i` when `ignoreCase`) and checks it is safe for untrusted
 * input, or explains why it cannot be used.
 *
 * @example
 * ```ts
 * compileSafeRegex('^svc-[a-z]+$', false); // { ok: true, regex: /^svc-[a-z]+$/u }
 * compileSafeRegex('(a+)+$', false); // { ok: false, unsafe: true, message: '...' }
 * ```
 */
export function compileSafeRegex(
  pattern: string,
  ignoreCase: boolean,
): { ok: true; regex: RegExp } | { ok: false; unsafe: boolean; message: string } {
  let regex: RegExp;
  try {
    regex = new RegExp(pattern, ignoreCase ? 'iu' : 'u');
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return { ok: false, unsafe: false, message: `invalid regex /${pattern}/: ${reason}` };
  }
  const unsafe = findUnsafeConstruct(pattern);
  if (unsafe !== undefined) {
    return {
      ok: false,
      unsafe: true,
      message: `regex /${pattern}/ is unsafe for untrusted input: ${unsafe}`,
    };
  }
  return { ok: true, regex };
}

/** The first construct that makes `pattern` unsafe, or `undefined`. The pattern is valid syntax. */
function findUnsafeConstruct(pattern: string): string | undefined {
  const stack: GroupFrame[] = [{ repeats: false }];
  let index = 0;
  while (index < pattern.length) {
    const char = pattern[index];
    const frame = stack[stack.length - 1] as GroupFrame;
    if (char === '\\') {
      const next = pattern[index + 1] ?? '';
      if (/[1-9]/.test(next) || (next === 'k' && pattern[index + 2] === '<')) {
        return `it uses a backreference (\\${next}...); match the text explicitly instead`;
      }
      index = skipEscape(pattern, index);
      index = applyQuantifier(pattern, index, frame);
      continue;
    }
    if (char === '[') {
      index = skipClass(pattern, index);
      index = applyQuantifier(pattern, index, frame);
      continue;
    }
    if (char === '(') {
      stack.push({ repeats: false });
      index += 1;
      continue;
    }
    if (char === ')') {
      const group = stack.pop() as GroupFrame;
      const parent = stack[stack.length - 1] as GroupFrame;
      const quantifier = readQuantifier(pattern, index + 1);
      if (quantifier?.repeats && group.repeats) {
        return `a repeated group contains a repeated element (${pattern.slice(0, quantifier.end)}...); nested quantifiers can backtrack exponentially`;
      }
      parent.repeats ||= group.repeats || (quantifier?.repeats ?? false);
      index = quantifier?.end ?? index + 1;
      continue;
    }
    index = applyQuantifier(pattern, index + 1, frame);
  }
  return undefined;
}

/** After an atom ending before `index`, consumes a quantifier if there is one and records it. */
function applyQuantifier(pattern: string, index: number, frame: GroupFrame): number {
  const quantifier = readQuantifier(pattern, index);
  if (quantifier === undefined) return index;
  if (quantifier.repeats) frame.repeats = true;
  return quantifier.end;
}

function readQuantifier(pattern: string, index: number): { repeats: boolean; end: number } | undefined {
  const char = pattern[index];
  let end = index + 1;
  let repeats: boolean;
  if (char === '*' || char === '+') repeats = true;
  else if (char === '?') repeats = false;
  else if (char === '{') {
    const match = /^\{(\d+)(,(\d*))?\}/.exec(pattern.slice(index));
    if (match === null) return undefined;
    const max =
      match[2] === undefined
        ? Number(match[1])
        : match[3] === ''
          ? Number.POSITIVE_INFINITY
          : Number(match[3]);
    repeats = max > 1;
    end = index + match[0].length;
  } else return undefined;
  // A lazy quantifier (`+?`) backtracks the same way.
  if (pattern[end] === '?') end += 1;
  return { repeats, end };
}

function skipEscape(pattern: string, index: number): number {
  const next = pattern[index + 1];
  if ((next === 'u' || next === 'p' || next === 'P') && pattern[index + 2] === '{') {
    const close = pattern.indexOf('}', index + 3);
    return close === -1 ? pattern.length : close + 1;
  }
  return index + 2;
}

function skipClass(pattern: string, index: number): number {
  let cursor = index + 1;
  while (cursor < pattern.length && pattern[cursor] !== ']') {
    cursor = pattern[cursor] === '\\' ? skipEscape(pattern, cursor) : cursor + 1;
  }
  return cursor + 1;
}
