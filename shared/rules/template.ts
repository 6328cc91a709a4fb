import type { AtlasEvent } from '../atlas/types.js';
import { compileFieldPath, type PathReader, parseFieldPath } from './field-path.js';

/**
 * The fields `{{context.<field>}}` may name: what the poller knows beyond the event (see
 * `AlertContext`), and `eventWords`, the event type in words (see `eventTypeWords`), which rule tests
 * and replays render too.
 */
export const TEMPLATE_CONTEXT_FIELDS = [
  'org',
  'orgId',
  'orgName',
  'project',
  'projectId',
  'projectName',
  'keyDescription',
  'keyRoles',
  'serviceAccountName',
  'teamName',
  'alertConfig',
  'eventWords',
] as const;

const CONTEXT_PREFIX = 'context.';

/**
 * Alert titles and summaries are templates: text with placeholders `{{field.path}}`. A placeholder may
 * list fallbacks, tried in order, the last of which may be a quoted default:
 * `{{username | publicKey | "unknown"}}`. No code runs: a placeholder only reads fields. A value that
 * is missing, null or empty falls through to the next choice; with none left it renders as nothing.
 * Values across an array (`{{diffs[].name}}`) are joined with `, `; objects render as JSON.
 *
 * `{{context.projectName}}` and the other {@link TEMPLATE_CONTEXT_FIELDS} read what the poller knows
 * beyond the event (names, the key's details), given at render time; without it they are missing.
 */

type Choice =
  | { kind: 'path'; reader: PathReader; field: string }
  | { kind: 'context'; name: string }
  | { kind: 'literal'; text: string };
type Part = string | readonly Choice[];

/** A template compiled once, rendered per alert. */
export interface CompiledTemplate {
  readonly source: string;
  render(event: AtlasEvent, context?: TemplateContext): string;
}

/** What a template reads besides the event. */
export interface TemplateContext {
  /** What `{{context.<field>}}` reads. */
  readonly values?: Readonly<Record<string, string>>;
  /**
   * Top-level event fields rendered by name when the event holds the given id: `groupId` →
   * `{ id: '64b5…', shown: 'payments-prod (64b5…d11)' }`. What titles use, so `{{groupId}}` reads well.
   */
  readonly namedIds?: Readonly<Record<string, { readonly id: string; readonly shown: string }>>;
}

/**
 * Whether a placeholder's path names the poller's context (`context.projectName`) rather than an
 * event field.
 *
 * @example
 * ```ts
 * isContextPath('context.projectName'); // true
 * ```
 */
export function isContextPath(path: string): boolean {
  return path.startsWith(CONTEXT_PREFIX);
}

/** A problem in a template, with where it starts in the template's text. */
export interface TemplateProblem {
  message: string;
  /** Offset of the offending placeholder in the template's text. */
  offset: number;
  /** The placeholder as written, so callers can find it in the file. */
  placeholder: string;
}

/**
 * Compiles a template, or lists every placeholder that is not valid.
 *
 * @example
 * ```ts
 * const result = compileTemplate('API key {{targetPublicKey | "?"}} created by {{username}}');
 * if (result.ok) result.template.render(event);
 * ```
 */
export function compileTemplate(
  source: string,
): { ok: true; template: CompiledTemplate } | { ok: false; problems: TemplateProblem[] } {
  const parts: Part[] = [];
  const problems: TemplateProblem[] = [];
  let cursor = 0;
  while (cursor < source.length) {
    const open = source.indexOf('{{', cursor);
    if (open === -1) {
      parts.push(source.slice(cursor));
      break;
    }
    if (open > cursor) parts.push(source.slice(cursor, open));
    const close = source.indexOf('}}', open + 2);
    if (close === -1) {
      problems.push({
        message: 'a placeholder opened with "{{" is never closed with "}}"',
        offset: open,
        placeholder: source.slice(open),
      });
      break;
    }
    const placeholder = source.slice(open, close + 2);
    const parsed = parsePlaceholder(source.slice(open + 2, close));
    if (typeof parsed === 'string') problems.push({ message: parsed, offset: open, placeholder });
    else parts.push(parsed);
    cursor = close + 2;
  }
  if (problems.length > 0) return { ok: false, problems };
  return {
    ok: true,
    template: { source, render: (event, context) => renderParts(parts, event, context) },
  };
}

