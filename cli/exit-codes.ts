import { ExitCode, type ExitCodeValue } from './errors.js';

/**
 * The exit code for an error that reached the top of the command: the error's own `exitCode` where
 * it has one, else 1.
 */
export function exitCodeFor(error: unknown): ExitCodeValue {
  if (typeof error === 'object' && error !== null && 'exitCode' in error) {
    const code = (error as { exitCode: unknown }).exitCode;
    if (typeof code === 'number' && (Object.values(ExitCode) as number[]).includes(code)) {
      return code as ExitCodeValue;
    }
  }
  return ExitCode.failed;
}
