import { POLLER_CONFIG_ENV, pollerConfigSchema } from '../../shared/poll/poller-config.js';
import { loadBundledRulePack } from './bundled-rule-pack.js';

// Once per container: a configuration or rule pack the poller cannot use fails the cold start, loudly.
export const pollerConfig = pollerConfigSchema.parse(JSON.parse(process.env[POLLER_CONFIG_ENV] ?? '{}'));
export const rulePack = loadBundledRulePack();

/** The Lambda entry point: one poll tick per invocation. */
export async function handler(): Promise<void> {
  throw new Error('The poll tick is not wired in yet');
}
