import { type BacklogBenchOptions, type BacklogBenchResult, runBacklogBenchmark } from './backlog.js';
import {
  type BacklogMemoryBenchOptions,
  type BacklogMemoryBenchResult,
  runBacklogMemoryBenchmark,
} from './backlog-memory.js';
import {
  type ColdStartBenchOptions,
  type ColdStartBenchResult,
  runColdStartBenchmark,
} from './cold-start.js';
import { type DigestBenchOptions, type DigestBenchResult, runDigestBenchmark } from './digest-clients.js';
import { type FanOutBenchOptions, type FanOutBenchResult, runFanOutBenchmark } from './fan-out.js';
import {
  type PagedBacklogBenchOptions,
  type PagedBacklogBenchResult,
  runPagedBacklogBenchmark,
} from './paged-backlog.js';
import {
  type PushLatencyBenchOptions,
  type PushLatencyBenchResult,
  runPushLatencyBenchmark,
} from './push-latency.js';
import { type RulesBenchOptions, type RulesBenchResult, runRulesBenchmark } from './rules.js';
import {
  runSteadyStateBenchmark,
  type SteadyStateBenchOptions,
  type SteadyStateBenchResult,
} from './steady-state.js';
import { currentNodeRuntime, type NodeRuntime } from './support/node-runtime.js';

/** The scenarios of `npm run bench`, in the order they run. */
export const SCENARIOS = [
  'digest',
  'backlog',
  'paged-backlog',
  'backlog-memory',
  'steady-state',
  'rules',
  'cold-start',
  'fan-out',
  'push-latency',
] as const;

export type ScenarioName = (typeof SCENARIOS)[number];

/** Scenarios that run against DynamoDB Local. */
export const DYNAMODB_SCENARIOS: ReadonlySet<ScenarioName> = new Set([
  'backlog',
  'paged-backlog',
  'backlog-memory',
  'steady-state',
  'fan-out',
  'push-latency',
]);

/** The size of each scenario. */
export interface BenchSizes {
  digest: DigestBenchOptions;
  backlog: Omit<BacklogBenchOptions, 'dynamoDbEndpoint'>;
  pagedBacklog: Omit<PagedBacklogBenchOptions, 'dynamoDbEndpoint'>;
  backlogMemory: Omit<BacklogMemoryBenchOptions, 'dynamoDbEndpoint'>;
  steadyState: Omit<SteadyStateBenchOptions, 'dynamoDbEndpoint'>;
  rules: RulesBenchOptions;
  coldStart: ColdStartBenchOptions;
  fanOut: Omit<FanOutBenchOptions, 'dynamoDbEndpoint' | 'onStage'>;
  pushLatency: Omit<PushLatencyBenchOptions, 'dynamoDbEndpoint'>;
}

/** What each scenario reports. */
export interface ScenarioResults {
  digest?: DigestBenchResult;
  backlog?: BacklogBenchResult;
  pagedBacklog?: PagedBacklogBenchResult;
  backlogMemory?: BacklogMemoryBenchResult;
  steadyState?: SteadyStateBenchResult;
  rules?: RulesBenchResult[];
  coldStart?: ColdStartBenchResult;
  fanOut?: FanOutBenchResult;
  pushLatency?: PushLatencyBenchResult;
}

/** What one scenario needs to run: plain data, so that it can cross to the child process it runs in. */
export interface ScenarioInput {
  name: ScenarioName;
  sizes: BenchSizes;
  /** The DynamoDB Local of the run, for the scenarios that use one. */
  dynamoDbEndpoint?: string | undefined;
  /** Other Node executables to time the cold-start import on, beside the one running the scenario. */
  compareNodes?: readonly NodeRuntime[] | undefined;
}

/**
 * Runs one scenario in this process and returns its results, under the key the report keeps them. A
 * scenario that uses DynamoDB Local and is given none starts its own.
 *
 * @throws Error when the scenario fails.
 * @example
 * ```ts
 * const { rules } = await runScenario({ name: 'rules', sizes: QUICK_SIZES });
 * ```
 */
export async function runScenario(input: ScenarioInput): Promise<ScenarioResults> {
  const { name, sizes } = input;
  const endpoint = input.dynamoDbEndpoint === undefined ? {} : { dynamoDbEndpoint: input.dynamoDbEndpoint };
  switch (name) {
    case 'digest':
      return { digest: await runDigestBenchmark(sizes.digest) };
    case 'backlog':
      return { backlog: await runBacklogBenchmark({ ...sizes.backlog, ...endpoint }) };
    case 'paged-backlog':
      return { pagedBacklog: await runPagedBacklogBenchmark({ ...sizes.pagedBacklog, ...endpoint }) };
    case 'backlog-memory':
      return { backlogMemory: await runBacklogMemoryBenchmark({ ...sizes.backlogMemory, ...endpoint }) };
    case 'steady-state':
      return { steadyState: await runSteadyStateBenchmark({ ...sizes.steadyState, ...endpoint }) };
    case 'rules':
      return { rules: await runRulesBenchmark(sizes.rules) };
    case 'cold-start':
      return {
        coldStart: await runColdStartBenchmark({
          ...sizes.coldStart,
          runtimes: [currentNodeRuntime(), ...(input.compareNodes ?? [])],
        }),
      };
    case 'fan-out':
      return { fanOut: await runFanOutBenchmark({ ...sizes.fanOut, ...endpoint }) };
    case 'push-latency':
      return { pushLatency: await runPushLatencyBenchmark({ ...sizes.pushLatency, ...endpoint }) };
  }
}
