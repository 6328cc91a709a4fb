import { readFile, writeFile } from 'node:fs/promises';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { Command, CommanderError } from 'commander';
import { CommandFailed, ExitCode } from '../../cli/errors.js';
import { exitCodeFor } from '../../cli/exit-codes.js';
import type { PollCommandIo } from '../../cli/poll-command-io.js';
import type { StopSignals } from '../../cli/stop-signals.js';
import { AtlasClient, type AtlasEvent } from '../../shared/atlas/index.js';
import { baselineFindings } from '../../shared/poll/inventory-findings.js';
import { createRuleEngine, loadRulePack, MemoryCounterStore } from '../../shared/rules/index.js';
import { buildInventoryEvent } from '../../shared/rules/inventory-events.js';

/** A writable stream that keeps what is written, optionally claiming to be a terminal. */
export class CapturedOutput extends Writable {
  readonly isTTY: boolean;
  readonly columns = 120;
  #text = '';

  constructor(options: { isTTY?: boolean } = {}) {
    super();
    this.isTTY = options.isTTY ?? false;
  }

  override _write(chunk: Buffer | string, _encoding: BufferEncoding, callback: () => void): void {
    this.#text += typeof chunk === 'string' ? chunk : chunk.toString('utf8');
    callback();
  }

  get text(): string {
    return this.#text;
  }
}

/** Signals a test sends by hand. */
export class ManualStopSignals implements StopSignals {
  readonly #listeners = new Set<(signal: string) => void>();

