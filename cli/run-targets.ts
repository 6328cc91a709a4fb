import { isAbsolute, resolve } from 'node:path';
import { UsageError } from './errors.js';

/** Where a local run keeps its state: a JSON file (locked while the run lasts) or a DynamoDB table. */
export type StateTarget = { kind: 'file'; path: string } | { kind: 'dynamodb'; tableName: string };

/** Where a local run delivers alerts. */
export type NotifyTarget =
  | { kind: 'console' }
  | { kind: 'outbox'; path: string }
  | { kind: 'sns'; topicArn: string };

/** The state file a run uses when none is given, relative to the current directory. */
export const DEFAULT_STATE_FILE = '.atlas-audit-alerts/state.json';

const TABLE_NAME = /^[A-Za-z0-9_.-]{3,255}$/;

/** Options of {@link parseStateTarget} and {@link parseNotifyTarget}. */
export interface ParseTargetOptions {
  /** What is being parsed, for messages: `--state`, or `state in config.yaml`. */
  origin: string;
  /** Relative paths are resolved against it (the current directory, or the config file's). */
  baseDirectory: string;
}

/**
 * Reads a state target: `file:PATH` or `dynamodb:TABLE`.
 *
 * @throws UsageError for anything else, saying what is accepted.
 * @example
 * ```ts
 * parseStateTarget('dynamodb:atlas-audit-alerts', { origin: '--state', baseDirectory: process.cwd() });
 * // { kind: 'dynamodb', tableName: 'atlas-audit-alerts' }
 * ```
 */
export function parseStateTarget(text: string, options: ParseTargetOptions): StateTarget {
  const [scheme, rest] = split(text);
  if (scheme === 'file' && rest !== '') {
    return { kind: 'file', path: absolute(rest, options.baseDirectory) };
  }
  if (scheme === 'dynamodb' && TABLE_NAME.test(rest)) {
    return { kind: 'dynamodb', tableName: rest };
  }
  throw new UsageError(
    `${options.origin} ${JSON.stringify(text)} is not a state store: use file:PATH (a local JSON file) or dynamodb:TABLE (a table with the stack's layout)`,
  );
}

/**
 * Reads a notify target: `console`, `outbox:PATH` or `sns:TOPIC_ARN`.
 *
 * @throws UsageError for anything else, saying what is accepted.
 * @example
 * ```ts
 * parseNotifyTarget('outbox:alerts.jsonl', { origin: '--notify', baseDirectory: process.cwd() });
 * // { kind: 'outbox', path: '/home/me/alerts.jsonl' }
 * ```
 */
export function parseNotifyTarget(text: string, options: ParseTargetOptions): NotifyTarget {
  if (text === 'console') return { kind: 'console' };
  const [scheme, rest] = split(text);
  if (scheme === 'outbox' && rest !== '') {
    return { kind: 'outbox', path: absolute(rest, options.baseDirectory) };
  }
  if (scheme === 'sns' && /^arn:aws[a-z-]*:sns:/.test(rest)) {
    return { kind: 'sns', topicArn: rest };
  }
  throw new UsageError(
    `${options.origin} ${JSON.stringify(text)} is not a notifier: use console, outbox:PATH (one JSON line per alert, as SNS would get it) or sns:TOPIC_ARN`,
  );
}

/**
 * A target written back as a flag value, for messages.
 *
 * @example
 * ```ts
 * describeTarget({ kind: 'dynamodb', tableName: 'alerts' }); // 'dynamodb:alerts'
 * ```
 */
export function describeTarget(target: StateTarget | NotifyTarget): string {
  switch (target.kind) {
    case 'file':
    case 'outbox':
      return `${target.kind}:${target.path}`;
    case 'dynamodb':
      return `dynamodb:${target.tableName}`;
    case 'sns':
      return `sns:${target.topicArn}`;
    case 'console':
      return 'console';
  }
}

function split(text: string): [string, string] {
  const colon = text.indexOf(':');
  return colon < 0 ? [text, ''] : [text.slice(0, colon), text.slice(colon + 1)];
}

function absolute(path: string, baseDirectory: string): string {
  return isAbsolute(path) ? path : resolve(baseDirectory, path);
}
