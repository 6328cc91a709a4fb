import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const PROJECT_ROOT = resolve(fileURLToPath(new URL('../../..', import.meta.url)));

/** The feature flags and default settings of the project's `cdk.json`, as `cdk synth` passes them. */
export function cdkJsonContext(): Record<string, unknown> {
  const cdkJson = JSON.parse(readFileSync(join(PROJECT_ROOT, 'cdk.json'), 'utf8')) as {
    context: Record<string, unknown>;
  };
  return cdkJson.context;
}

/** A rule file that loads, for stacks whose tests are not about rules. */
export const VALID_RULE_FILE = `rules:
  - id: api-key-created
    name: API key created
    severity: high
    match:
      eventTypeName: API_KEY_CREATED
    title: "API key created in {{ orgId }}"
`;

export interface TestWorkspace {
  directory: string;
  /** Writes a file under the workspace and returns its path. */
  write(relativePath: string, text: string): string;
  remove(): void;
}

/**
 * A temporary directory for one test file: rule files, config files and cloud assemblies.
 *
 * @example
 * ```ts
 * const workspace = createTestWorkspace();
 * afterAll(() => workspace.remove());
 * ```
 */
export function createTestWorkspace(): TestWorkspace {
  const directory = mkdtempSync(join(tmpdir(), 'atlas-audit-alerts-infra-'));
  return {
    directory,
    write(relativePath, text) {
      const path = join(directory, relativePath);
      rmSync(path, { force: true });
      writeFileSync(path, text);
      return path;
    },
    remove() {
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
