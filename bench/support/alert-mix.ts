import { fileURLToPath } from 'node:url';
import type { AtlasEvent } from '../../shared/atlas/types.js';
import type { Alert } from '../../shared/notify/alert.js';
import type { AlertContext } from '../../shared/notify/alert-context.js';
import { createRuleEngine, loadRulePack, MemoryCounterStore } from '../../shared/rules/index.js';
import { generateEventMix } from './event-mix.js';
import { createRandom } from './random.js';

/**
 * Alerts as the poller hands them to a notifier: the default rule pack evaluated over the benchmark's
 * event mix (see `event-mix.ts`), each alert given the context the poller's describer adds (the
 * organization and project names; for key events, the key's description and roles).
 */

export interface AlertMixOptions {
  /** How many alerts to return. */
  count: number;
  /** The same seed gives the same alerts. */
  seed?: number;
}

const RULES_DIRECTORY = fileURLToPath(new URL('../../rules/', import.meta.url));
/** Events per evaluate call: a page of the Atlas events API. */
const BATCH = 500;
/** About one event in seven raises an alert with the default pack; this many events per alert is ample. */
const EVENTS_PER_ALERT = 10;

/**
 * Evaluates the event mix with the built-in pack until `count` alerts are raised, and returns them.
 *
 * @example
 * ```ts
 * const alerts = await generateAlertMix({ count: 2_000, seed: 7 });
 * ```
 */
export async function generateAlertMix(options: AlertMixOptions): Promise<Alert[]> {
  const seed = options.seed ?? 7;
  const pack = await loadRulePack({
    paths: ['builtin'],
    builtinDirectory: RULES_DIRECTORY,
    version: '0.1.0',
  });
  const engine = createRuleEngine({ pack, counters: new MemoryCounterStore(), firstSeenLearning: false });
  const random = createRandom(seed);
  const describe = async (event: AtlasEvent): Promise<AlertContext> => describeEvent(event, random.next());
  const events = generateEventMix({ count: Math.max(BATCH, options.count * EVENTS_PER_ALERT), seed });
  const alerts: Alert[] = [];
  for (let offset = 0; offset < events.length && alerts.length < options.count; offset += BATCH) {
    alerts.push(...(await engine.evaluate(events.slice(offset, offset + BATCH), { describe })));
  }
  return alerts.slice(0, options.count);
}

/** What the poller's describer would know: names for most ids, the key's details for key events. */
function describeEvent(event: AtlasEvent, roll: number): AlertContext {
  const context: AlertContext = {};
  if (typeof event.orgId === 'string') {
    context.orgId = event.orgId;
    if (roll < 0.9) context.orgName = 'Acme Corp';
  }
  if (typeof event.groupId === 'string') {
    context.projectId = event.groupId;
    if (roll < 0.8) context.projectName = `payments-${event.groupId.slice(-3)}`;
  }
  if (typeof event.targetPublicKey === 'string') {
    context.credential = {
      kind: 'api-key',
      id: event.targetPublicKey,
      description: 'terraform CI',
      roles:
        roll < 0.5 ? ['ORG_OWNER'] : ['ORG_READ_ONLY', `GROUP_READ_ONLY on ${'65f1a2b3c4d5e6f7a8b9c001'}`],
      snapshotTakenAt: Date.UTC(2024, 2, 18),
    };
  }
  return context;
}
