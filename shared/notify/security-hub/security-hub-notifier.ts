import {
  type AwsSecurityFinding,
  BatchImportFindingsCommand,
  type BatchImportFindingsResponse,
  type SecurityHubClient,
} from '@aws-sdk/client-securityhub';
import type { Clock } from '../../clock.js';
import { type Logger, silentLogger } from '../../logger.js';
import type { Alert } from '../alert.js';
import { NotifyConfigError } from '../errors.js';
import { assertConsoleLinks } from '../event-links.js';
import { type ConsoleLinkOptions, type FormatContext, formatContextAt } from '../format-context.js';
import { type Notifier, PublishFailureCode, type PublishOptions, type PublishResult } from '../notifier.js';
import { failedResult } from '../prepare-entries.js';
import { RetryBackoff, type RetryOptions } from '../retry-backoff.js';
import { assertSecurityHubTarget, type SecurityHubTarget, toAsffFinding } from './asff-finding.js';
import { MAX_REQUESTS_PER_SECOND } from './asff-limits.js';
import { chunkFindings } from './finding-batches.js';
import { classifyFailedFinding, classifySecurityHubCallError } from './security-hub-failure.js';
import { asffFindingBytes, validateAsffFinding } from './validate-asff-finding.js';

/** How the notifier sends again what the service did not take (see `RetryBackoff`). */
export type SecurityHubRetryOptions = RetryOptions;

export interface SecurityHubNotifierOptions {
  /** Created once per container by the caller. */
  client: SecurityHubClient;
  /** The account the findings belong to and are imported from (its `default` product): 12 digits. */
  accountId: string;
  /** The Region of the findings' product ARN. Default: the client's Region; when given, it must be that Region. */
  region?: string;
  /** The account's partition. Default `aws`. */
  partition?: string;
  /** The waits between rounds and requests. */
  clock: Clock;
  /** Where each finding's `SourceUrl` points; without it, findings carry no `SourceUrl`. */
  console?: ConsoleLinkOptions;
  /** Where the console links of each connection's alerts point, by connection (see `FormatContext`). */
  connectionConsoles?: ReadonlyMap<string, ConsoleLinkOptions>;
  retry?: SecurityHubRetryOptions;
  /** Most `BatchImportFindings` requests a second, across publish calls. Default 10, Security Hub's rate. */
  maxRequestsPerSecond?: number;
  logger?: Logger;
  /** Jitter source in [0, 1); tests pass a fixed one. Default `Math.random`. */
  random?: () => number;
}

/** An alert whose finding passed the validator, with its position in the caller's list. */
interface Pending {
  index: number;
  alert: Alert;
  finding: AwsSecurityFinding;
  id: string;
  bytes: number;
  /** Why the last attempt did not import it. */
  lastFailure?: { code: string; message: string };
}

type Results = Array<PublishResult | undefined>;
type Stop = { code: string; message: string };

/**
 * Imports alerts into Security Hub as ASFF findings (see `toAsffFinding`) with `BatchImportFindings`,
 * into the account's own `default` product. Each finding is checked with `validateAsffFinding` (an
 * invalid one fails for good, alone); the rest go in requests of at most 100 findings and 6 MB, at
 * most `maxRequestsPerSecond` requests a second on the injected clock.
 *
 * Every answer's `FailedFindings` is read, finding by finding: one Security Hub refuses for its content
 * (`InvalidInput`) fails for good (`retryable: false`); one it failed on inside (`InternalFailure`,
 * throttling, any code not known) is sent again in a later round, alone with the others that failed,
 * in up to `maxAttempts` rounds with exponential backoff and jitter. Whole calls that fail on
 * throttling, a server error or the network are sent again the same way; a request refused for its
 * content is split into single findings to find the one at fault.
 *
 * A misconfiguration a person must fix (Security Hub not enabled in the Region, the account not
 * subscribed to its `default` product, IAM denying `securityhub:BatchImportFindings`, a Region that is
 * not the client's) stops the call and leaves every alert not yet imported retryable: it costs a held
 * cursor, which the `WatermarkLag` alarm reports, rather than findings silently lost for good. It
 * never stalls forever on its own: the next tick imports everything once it is fixed.
 *
 * Importing a finding again is harmless: its `Id` is stable and its `UpdatedAt` unchanged, so Security
 * Hub holds one finding however often it is sent. Messages never hold a finding's content.
 *
 * @example
 * ```ts
 * const notifier = new SecurityHubNotifier({ client: new SecurityHubClient({}), accountId, clock: systemClock });
 * const results = await notifier.publish(alerts, { signal });
 * ```
 */