  subscribe(listener: (signal: string) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  send(signal: string): void {
    for (const listener of [...this.#listeners]) listener(signal);
  }

  get listening(): boolean {
    return this.#listeners.size > 0;
  }
}

export interface PollCommandRun {
  code: number;
  stdout: string;
  stderr: string;
}

export interface RunPollCommandOptions {
  /** Registers the command under test, such as `registerRunCommand`. */
  register: (program: Command, io: PollCommandIo) => void;
  env: Record<string, string>;
  cwd: string;
  signals?: StopSignals;
  stdout?: CapturedOutput;
  stderr?: CapturedOutput;
}

/**
 * Runs a command (`run`, `backfill`, `demo`) in this process, as `cli/main.ts` runs a command line: commander's
 * own errors exit 2 with their message already printed, other errors print one line and exit with
 * `exitCodeFor`. In process, so a test's simulator keeps answering and no Node start is paid.
 */
export async function runPollCommand(
  args: readonly string[],
  options: RunPollCommandOptions,
): Promise<PollCommandRun> {
  const stdout = options.stdout ?? new CapturedOutput();
  const stderr = options.stderr ?? new CapturedOutput();
  const io: PollCommandIo = {
    stdout,
    stderr,
    env: options.env,
    cwd: options.cwd,
    signals: options.signals ?? new ManualStopSignals(),
  };
  const program = new Command('atlas-audit-alerts')
    .exitOverride()
    .configureOutput({ writeOut: (text) => stdout.write(text), writeErr: (text) => stderr.write(text) });
  options.register(program, io);
  let code: number = ExitCode.ok;
  try {
    await program.parseAsync(['node', 'atlas-audit-alerts', ...args]);
  } catch (error) {
    if (error instanceof CommanderError) {
      code = error.exitCode === 0 ? ExitCode.ok : ExitCode.usage;
    } else {
      if (!(error instanceof CommandFailed && error.message === '')) {
        stderr.write(`atlas-audit-alerts: ${error instanceof Error ? error.message : String(error)}\n`);
      }
      code = exitCodeFor(error);
    }
  }
  return { code, stdout: stdout.text, stderr: stderr.text };
}

/** The outbox's entries, one per alert, as the SNS notifier would send them. */
export async function readOutbox(path: string): Promise<Array<Record<string, unknown>>> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch {
    return [];
  }
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** The alert fingerprint an outbox entry carries (the email's last line names it). */
export function fingerprintOf(entry: Record<string, unknown>): string {
  const email = (JSON.parse(String(entry.Message)) as { email: string }).email;
  const match = /Alert fingerprint: (\S+)/.exec(email);
  if (match?.[1] === undefined) throw new Error('an outbox entry without its fingerprint');
  return match[1];
}

/** Options of {@link expectedAlertFingerprints}. */
export interface ExpectedAlertsOptions {
  baseUrl: string;
  credentials: { publicKey: string; privateKey: string };
  orgIds: readonly string[];
  projectIds: readonly string[];
}

/**
 * The fingerprints the built-in rules raise on every event of the given sources, worked out without
 * the tick: every event listed with a client of its own, sorted by (created, id), evaluated at once.
 */
export async function expectedAlertFingerprints(options: ExpectedAlertsOptions): Promise<string[]> {
  const client = new AtlasClient({
    baseUrl: options.baseUrl,
    credentials: { kind: 'digest', ...options.credentials },
  });
  const events: AtlasEvent[] = [];
  // The first run's inventory raises the baseline findings of each org and project, built here by the
  // same functions from the same Atlas answers.
  const findings: AtlasEvent[] = [];
  const all = { apiKeys: true, serviceAccounts: true, projectAccessList: true };
  try {
    for (const orgId of options.orgIds) {
      events.push(...(await client.listOrgEvents(orgId).toArray()));
      const apiKeys = [];
      for (const apiKey of await client.listApiKeys(orgId).toArray()) {
        apiKeys.push({ apiKey, accessList: await client.listApiKeyAccessList(orgId, apiKey.id).toArray() });
      }
      const serviceAccounts = [];
      for (const serviceAccount of await client.listServiceAccounts(orgId).toArray()) {
        const accessList = await client
          .listServiceAccountAccessList(orgId, serviceAccount.clientId)
          .toArray();
        serviceAccounts.push({ serviceAccount, accessList });
      }
      const snapshot = { orgId, takenAt: 0, apiKeys, serviceAccounts };
      for (const change of baselineFindings(snapshot, all)) {
        findings.push(buildInventoryEvent(change, { orgId, snapshotAt: 0, preExisting: true }));
      }
    }
    for (const groupId of options.projectIds) {
      events.push(...(await client.listProjectEvents(groupId).toArray()));
      const projectAccessList = await client.listProjectAccessList(groupId).toArray();
      for (const change of baselineFindings({ groupId, takenAt: 0, apiKeys: [], projectAccessList }, all)) {
        findings.push(buildInventoryEvent(change, { groupId, snapshotAt: 0, preExisting: true }));
      }
    }
  } finally {
    await client.close();
  }
  events.sort(
    (a, b) => String(a.created).localeCompare(String(b.created)) || String(a.id).localeCompare(String(b.id)),
  );
  const engine = createRuleEngine({
    pack: await loadRulePack({ paths: [fileURLToPath(new URL('../../rules/', import.meta.url))] }),
    counters: new MemoryCounterStore(),
  });
  return (await engine.evaluate([...events, ...findings])).map((alert) => alert.fingerprint).sort();
}

/** Options of {@link writeEstateConfig}. */
export interface EstateConfigOptions {
  /** The Atlas of the top-level settings, and the organization it polls. */
  atlasBaseUrl: string;
  orgId: string;
  /** The Ops Manager of the connection `data-centre`, and the projects it polls. */
  opsManagerBaseUrl: string;
  projectIds: readonly string[];
  /** Lines of a `local:` block, each without its indent. */
  local?: readonly string[];
}

/**
 * Writes a run configuration of two connections: the top-level settings on an Atlas, and
 * `data-centre`, an Ops Manager (whose credentials are the variables named `..._DATA_CENTRE`).
 */
export async function writeEstateConfig(path: string, options: EstateConfigOptions): Promise<void> {
  const lines = [
    'atlas:',
    `  baseUrl: ${options.atlasBaseUrl}`,
    'sources:',
    `  orgIds: [${options.orgId}]`,
    'connections:',
    '  - name: data-centre',
    '    flavor: ops-manager',
    `    baseUrl: ${options.opsManagerBaseUrl}`,
    '    sources:',
    `      projectIds: [${options.projectIds.join(', ')}]`,
    ...(options.local === undefined ? [] : ['local:', ...options.local.map((line) => `  ${line}`)]),
    '',
  ];
  await writeFile(path, lines.join('\n'));
}
