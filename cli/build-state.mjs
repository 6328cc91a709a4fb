// Whether the JavaScript build in dist/ was made from the TypeScript sources as they are now. Plain
// JavaScript, as cli/bin.mjs needs to know before anything TypeScript can run.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** Where `npm run build` records what it built from, relative to the package's folder. */
export const BUILD_INFO_PATH = 'dist/build-info.json';

/**
 * `current` when every input the build recorded (the folders of the compiled sources with the data
 * files beside them, and the tsconfig files) is older than the build's start; `stale` when one was
 * changed, added or removed since; `missing` when there is no complete build (the record is written
 * last, so a build cut short has none).
 *
 * @param {string} root the package's folder
 * @returns {'current' | 'stale' | 'missing'}
 */
export function buildState(root) {
  let info;
  try {
    info = JSON.parse(readFileSync(join(root, BUILD_INFO_PATH), 'utf8'));
  } catch {
    return 'missing';
  }
  const startedAt = info?.startedAt;
  const inputs = info?.inputs;
  if (typeof startedAt !== 'number' || !Array.isArray(inputs)) return 'missing';
  try {
    for (const input of inputs) {
      const path = join(root, input);
      const stats = statSync(path);
      if (stats.mtimeMs > startedAt) return 'stale';
      if (!stats.isDirectory()) continue;
      for (const entry of readdirSync(path, { withFileTypes: true })) {
        if (entry.isFile() && statSync(join(path, entry.name)).mtimeMs > startedAt) return 'stale';
      }
    }
  } catch {
    // An input that is gone: the build was made from other sources.
    return 'stale';
  }
  return 'current';
}
