import { type Document, isPair, isScalar, type Node, visit, type YAMLError } from 'yaml';
import { formatRuleProblems } from './problem-format.js';
import { yamlErrorMessage } from './yaml-message.js';

/** A YAML mistake explained: what is wrong and what to write instead, at the character it is at. */
export interface YamlSyntaxProblem {
  /** One line: what is wrong, then, after a colon, what to do. */
  readonly message: string;
  /** The character offset the caret points at. */
  readonly offset: number;
  /** How many characters to underline. */
  readonly length: number;
}

/** Options of {@link explainYamlSyntax}. */
export interface ExplainYamlSyntaxOptions {
  /** The file's text. */
  readonly text: string;
  /** The document parsed from it (with `uniqueKeys`); its first error is explained. */
  readonly document: Document;
  /** What the file is, for advice: `rule file`, `configuration file`. */
  readonly kind: string;
  /** What to do about a second document (`---`) in the file: `split it into two files`. */
  readonly oneDocument?: string | undefined;
}

/**
 * The first syntax error of a parsed YAML file, in the reader's terms and at the character to fix:
 * the line indented off its neighbours rather than where the parser gave up, the quote or bracket
 * that is never closed rather than the end of the file, the `: ` inside a value that YAML reads as a
 * second key, and a merge key (`<<:`), which this project does not support. `undefined` when the
 * document has no error and no merge key.
 *
 * @example
 * ```ts
 * const problem = explainYamlSyntax({ text, document: parseDocument(text, { uniqueKeys: true }), kind: 'rule file' });
 * // { message: 'this line is indented 3 spaces, ...', offset: 29, length: 8 }
 * ```
 */
export function explainYamlSyntax(options: ExplainYamlSyntaxOptions): YamlSyntaxProblem | undefined {
  const { text, document, kind } = options;
  const [error] = document.errors;
  if (error !== undefined) {
    const oneDocument = `a ${kind} holds one document${options.oneDocument === undefined ? '' : `; ${options.oneDocument}`}`;
    return explainError(text, error, oneDocument);
  }
  return mergeKeyProblem(document, kind);
}