/** The choices of a placeholder, or a message saying what is wrong with it. */
function parsePlaceholder(inner: string): Choice[] | string {
  const choices: Choice[] = [];
  let cursor = 0;
  for (;;) {
    while (inner[cursor] === ' ') cursor++;
    if (inner[cursor] === '"') {
      const literal = readLiteral(inner, cursor);
      if (literal === undefined) return `placeholder "{{${inner}}}" has an unterminated "quoted default"`;
      choices.push({ kind: 'literal', text: literal.text });
      cursor = literal.end;
    } else {
      const bar = inner.indexOf('|', cursor);
      const text = inner.slice(cursor, bar === -1 ? inner.length : bar).trim();
      if (text === '') return `placeholder "{{${inner}}}" names no field path (write "{{username}}")`;
      if (isContextPath(text)) {
        const name = text.slice(CONTEXT_PREFIX.length);
        if (!(TEMPLATE_CONTEXT_FIELDS as readonly string[]).includes(name)) {
          return `placeholder "{{${inner}}}": "${text}" is not a context field; use one of ${TEMPLATE_CONTEXT_FIELDS.map((field) => CONTEXT_PREFIX + field).join(', ')}`;
        }
        choices.push({ kind: 'context', name });
      } else {
        const path = parseFieldPath(text);
        if (!path.ok) return `placeholder "{{${inner}}}": ${path.message}`;
        choices.push({ kind: 'path', reader: compileFieldPath(path.path), field: text });
      }
      cursor = bar === -1 ? inner.length : bar;
    }
    while (inner[cursor] === ' ') cursor++;
    if (cursor >= inner.length) break;
    if (inner[cursor] !== '|') return `placeholder "{{${inner}}}" has text after a quoted default`;
    if (choices[choices.length - 1]?.kind === 'literal') {
      return `placeholder "{{${inner}}}": a quoted default must be the last choice`;
    }
    cursor++;
  }
  return choices;
}

function readLiteral(inner: string, start: number): { text: string; end: number } | undefined {
  let text = '';
  for (let cursor = start + 1; cursor < inner.length; cursor++) {
    const char = inner[cursor];
    if (char === '\\' && cursor + 1 < inner.length) {
      text += inner[++cursor];
    } else if (char === '"') {
      return { text, end: cursor + 1 };
    } else {
      text += char;
    }
  }
  return undefined;
}

function renderParts(
  parts: readonly Part[],
  event: AtlasEvent,
  context: TemplateContext | undefined,
): string {
  let text = '';
  for (const part of parts) text += typeof part === 'string' ? part : renderChoices(part, event, context);
  return text;
}

function renderChoices(
  choices: readonly Choice[],
  event: AtlasEvent,
  context: TemplateContext | undefined,
): string {
  for (const choice of choices) {
    if (choice.kind === 'literal') return choice.text;
    if (choice.kind === 'context') {
      const value = context?.values?.[choice.name];
      if (value !== undefined && value !== '') return value;
      continue;
    }
    if (!choice.reader.spread) {
      const value = choice.reader.first(event);
      const named = context?.namedIds?.[choice.field];
      if (named !== undefined && value === named.id) return named.shown;
      const text = renderValue(value);
      if (text !== '') return text;
      continue;
    }
    const rendered = choice.reader
      .values(event)
      .map(renderValue)
      .filter((value) => value !== '');
    if (rendered.length > 0) return rendered.join(', ');
  }
  return '';
}

function renderValue(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === undefined || value === null) return '';
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint')
    return String(value);
  return JSON.stringify(value) ?? '';
}
