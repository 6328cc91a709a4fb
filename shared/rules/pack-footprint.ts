import { performance } from 'node:perf_hooks';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { lambdaHeapLimits } from '../lambda-heap.js';
import { createRuleEngine } from './engine.js';
import { RulePackTooLargeError } from './errors.js';
import { MemoryCounterStore } from './memory-counter-store.js';
import { deserializeRulePack, type RulePack, serializeRulePack } from './rule-pack.js';

/**
 * The most of a function's heap (its old space, where long-lived structures live) that the loaded rule
 * pack may hold. The rest is the tick's: a fifth for the events it holds (`HEAP_SHARE_FOR_EVENTS`),
 * and the code, the SDK clients, the pages being parsed, the alerts, and the collector's headroom.
 */
export const RULE_PACK_HEAP_SHARE = 0.25;

/** What loading a pack as the function does costs: its size, the heap it holds, the time it took. */
export interface RulePackFootprint {
  readonly rules: number;
  readonly exceptions: number;
  /** The serialized pack, in bytes: the text the function bundle carries. */
  readonly serializedBytes: number;
  /** The heap the loaded pack holds once the collector has run: its text, the pack and the compiled rules. */
  readonly heapBytes: number;
  /** The time reading and compiling it took here, in milliseconds (the function's CPU may be slower). */
  readonly loadMs: number;
}

/**
 * Loads a pack as the function does at its cold start (the serialized text read back, checked, and
 * compiled into an engine) and measures the heap that holds, between two full collections.
 *
 * @example
 * ```ts
 * const footprint = measureRulePackFootprint(await loadRulePack({ paths }));
 * console.log(`${(footprint.heapBytes / 2 ** 20).toFixed(1)} MiB`);
 * ```
 */
export function measureRulePackFootprint(pack: RulePack): RulePackFootprint {
  const gc = garbageCollector();
  // Twice: what a weak reference or a finalizer kept through the first collection goes in the second.
  const collect = (): void => {
    gc();
    gc();
  };
  collect();
  const before = process.memoryUsage().heapUsed;
  // The text is counted: the bundle holds it as a string for as long as the function lives.
  const text = JSON.stringify(serializeRulePack(pack));
  const started = performance.now();
  const loaded = deserializeRulePack(JSON.parse(text) as unknown);
  const engine = createRuleEngine({ pack: loaded, counters: new MemoryCounterStore() });
  const loadMs = performance.now() - started;
  holding.push(text, loaded, engine);
  collect();
  const heapBytes = Math.max(0, process.memoryUsage().heapUsed - before);
  holding.length = 0;
  return {
    rules: loaded.rules.length,
    exceptions: loaded.exceptions.length,
    serializedBytes: Buffer.byteLength(text),
    heapBytes,
    loadMs,
  };
}

/** What a measurement holds while the collector runs, so that none of it is collected early. */
const holding: unknown[] = [];

/**
 * The most heap a pack may hold in a function of `memoryMiB`: {@link RULE_PACK_HEAP_SHARE} of its
 * old space.
 *
 * @example
 * ```ts
 * rulePackHeapBudget(256); // 60555264: a quarter of the 231 MiB old space of a 256 MiB function
 * ```
 */
export function rulePackHeapBudget(memoryMiB: number): number {
  return Math.floor(lambdaHeapLimits(memoryMiB).oldSpaceMiB * 2 ** 20 * RULE_PACK_HEAP_SHARE);
}

/**
 * Refuses a pack whose footprint does not fit a function of `memoryMiB`, with the figures.
 *
 * @throws {RulePackTooLargeError} when the pack holds more than {@link rulePackHeapBudget}.
 * @example
 * ```ts
 * checkRulePackFootprint(measureRulePackFootprint(pack), { memoryMiB: 256, memorySetting: 'poller.memoryMiB' });
 * ```
 */
export function checkRulePackFootprint(
  footprint: RulePackFootprint,
  options: {
    readonly memoryMiB: number;
    /** Where the memory is set, for the message: `poller.memoryMiB`, or `--memory` on the command line. */
    readonly memorySetting: string;
  },
): void {
  const budget = rulePackHeapBudget(options.memoryMiB);
  if (footprint.heapBytes <= budget) return;
  const { oldSpaceMiB } = lambdaHeapLimits(options.memoryMiB);
  throw new RulePackTooLargeError(
    `The rule pack would not fit the function: loaded, its ${count(footprint.rules, 'rule')} and ${count(footprint.exceptions, 'exception')} (${mib(footprint.serializedBytes)} serialized) hold ${mib(footprint.heapBytes)} of heap (compiled in ${(footprint.loadMs / 1000).toFixed(1)} s here), and a ${options.memoryMiB} MiB function gives its rules at most ${mib(budget)}, a quarter of its ${oldSpaceMiB} MiB heap: the rest holds the events of a tick. Write fewer, broader rules and exceptions (one exception with a list or a regex rather than one per value), or give the function more memory (${options.memorySetting}).`,
    { footprint, budgetBytes: budget, memoryMiB: options.memoryMiB },
  );
}

/**
 * The collector, callable: `gc` when the process runs with `--expose-gc`, else made callable for this
 * once in a fresh context (the flag is turned off again), so that two readings compare live data only.
 */
function garbageCollector(): () => void {
  const exposed = (globalThis as { gc?: unknown }).gc;
  if (typeof exposed === 'function') return exposed as () => void;
  setFlagsFromString('--expose-gc');
  try {
    return runInNewContext('gc') as () => void;
  } finally {
    setFlagsFromString('--no-expose-gc');
  }
}

function mib(bytes: number): string {
  return `${(bytes / 2 ** 20).toFixed(1)} MiB`;
}

function count(value: number, noun: string): string {
  return `${value.toLocaleString('en-US')} ${noun}${value === 1 ? '' : 's'}`;
}