function explainError(text: string, error: YAMLError, oneDocument: string): YamlSyntaxProblem {
  const [start, end] = error.pos;
  const lines = new TextLines(text);
  const plain = (): YamlSyntaxProblem => ({
    message: yamlErrorMessage(error.message, oneDocument),
    offset: start,
    length: Math.max(1, end - start),
  });
  switch (error.code) {
    case 'TAB_AS_INDENT': {
      const line = lines.at(start);
      const tab = text.indexOf('\t', line.start);
      return {
        message: 'a tab indents this line: YAML indents with spaces only; replace the tab with spaces',
        offset: tab === -1 ? start : tab,
        length: 1,
      };
    }
    case 'DUPLICATE_KEY': {
      const key = /^[^:\n]*/.exec(text.slice(start))?.[0].trim() ?? '';
      return {
        message: `the key ${JSON.stringify(key)} appears twice in the same mapping: keep one, and merge what the two say`,
        offset: start,
        length: Math.max(1, key.length),
      };
    }
    case 'BAD_SCALAR_START': {
      const character = text[start] ?? '';
      return {
        message: `a plain value cannot start with ${character}: put the value in quotes, such as '${character}...'`,
        offset: start,
        length: 1,
      };
    }
    case 'BAD_DQ_ESCAPE':
      return {
        message:
          'this backslash starts no escape that double quotes know: write the value in single quotes, where a backslash is just a backslash, or double it (\\\\)',
        offset: start,
        length: Math.max(1, end - start),
      };
    default:
      break;
  }
  if (error.code === 'MISSING_CHAR' && /closing .?quote/i.test(error.message)) {
    const quote = unclosedQuote(text);
    if (quote !== undefined) {
      return {
        message: `this ${text[quote] === '"' ? 'double' : 'single'} quote is never closed: end the value with ${text[quote]} on the same line, or write it without quotes`,
        offset: quote,
        length: 1,
      };
    }
  }
  if (error.code === 'BAD_INDENT' && /^Flow (sequence|map)/.test(error.message)) {
    const bracket = unclosedBracket(text);
    if (bracket !== undefined) {
      const close = text[bracket] === '[' ? ']' : '}';
      return {
        message: `this ${text[bracket]} is never closed: end it with ${close} on the same line, or write the ${close === ']' ? 'list as lines starting with "- "' : 'mapping as "key: value" lines'}`,
        offset: bracket,
        length: 1,
      };
    }
  }
  const line = lines.at(start);
  const colonInValue = /^(\s*(?:- )?[^\s:#][^:#]*?:\s+[^\s'"[{][^#]*?)(:\s)/.exec(line.text);
  if (error.code === 'BLOCK_AS_IMPLICIT_KEY' && colonInValue !== undefined && colonInValue !== null) {
    const at = line.start + (colonInValue[1]?.length ?? 0);
    return {
      message:
        'this value holds ": " (a colon and a space), which YAML reads as the start of another key: put the whole value in quotes',
      offset: at,
      length: 1,
    };
  }
  const noSpace = /^(\s*(?:- )?[A-Za-z_][\w.-]*):(?=[^\s:])/.exec(line.text);
  if (error.code === 'MULTILINE_IMPLICIT_KEY' && noSpace !== null) {
    return {
      message: 'a key needs a space after its colon: write "key: value"',
      offset: line.start + (noSpace[1]?.length ?? 0),
      length: 1,
    };
  }
  if (error.code === 'MULTILINE_IMPLICIT_KEY' && !line.text.includes(':')) {
    const indent = line.text.length - line.text.trimStart().length;
    return {
      message:
        'this line is neither "key: value" nor a list item: add a colon after the key, or "- " before the item',
      offset: line.start + indent,
      length: Math.max(1, line.text.trim().length),
    };
  }
  if (
    error.code === 'MISSING_CHAR' ||
    error.code === 'BAD_INDENT' ||
    error.code === 'BLOCK_AS_IMPLICIT_KEY' ||
    error.code === 'MULTILINE_IMPLICIT_KEY'
  ) {
    const misplaced = misindentedLine(
      lines,
      lines.at(start).number,
      lines.at(Math.max(start, end - 1)).number + 1,
    );
    if (misplaced !== undefined) return misplaced;
  }
  return plain();
}

/** A merge key (`<<: *anchor`): YAML 1.2 has none, and a rule file or configuration reads none. */
function mergeKeyProblem(document: Document, kind: string): YamlSyntaxProblem | undefined {
  let found: Node | undefined;
  visit(document, {
    Pair(_, pair) {
      if (isPair(pair) && isScalar(pair.key) && pair.key.value === '<<') {
        found = pair.key;
        return visit.BREAK;
      }
      return undefined;
    },
  });
  const range = found?.range;
  if (range === undefined || range === null) return undefined;
  return {
    message: `merge keys (<<) are not supported in a ${kind}: write the keys out; an anchor (&name) and an alias (*name) still repeat a whole value`,
    offset: range[0],
    length: 2,
  };
}

interface TextLine {
  /** 1-based. */
  readonly number: number;
  /** Offset of its first character. */
  readonly start: number;
  readonly text: string;
}

class TextLines {
  readonly lines: TextLine[] = [];

  constructor(text: string) {
    let start = 0;
    text.split('\n').forEach((line, index) => {
      this.lines.push({ number: index + 1, start, text: line.replace(/\r$/, '') });
      start += line.length + 1;
    });
  }

  at(offset: number): TextLine {
    let found = this.lines[0] ?? { number: 1, start: 0, text: '' };
    for (const line of this.lines) {
      if (line.start > offset) break;
      found = line;
    }
    return found;
  }
}

/** An open block of the lines read so far: a mapping's keys or a list's items, at their column. */
interface OpenBlock {
  readonly indent: number;
  readonly kind: 'map' | 'seq';
}

/**
 * The first line, from `from` to `to` (1-based, inclusive), whose indentation fits no enclosing key
 * or list, worked out from the block structure of the lines before it: a key lines up with the keys
 * of its mapping, an item with the items of its list, and a line goes deeper only after one that
 * opens a block (`key:` alone, `- `). Flow collections and block scalars are skipped; undefined when
 * every line fits.
 */
function misindentedLine(lines: TextLines, from: number, to: number): YamlSyntaxProblem | undefined {
  const stack: OpenBlock[] = [];
  let opens = true;
  let lastKeyIndent: number | undefined;
  let blockScalarIndent: number | undefined;
  let flowDepth = 0;
  for (const line of lines.lines) {
    if (line.number > to) break;
    const content = line.text.replace(/\s+#.*$/, '').replace(/^\s*#.*$/, '');
    if (content.trim() === '' || content.trim() === '---') continue;
    const indent = content.length - content.trimStart().length;
    if (blockScalarIndent !== undefined) {
      if (indent > blockScalarIndent) continue;
      blockScalarIndent = undefined;
    }
    if (flowDepth > 0) {
      flowDepth = Math.max(0, flowDepth + depthChange(content));
      continue;
    }
    const body = content.trim();
    const kind = body === '-' || body.startsWith('- ') ? 'seq' : 'map';
    const top = stack.at(-1);
    let fits: boolean;
    if (
      opens &&
      (top === undefined ||
        indent > top.indent ||
        (indent === top.indent && kind === 'seq' && top.kind === 'map'))
    ) {
      stack.push({ indent, kind });
      fits = true;
    } else {
      while (stack.length > 1) {
        const open = stack.at(-1) as OpenBlock;
        if (open.indent > indent || (open.indent === indent && open.kind !== kind)) stack.pop();
        else break;
      }
      fits = stack.at(-1)?.indent === indent && stack.at(-1)?.kind === kind;
    }
    if (!fits) {
      if (line.number < from) return undefined;
      const spaces = (count: number) => `${count} ${count === 1 ? 'space' : 'spaces'}`;
      const deeper = lastKeyIndent !== undefined && indent > lastKeyIndent;
      const advice = deeper
        ? `, deeper than the key above it, which has its value already, so nothing can nest under it: line it up with that key (${spaces(lastKeyIndent ?? 0)}), or give it a key of its own to nest under`
        : `, which lines it up with no key or list item above it: keys of one mapping start in the same column${lastKeyIndent === undefined ? '' : ` (${spaces(lastKeyIndent)} for the keys just above)`}, and "- " items under their key`;
      return {
        message: `this line is indented ${spaces(indent)}${advice}`,
        offset: line.start + indent,
        length: Math.max(1, (/^[^:\s]+/.exec(body)?.[0] ?? body).length),
      };
    }
    let rest = body;
    let restIndent = indent;
    while (rest === '-' || rest.startsWith('- ')) {
      const after = rest.slice(1);
      restIndent += 1 + (after.length - after.trimStart().length);
      rest = after.trimStart();
      if (rest.startsWith('- ')) stack.push({ indent: restIndent, kind: 'seq' });
      else if (rest !== '') stack.push({ indent: restIndent, kind: 'map' });
    }
    if (/^[^'"[{-][^:]*:(\s|$)/.test(rest)) lastKeyIndent = restIndent;
    opens = rest === '' || /^[^'"[{][^:]*:$/.test(rest);
    if (/:\s*[|>][-+0-9]*$/.test(rest)) blockScalarIndent = indent;
    flowDepth = Math.max(0, depthChange(rest));
  }
  return undefined;
}

/** How many flow collections a line opens and does not close, outside quotes. */
function depthChange(text: string): number {
  let depth = 0;
  let quote: string | undefined;
  for (const character of text) {
    if (quote !== undefined) {
      if (character === quote) quote = undefined;
    } else if (character === '"' || character === "'") quote = character;
    else if (character === '[' || character === '{') depth += 1;
    else if (character === ']' || character === '}') depth -= 1;
    else if (character === '#') break;
  }
  return depth;
}

/** The offset of a quote that opens a value and is never closed, if one is. */
function unclosedQuote(text: string): number | undefined {
  let open: number | undefined;
  let quote: string | undefined;
  for (let index = 0; index < text.length; index += 1) {
    const character = text[index];
    if (quote !== undefined) {
      if (quote === '"' && character === '\\') index += 1;
      else if (character === quote) {
        if (quote === "'" && text[index + 1] === "'") index += 1;
        else quote = undefined;
      }
      continue;
    }
    if (character === '#' && (index === 0 || /\s/.test(text[index - 1] ?? ''))) {
      const newline = text.indexOf('\n', index);
      index = newline === -1 ? text.length : newline;
      continue;
    }
    if (
      (character === '"' || character === "'") &&
      /(^|[\s:[{,-])$/.test(text.slice(Math.max(0, index - 1), index) || ' ')
    ) {
      quote = character;
      open = index;
    }
  }
  return quote === undefined ? undefined : open;
}

/** The offset of the last `[` or `{` left open, outside quotes and comments, if one is. */
function unclosedBracket(text: string): number | undefined {
  const open: number[] = [];
  let quote: string | undefined;
  for (let index = 0; index < text.length; index += 1) {
    const character = text[index];
    if (quote !== undefined) {
      if (character === quote) quote = undefined;
      continue;
    }
    if (character === '#' && (index === 0 || /\s/.test(text[index - 1] ?? ''))) {
      const newline = text.indexOf('\n', index);
      index = newline === -1 ? text.length : newline;
      continue;
    }
    if (character === '"' || character === "'") quote = character;
    else if (character === '[' || character === '{') open.push(index);
    else if ((character === ']' || character === '}') && open.length > 0) open.pop();
  }
  return open.at(-1);
}

/**
 * A syntax problem of a file as the rule loader prints problems: `file:line:column: message`, then
 * the line and a caret under the character to fix. For the configuration files, which are not rule
 * files but are read with the same YAML parser.
 *
 * @example
 * ```ts
 * formatYamlSyntaxProblem('deploy/prod.yaml', text, problem);
 * // 'deploy/prod.yaml:4:4: this line is indented 3 spaces, ... [YAML_SYNTAX]\n 4 |    severity: low\n   |    ^^^^^^^^'
 * ```
 */
export function formatYamlSyntaxProblem(file: string, text: string, problem: YamlSyntaxProblem): string {
  const line = new TextLines(text).at(problem.offset);
  const column = problem.offset - line.start + 1;
  return formatRuleProblems([
    {
      code: 'YAML_SYNTAX',
      file,
      path: [],
      message: problem.message,
      line: line.number,
      column,
      sourceLine: line.text,
      length: Math.max(1, Math.min(problem.length, line.text.length - column + 1)),
    },
  ]);
}
