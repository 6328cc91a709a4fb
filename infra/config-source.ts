import { readFileSync } from 'node:fs';
import { extname, isAbsolute, resolve } from 'node:path';
import { parseDocument } from 'yaml';
import { yamlErrorMessage } from '../shared/rules/yaml-message.js';
import { findExcessiveNesting, MAX_YAML_NESTING } from '../shared/rules/yaml-nesting.js';
import { explainYamlSyntax, formatYamlSyntaxProblem } from '../shared/rules/yaml-syntax.js';
import { DEPLOY_CONFIG_CONTEXT_KEY, type DeployConfig, parseDeployConfig } from './config.js';
import { DeployConfigError, DeployConfigFileError } from './errors.js';
import { settingLocator } from './setting-positions.js';

export interface ResolveDeployConfigOptions {
  /**
   * The value of the `atlasAuditAlerts` context key: an object from `cdk.json`, JSON text when given
   * with `--context atlasAuditAlerts=…`, or undefined.
   */
  context: unknown;
  /** The value of the `config` context key: a YAML or JSON file, relative to `projectRoot`. */
  configFile?: unknown;
  /** The directory `cdk.json` is in; relative paths are resolved against it. */
  projectRoot: string;
}

/**
 * Resolves the one deploy configuration the app builds from: the `atlasAuditAlerts` object in `cdk.json`
 * context, with the configuration file (`--context config=path.yaml`) laid over it. Objects merge key
 * by key, `null` removes a setting, and any other value in the file, lists included, replaces the
 * context's.
 *
 * @throws {DeployConfigFileError} when the file cannot be read or is not valid YAML or JSON.
 * @throws {DeployConfigError} listing every wrong or unknown setting with its path, and the file,
 *   line and column of those the file sets.
 * @example
 * ```ts
 * const config = resolveDeployConfig({
 *   context: app.node.tryGetContext('atlasAuditAlerts'),
 *   configFile: app.node.tryGetContext('config'),
 *   projectRoot: process.cwd(),
 * });
 * ```
 */
export function resolveDeployConfig({
  context,
  configFile,
  projectRoot,
}: ResolveDeployConfigOptions): DeployConfig {
  const base = parseContextValue(context);
  const contextOrigin = `cdk.json context "${DEPLOY_CONFIG_CONTEXT_KEY}"`;
  if (configFile === undefined || configFile === null || configFile === '') {
    return parseDeployConfig({ input: base, origin: contextOrigin });
  }
  if (typeof configFile !== 'string') {
    throw new DeployConfigFileError(
      `The "config" context value must be a file path, got ${JSON.stringify(configFile)}: pass --context config=path/to/config.yaml`,
    );
  }
  const { value: overlay, text } = readConfigFile(
    isAbsolute(configFile) ? configFile : resolve(projectRoot, configFile),
    configFile,
  );
  return parseDeployConfig({
    input: mergeSettings(base, overlay),
    origin: `${contextOrigin} and ${configFile}`,
    locate: settingLocator({ text, file: configFile }),
  });
}

function parseContextValue(context: unknown): unknown {
  if (typeof context !== 'string') return context ?? {};
  try {
    return JSON.parse(context) as unknown;
  } catch (error) {
    const message = `is not JSON (${(error as Error).message}): pass a JSON object, or use --context config=path.yaml`;
    throw new DeployConfigError(
      `The "${DEPLOY_CONFIG_CONTEXT_KEY}" context value given on the command line ${message}`,
      { cause: error, problems: [{ path: '', message }] },
    );
  }
}

function readConfigFile(path: string, shownAs: string): { value: unknown; text: string } {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new DeployConfigFileError(
      `Cannot read the configuration file ${shownAs} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}): check the path given with --context config=…; relative paths start at the project root`,
      { cause: error },
    );
  }
  return { value: parseConfigText(path, shownAs, text), text };
}

function parseConfigText(path: string, shownAs: string, text: string): unknown {
  const tooDeep = findExcessiveNesting(text);
  if (tooDeep !== undefined) {
    const at = positionAtOffset(text, tooDeep.offset);
    throw new DeployConfigFileError(
      `The configuration file ${shownAs} nests lists or mappings more than ${MAX_YAML_NESTING} levels deep ` +
        `(at ${shownAs}:${at.line}:${at.col}): a configuration needs a few levels only`,
    );
  }
  if (extname(path).toLowerCase() === '.json') {
    try {
      return JSON.parse(text) as unknown;
    } catch (error) {
      const message = (error as Error).message;
      const position = jsonErrorPosition(text, message);
      const where = position === undefined ? shownAs : `${shownAs}:${position.line}:${position.col}`;
      throw new DeployConfigFileError(
        `The configuration file ${shownAs} is not valid JSON:\n  - ${where}: ${message}`,
        {
          cause: error,
        },
      );
    }
  }
  const document = parseDocument(text, { uniqueKeys: true });
  const syntax = explainYamlSyntax({ text, document, kind: 'configuration file' });
  if (syntax !== undefined) {
    throw new DeployConfigFileError(
      `The configuration file ${shownAs} is not valid YAML:\n${formatYamlSyntaxProblem(shownAs, text, syntax)}`,
    );
  }
  try {
    return document.toJS() as unknown;
  } catch (error) {
    // Aliases resolve only here: an alias to no anchor, or one that expands without end.
    throw new DeployConfigFileError(
      `The configuration file ${shownAs} is not valid YAML: ${yamlErrorMessage((error as Error).message, 'a configuration file holds one document')}`,
      { cause: error },
    );
  }
}

/**
 * Where a JSON syntax error is, as line and column: from the `position` V8 gives, or from the YAML
 * parser (a superset of JSON) when the message has none.
 */
function jsonErrorPosition(text: string, message: string): { line: number; col: number } | undefined {
  const offset = /at position (\d+)/.exec(message)?.[1];
  if (offset !== undefined) return positionAtOffset(text, Number(offset));
  return parseDocument(text).errors[0]?.linePos?.[0];
}

/** The 1-based line and column of a character offset in `text`. */
function positionAtOffset(text: string, offset: number): { line: number; col: number } {
  const before = text.slice(0, offset).split('\n');
  return { line: before.length, col: (before.at(-1)?.length ?? 0) + 1 };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Lays `overlay` over `base`: objects merge key by key, `null` removes a setting (so a file can drop
 * the Slack channel `cdk.json` sets), anything else in `overlay` replaces `base`.
 *
 * @example
 * ```ts
 * mergeSettings({ alerts: { emails: ['a@example.com'] } }, { alerts: { emailMinSeverity: 'high' } });
 * // { alerts: { emails: ['a@example.com'], emailMinSeverity: 'high' } }
 * ```
 */
export function mergeSettings(base: unknown, overlay: unknown): unknown {
  if (!isPlainObject(base) || !isPlainObject(overlay)) return overlay === undefined ? base : overlay;
  const merged: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(overlay)) {
    if (value === null) delete merged[key];
    else merged[key] = mergeSettings(base[key], value);
  }
  return merged;
}
