/**
 * The AWS SDK's word on the Node version, in one line.
 *
 * The first time the CLI makes an AWS client (`--state dynamodb:…`, `--notify sns:…`) on a Node that
 * the SDK's future releases will drop (Node 20 today), the SDK emits a `NodeVersionSupportWarning` of
 * eight lines through `process.emitWarning`. The CLI keeps working on that Node with the SDK it ships,
 * so the command prints one plain line in its place, once; on a Node the SDK supports the SDK says
 * nothing and neither does this. Every other warning reaches Node's own `process.emitWarning`
 * unchanged. `AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED=true` (the SDK's own switch) keeps the
 * SDK quiet, so the line too; `NODE_NO_WARNINGS=1` and `--no-warnings` silence it as they silence
 * Node's warnings.
 */

export interface NodeSupportNoticeOptions {
  /** Where the one line goes: the command's stderr. */
  write: (text: string) => void;
  /** The Node version the command runs on. Default: `process.version`. */
  nodeVersion?: string;
  /** Default: `process.env`. */
  env?: NodeJS.ProcessEnv;
  /** Node's own flags. Default: `process.execArgv`. */
  execArgv?: readonly string[];
}

const SDK_WARNING = 'NodeVersionSupportWarning';

/**
 * Puts a filter in front of `process.emitWarning` that turns the AWS SDK's multi-line
 * `NodeVersionSupportWarning` into {@link nodeSupportNotice}'s single line, printed at most once.
 *
 * @returns A function that puts the original `process.emitWarning` back.
 * @example
 * ```ts
 * quietNodeSupportWarning({ write: (text) => process.stderr.write(text) });
 * ```
 */
export function quietNodeSupportWarning(options: NodeSupportNoticeOptions): () => void {
  const original = process.emitWarning;
  const nodeVersion = options.nodeVersion ?? process.version;
  const silent = warningsSilenced(options.env ?? process.env, options.execArgv ?? process.execArgv);
  let printed = false;
  const filtered = function emitWarning(this: unknown, warning: string | Error, ...rest: unknown[]): void {
    const message = typeof warning === 'string' ? warning : warning.message;
    if (!message.startsWith(SDK_WARNING)) {
      Reflect.apply(original, this ?? process, [warning, ...rest]);
      return;
    }
    if (printed || silent) return;
    printed = true;
    options.write(`${nodeSupportNotice(message, nodeVersion)}\n`);
  } as typeof process.emitWarning;
  process.emitWarning = filtered;
  return () => {
    if (process.emitWarning === filtered) process.emitWarning = original;
  };
}

/**
 * The line printed in place of the SDK's warning: which Node runs, that it works, and from when the
 * SDK needs a newer one. Reads the date and version from the SDK's own text; when that text has
 * changed shape, its words are kept, on one line.
 *
 * @example
 * ```ts
 * nodeSupportNotice(sdkWarningText, 'v20.20.2');
 * // 'atlas-audit-alerts: note: Node v20.20.2 works for now, but AWS SDK releases published after
 * //  the first week of January 2027 need Node 22 or later'
 * ```
 */
export function nodeSupportNotice(sdkMessage: string, nodeVersion: string): string {
  const text = sdkMessage.replace(/\s+/g, ' ').trim();
  const found = /published after (.+?) will require node >= ?(\d+)/i.exec(text);
  const when = found?.[1];
  const minimum = Number(found?.[2]);
  if (when === undefined || !Number.isInteger(minimum)) {
    return `atlas-audit-alerts: note: ${text.slice(SDK_WARNING.length).replace(/^[:\s]+/, '')}`;
  }
  return (
    `atlas-audit-alerts: note: Node ${nodeVersion} works for now, but AWS SDK releases published ` +
    `after ${when} need Node ${minimum} or later`
  );
}

function warningsSilenced(env: NodeJS.ProcessEnv, execArgv: readonly string[]): boolean {
  return (
    env.NODE_NO_WARNINGS === '1' ||
    execArgv.includes('--no-warnings') ||
    /(^|\s)--no-warnings(\s|$)/.test(env.NODE_OPTIONS ?? '')
  );
}
