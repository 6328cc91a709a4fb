import { parseDeployConfig } from '../../../infra/config.js';
import { DeployConfigError } from '../../../infra/errors.js';

/**
 * The problems `parseDeployConfig` finds in `input`, each with its path and message.
 *
 * @throws Error when the configuration is accepted: the caller expected problems.
 */
export function problemsOf(input: unknown): { path: string; message: string }[] {
  try {
    parseDeployConfig({ input, origin: 'test settings' });
  } catch (error) {
    if (error instanceof DeployConfigError) return [...error.problems];
    throw error;
  }
  throw new Error('The configuration was accepted');
}