export class SecurityHubNotifier implements Notifier {
  readonly #client: SecurityHubClient;
  readonly #accountId: string;
  readonly #region: string | undefined;
  readonly #partition: string | undefined;
  readonly #clock: Clock;
  readonly #console: ConsoleLinkOptions | undefined;
  readonly #connectionConsoles: ReadonlyMap<string, ConsoleLinkOptions> | undefined;
  readonly #logger: Logger;
  readonly #retry: RetryBackoff;
  readonly #requestIntervalMs: number;
  /** When the next request may start, on the clock: requests are paced across publish calls. */
  #nextRequestAt = Number.NEGATIVE_INFINITY;
  #target: Promise<SecurityHubTarget | Stop> | undefined;

  /**
   * @throws {NotifyConfigError} when the account id, Region, partition, console base URL, rate or a
   *   retry setting is invalid.
   */
  constructor(options: SecurityHubNotifierOptions) {
    assertSecurityHubTarget({
      accountId: options.accountId,
      // Without a Region of its own, the client's is checked when first known.
      region: options.region ?? 'us-east-1',
      ...(options.partition === undefined ? {} : { partition: options.partition }),
    });
    assertConsoleLinks(options.console);
    for (const links of options.connectionConsoles?.values() ?? []) assertConsoleLinks(links);
    this.#retry = new RetryBackoff(options.retry, options.random);
    const rate = options.maxRequestsPerSecond ?? MAX_REQUESTS_PER_SECOND;
    if (!Number.isFinite(rate) || rate <= 0 || rate > MAX_REQUESTS_PER_SECOND) {
      throw new NotifyConfigError(
        `maxRequestsPerSecond is ${rate}: pass a number above 0 and at most ${MAX_REQUESTS_PER_SECOND}, Security Hub's rate for BatchImportFindings`,
      );
    }
    this.#requestIntervalMs = 1_000 / rate;
    this.#client = options.client;
    this.#accountId = options.accountId;
    this.#region = options.region;
    this.#partition = options.partition;
    this.#clock = options.clock;
    this.#console = options.console;
    this.#connectionConsoles = options.connectionConsoles;
    this.#logger = options.logger ?? silentLogger;
  }

