import { type MockInstance, vi } from 'vitest';

/** What Powertools wrote while captured: its EMF metric sets and its log lines, parsed. */
export interface OutputCapture {
  /** Every JSON line written to stdout or stderr, parsed, in order. */
  lines(): Record<string, unknown>[];
  /** Everything written, as text. */
  text(): string;
  restore(): void;
}

/**
 * Captures what is written to `process.stdout` and `process.stderr`, where Powertools Metrics (stdout)
 * and Logger (stdout, and stderr for warnings and errors) write through their own `Console`, instead
 * of letting it reach the test output.
 */
export function captureOutput(): OutputCapture {
  const chunks: string[] = [];
  const capture = (chunk: unknown): boolean => {
    chunks.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array).toString('utf8'));
    return true;
  };
  const spies: MockInstance[] = [
    vi.spyOn(process.stdout, 'write').mockImplementation(capture),
    vi.spyOn(process.stderr, 'write').mockImplementation(capture),
  ];
  return {
    text: () => chunks.join(''),
    lines: () =>
      chunks
        .join('')
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as Record<string, unknown>),
    restore: () => {
      for (const spy of spies) spy.mockRestore();
    },
  };
}
