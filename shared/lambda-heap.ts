/**
 * The V8 heap limits the AWS Lambda Node.js runtime starts a function with, from its memory size: a
 * tenth of the memory for the young generation (half of it per semi-space), the rest for the old one.
 * Node's own defaults size the heap from the machine's memory, so on a large machine the collector runs
 * late and a process grows far past what it would be allowed in Lambda.
 */
export interface LambdaHeapLimits {
  /** `--max-semi-space-size`, in MiB. */
  readonly semiSpaceMiB: number;
  /** `--max-old-space-size`, in MiB: what a long-lived structure such as the compiled rules lives in. */
  readonly oldSpaceMiB: number;
}

/**
 * The heap limits of a Lambda function of `memoryMiB`.
 *
 * @example
 * ```ts
 * lambdaHeapLimits(256); // { semiSpaceMiB: 12, oldSpaceMiB: 231 }
 * ```
 */
export function lambdaHeapLimits(memoryMiB: number): LambdaHeapLimits {
  const newSpace = Math.floor(memoryMiB / 10);
  return { semiSpaceMiB: Math.floor(newSpace / 2), oldSpaceMiB: memoryMiB - newSpace };
}

/**
 * The Node options that give a process the heap limits of a Lambda function of `memoryMiB`.
 *
 * @example
 * ```ts
 * lambdaHeapOptions(256); // ['--max-semi-space-size=12', '--max-old-space-size=231']
 * ```
 */
export function lambdaHeapOptions(memoryMiB: number): string[] {
  const { semiSpaceMiB, oldSpaceMiB } = lambdaHeapLimits(memoryMiB);
  return [`--max-semi-space-size=${semiSpaceMiB}`, `--max-old-space-size=${oldSpaceMiB}`];
}
