import type { CodeBlock } from './markdown.js';

/** One simple command of a shell example: its words, without the `$ ` prompt, pipes or `;`. */
export interface ShellCommand {
  words: string[];
  /** Where it was written: page and line. */
  where: string;
}

/**
 * Splits a line into shell words: quotes group and are removed, `$(...)` stays one word, and the
 * operators `|`, `||`, `&&` and `;` are words of their own.
 */
export function shellWords(line: string): string[] {
  const words: string[] = [];
  let word = '';
  let started = false;
  const flush = () => {
    if (started) words.push(word);
    word = '';
    started = false;
  };
  for (let index = 0; index < line.length; index += 1) {
    const char = line[index] ?? '';
    if (char === "'" || char === '"') {
      const end = line.indexOf(char, index + 1);
      const stop = end === -1 ? line.length : end;
      word += line.slice(index + 1, stop);
      started = true;
      index = stop;
    } else if (char === '$' && line[index + 1] === '(') {
      let depth = 0;
      let end = index + 1;
      for (; end < line.length; end += 1) {
        if (line[end] === '(') depth += 1;
        if (line[end] === ')') depth -= 1;
        if (depth === 0) break;
      }
      word += line.slice(index, end + 1);
      started = true;
      index = end;
    } else if (/\s/.test(char)) {
      flush();
    } else if (char === '|' || char === ';' || (char === '&' && line[index + 1] === '&')) {
      flush();
      const operator =
        line.slice(index, index + 2) === '||' || char === '&' ? line.slice(index, index + 2) : char;
      words.push(operator);
      index += operator.length - 1;
    } else {
      word += char;
      started = true;
    }
  }
  flush();
  return words;
}

/** Drops a `# comment` that follows a command, leaving a `#` inside quotes alone. */
function withoutComment(line: string): string {
  let quote: string | undefined;
  for (let index = 0; index < line.length; index += 1) {
    const char = line[index];
    if (quote !== undefined) {
      if (char === quote) quote = undefined;
    } else if (char === "'" || char === '"') {
      quote = char;
    } else if (char === '#' && (index === 0 || /\s/.test(line[index - 1] ?? ''))) {
      return line.slice(0, index);
    }
  }
  return line;
}

/**
 * The command lines of a `sh`, `bash` or `console` block: in a console block only the lines after a
 * `$ ` prompt (the rest is output), in a script every line but comments; a line ending in `\` goes on
 * with the next.
 */
export function commandLines(block: CodeBlock): { line: string; where: string }[] {
  const console = block.lang === 'console';
  const lines = block.code.split('\n');
  const found: { line: string; where: string }[] = [];
  for (let index = 0; index < lines.length; index += 1) {
    const first = lines[index] ?? '';
    if (console && !first.startsWith('$ ')) continue;
    const where = `${block.page}:${block.line + 1 + index}`;
    let line = console ? first.slice(2) : first;
    while (line.trimEnd().endsWith('\\') && index + 1 < lines.length) {
      index += 1;
      line = `${line.trimEnd().slice(0, -1)} ${lines[index] ?? ''}`;
    }
    line = withoutComment(line).trim();
    if (line !== '') found.push({ line, where });
  }
  return found;
}

/** The simple commands of a command line: split at pipes, `;`/`&&`/`||` and braces, and inside `$(...)`. */
export function simpleCommands(line: string, where: string): ShellCommand[] {
  const commands: ShellCommand[] = [];
  let words: string[] = [];
  const flush = () => {
    // Leading VAR=value assignments and `env -i VAR=value` set the environment of the command.
    let start = 0;
    if (words[start] === 'env') {
      start += 1;
      while (words[start]?.startsWith('-')) start += 1;
    }
    while (/^[A-Za-z_][A-Za-z0-9_]*=/.test(words[start] ?? '')) start += 1;
    const rest = words.slice(start);
    if (rest.length > 0) commands.push({ words: rest, where });
    words = [];
  };
  for (const word of shellWords(line)) {
    for (const inner of word.matchAll(/\$\((.*)\)/g)) commands.push(...simpleCommands(inner[1] ?? '', where));
    // A function definition `name() { ...; }` holds commands between its braces.
    if (['|', ';', '&&', '||', '{', '}'].includes(word) || /^\w+\(\)$/.test(word)) flush();
    else words.push(word);
  }
  flush();
  return commands;
}
