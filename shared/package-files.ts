import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The folder of the atlas-audit-alerts package: the one that holds its package.json and its rule
 * pack. This module runs from the TypeScript sources (`shared/`) in a checkout and from the build
 * (`dist/shared/`) in an installed package, so the folder is found by walking up to the first
 * package.json rather than at a fixed depth.
 */
export const PACKAGE_ROOT: string = findPackageRoot(dirname(fileURLToPath(import.meta.url)));

/** The rule pack shipped with the package: what the layer `builtin` names. Ends with a separator. */
export const BUILT_IN_RULES_DIRECTORY: string = join(PACKAGE_ROOT, 'rules/');

/** The version of the package, and so of its built-in pack, from package.json; undefined if unreadable. */
export const PACKAGE_VERSION: string | undefined = readPackageVersion();

function findPackageRoot(from: string): string {
  for (let directory = from; ; directory = dirname(directory)) {
    if (existsSync(join(directory, 'package.json'))) return directory;
    // The file system's root: no package.json above this module, so the layout is the checkout's.
    if (dirname(directory) === directory) return dirname(from);
  }
}

function readPackageVersion(): string | undefined {
  try {
    const manifest: unknown = JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8'));
    const version = (manifest as { version?: unknown } | null)?.version;
    return typeof version === 'string' ? version : undefined;
  } catch {
    return undefined;
  }
}