  async publish(alerts: readonly Alert[], options: PublishOptions = {}): Promise<PublishResult[]> {
    if (alerts.length === 0) return [];
    const { signal } = options;
    const results: Results = new Array(alerts.length);
    const target = await this.#resolveTarget();
    if ('code' in target) {
      this.#logger.error('Security Hub findings cannot be imported: check the notifier settings', {
        code: target.code,
        error: target.message,
      });
      return alerts.map((alert) => failedResult(alert, { retryable: true, ...target }));
    }
    const context = formatContextAt(this.#clock.now(), this.#console, this.#connectionConsoles);
    let pending = this.#prepare(alerts, target, context, results);

    for (let attempt = 1; pending.length > 0; attempt++) {
      const round = await this.#sendRound(pending, results, signal);
      pending = round.retry;
      if (pending.length === 0 || round.stopped || signal?.aborted || attempt >= this.#retry.maxAttempts)
        break;
      const delayMs = this.#retry.delayAfter(attempt);
      this.#logger.warn('Security Hub did not import every finding; sending the rest again', {
        attempt,
        alerts: pending.length,
        codes: [...new Set(pending.map((item) => item.lastFailure?.code))],
        delayMs,
      });
      try {
        await this.#clock.sleep(delayMs, signal);
      } catch {
        break;
      }
    }

    for (const item of pending) {
      const aborted = signal?.aborted === true;
      results[item.index] = failedResult(item.alert, {
        retryable: true,
        code: aborted
          ? PublishFailureCode.aborted
          : (item.lastFailure?.code ?? PublishFailureCode.missingResult),
        message: aborted
          ? 'publishing was aborted before Security Hub imported this finding'
          : `Security Hub did not import this finding: ${item.lastFailure?.message ?? 'no answer'}`,
      });
    }
    return results.map(
      (result, index) =>
        result ??
        failedResult(alerts[index] as Alert, {
          retryable: true,
          code: PublishFailureCode.missingResult,
          message: 'no result was recorded for this alert',
        }),
    );
  }

  /** The account, Region and partition of the product ARN, or why there are none. */
  #resolveTarget(): Promise<SecurityHubTarget | Stop> {
    this.#target ??= (async (): Promise<SecurityHubTarget | Stop> => {
      let clientRegion: string | undefined;
      try {
        clientRegion = await this.#client.config.region();
      } catch {
        clientRegion = undefined;
      }
      const region = this.#region ?? clientRegion;
      if (region === undefined) {
        return {
          code: 'REGION_UNKNOWN',
          message: 'the Security Hub client has no Region: give the client or the notifier one',
        };
      }
      if (clientRegion !== undefined && region !== clientRegion) {
        return {
          code: 'REGION_MISMATCH',
          message: `the notifier's Region ${region} is not its client's Region ${clientRegion}: Security Hub refuses findings whose product ARN names another Region; pass the same Region to both`,
        };
      }
      const target: SecurityHubTarget = {
        accountId: this.#accountId,
        region,
        ...(this.#partition === undefined ? {} : { partition: this.#partition }),
      };
      try {
        assertSecurityHubTarget(target);
      } catch (error) {
        return { code: 'INVALID_TARGET', message: (error as Error).message };
      }
      return target;
    })();
    return this.#target;
  }

  /** Builds and checks each alert's finding: permanent failures go in `results`, the rest are returned. */
  #prepare(
    alerts: readonly Alert[],
    target: SecurityHubTarget,
    context: FormatContext,
    results: Results,
  ): Pending[] {
    const pending: Pending[] = [];
    alerts.forEach((alert, index) => {
      let finding: AwsSecurityFinding;
      try {
        finding = toAsffFinding(alert, { ...target, context });
      } catch (error) {
        this.#logger.error('building a Security Hub finding failed', {
          ruleId: alert.ruleId,
          error: String(error),
        });
        results[index] = failedResult(alert, {
          retryable: false,
          code: PublishFailureCode.formatFailed,
          message: `building the finding failed: ${String(error).slice(0, 300)}`,
        });
        return;
      }
      const validation = validateAsffFinding(finding);
      if (!validation.valid) {
        this.#logger.error('a finding breaks the ASFF rules and is not imported', {
          ruleId: alert.ruleId,
          problems: validation.problems,
        });
        results[index] = failedResult(alert, {
          retryable: false,
          code: PublishFailureCode.invalidEntry,
          message: `the ASFF finding is invalid: ${validation.problems.join('; ')}`.slice(0, 1_000),
        });
        return;
      }
      pending.push({ index, alert, finding, id: finding.Id as string, bytes: asffFindingBytes(finding) });
    });
    return pending;
  }

  /** Sends every pending finding once; returns those worth another round. */
  async #sendRound(
    pending: readonly Pending[],
    results: Results,
    signal: AbortSignal | undefined,
  ): Promise<{ retry: Pending[]; stopped: boolean }> {
    const retry: Pending[] = [];
    let stopped: Stop | undefined;
    for (const batch of chunkFindings(pending)) {
      if (stopped !== undefined) {
        for (const item of batch)
          results[item.index] = failedResult(item.alert, { retryable: true, ...stopped });
        continue;
      }
      if (signal?.aborted || !(await this.#pace(signal))) {
        retry.push(...batch);
        continue;
      }
      stopped = await this.#sendBatch(batch, results, retry, signal);
    }
    return { retry, stopped: stopped !== undefined };
  }

  /**
   * Waits until a request may start, keeping requests `1 / maxRequestsPerSecond` apart: then no second
   * holds more than the rate. The slot is taken before the wait, so calls that overlap still keep
   * apart. `false` when the signal aborted the wait.
   */
  async #pace(signal: AbortSignal | undefined): Promise<boolean> {
    const now = this.#clock.now();
    const at = Math.max(now, this.#nextRequestAt);
    this.#nextRequestAt = at + this.#requestIntervalMs;
    if (at <= now) return true;
    try {
      await this.#clock.sleep(Math.ceil(at - now), signal);
      return true;
    } catch {
      return false;
    }
  }

  /**
   * Sends one request and sorts its findings into results and `retry`. Returns the failure that should
   * stop the whole call (a misconfiguration), if any.
   */
  async #sendBatch(
    batch: readonly Pending[],
    results: Results,
    retry: Pending[],
    signal: AbortSignal | undefined,
  ): Promise<Stop | undefined> {
    let output: BatchImportFindingsResponse;
    try {
      output = await this.#client.send(
        new BatchImportFindingsCommand({ Findings: batch.map((item) => item.finding) }),
        signal === undefined ? {} : { abortSignal: signal },
      );
    } catch (error) {
      const failure = classifySecurityHubCallError(error, signal);
      const reason = { code: failure.code, message: failure.message };
      if (failure.kind === 'findings' && batch.length > 1) {
        for (const item of batch) {
          if (signal?.aborted || !(await this.#pace(signal))) {
            retry.push(item);
            continue;
          }
          const stop = await this.#sendBatch([item], results, retry, signal);
          if (stop !== undefined) {
            const rest = batch.slice(batch.indexOf(item) + 1);
            for (const other of rest)
              results[other.index] = failedResult(other.alert, { retryable: true, ...stop });
            return stop;
          }
        }
        return undefined;
      }
      if (failure.kind === 'findings') {
        this.#logger.error('Security Hub refused a finding', {
          ruleId: batch[0]?.alert.ruleId,
          code: failure.code,
          error: failure.message,
        });
        for (const item of batch)
          results[item.index] = failedResult(item.alert, { retryable: false, ...reason });
        return undefined;
      }
      if (failure.kind === 'configuration') {
        this.#logConfiguration(failure.code, failure.message);
        for (const item of batch)
          results[item.index] = failedResult(item.alert, { retryable: true, ...reason });
        return reason;
      }
      for (const item of batch) {
        item.lastFailure = reason;
        retry.push(item);
      }
      return undefined;
    }

    const byId = new Map(batch.map((item) => [item.id, item]));
    const failedIds = new Set<string>();
    let stop: Stop | undefined;
    for (const failed of output.FailedFindings ?? []) {
      const item = failed.Id === undefined ? undefined : byId.get(failed.Id);
      if (item === undefined || failedIds.has(item.id)) continue;
      failedIds.add(item.id);
      const failure = classifyFailedFinding(failed);
      const reason = { code: failure.code, message: failure.message };
      if (failure.kind === 'invalid') {
        this.#logger.error('Security Hub refused a finding', {
          ruleId: item.alert.ruleId,
          code: failure.code,
          error: failure.message,
        });
        results[item.index] = failedResult(item.alert, { retryable: false, ...reason });
      } else if (failure.kind === 'configuration') {
        stop ??= reason;
        results[item.index] = failedResult(item.alert, { retryable: true, ...reason });
      } else {
        item.lastFailure = reason;
        retry.push(item);
      }
    }
    if (stop !== undefined) this.#logConfiguration(stop.code, stop.message);
    // Security Hub lists only the findings it failed; the counts tell whether it took all the others.
    const accounted =
      typeof output.SuccessCount !== 'number' || output.SuccessCount + failedIds.size >= batch.length;
    for (const item of batch) {
      if (failedIds.has(item.id)) continue;
      if (accounted) {
        results[item.index] = { status: 'sent', fingerprint: item.alert.fingerprint };
      } else {
        item.lastFailure = {
          code: PublishFailureCode.missingResult,
          message: `Security Hub counted ${output.SuccessCount} findings imported and ${failedIds.size} failed of ${batch.length} sent`,
        };
        retry.push(item);
      }
    }
    return stop;
  }

  #logConfiguration(code: string, message: string): void {
    this.#logger.error(
      'Security Hub refused the import: check that Security Hub is enabled in this Region and that the role may call securityhub:BatchImportFindings',
      { code, error: message },
    );
  }
}
