import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type * as z from 'zod';
import { SeedValidationError } from './errors.js';
import { type SeedData, seedSchema, type ValidSeed } from './seed-schema.js';

/** The seed the simulator uses when it is given none: two organizations with recent activity. */
export const DEFAULT_SEED_PATH: string = fileURLToPath(new URL('./default-seed.json', import.meta.url));

function formatPath(path: readonly PropertyKey[]): string {
  let text = '';
  for (const part of path) {
    text += typeof part === 'number' ? `[${part}]` : `${text === '' ? '' : '.'}${String(part)}`;
  }
  return text === '' ? '(root)' : text;
}

function describeIssues(issues: readonly z.core.$ZodIssue[]): string[] {
  return issues.flatMap((issue) =>
    issue.code === 'unrecognized_keys'
      ? issue.keys.map((key) => `${formatPath([...issue.path, key])}: unknown field (check its spelling)`)
      : [`${formatPath(issue.path)}: ${issue.message}`],
  );
}

/**
 * Validates seed data (already parsed from JSON) against the seed schema, including cross-references
 * (a project's org, a role's org or project, unique ids and public keys).
 *
 * @throws {SeedValidationError} naming `source` and every problem with its field path.
 * @example
 * ```ts
 * const seed = parseSeed(JSON.parse(text), 'my-seed.json');
 * ```
 */
export function parseSeed(input: unknown, source: string): ValidSeed {
  const result = seedSchema.safeParse(input);
  if (!result.success) {
    const issues = describeIssues(result.error.issues);
    const shown = issues.slice(0, 10).join('; ');
    const more = issues.length > 10 ? `; and ${issues.length - 10} more` : '';
    throw new SeedValidationError(
      `Seed data from ${source} is invalid: ${shown}${more}. Fix these fields (see simulator/default-seed.json for a valid example).`,
      { cause: result.error, issues },
    );
  }
  return result.data;
}

/**
 * Reads and validates a seed JSON file.
 *
 * @throws {SeedValidationError} when the file cannot be read, is not JSON, or breaks the schema.
 * @example
 * ```ts
 * const seed = await loadSeedFile(DEFAULT_SEED_PATH);
 * ```
 */
export async function loadSeedFile(path: string): Promise<ValidSeed> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new SeedValidationError(`Cannot read seed file ${path}: ${reason}. Check the path.`, {
      cause: error,
    });
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new SeedValidationError(`Seed file ${path} is not valid JSON: ${reason}.`, { cause: error });
  }
  return parseSeed(json, path);
}

/**
 * Resolves the `seed` option of the simulator: seed data given inline, a path to a seed file, or the
 * default seed when absent.
 *
 * @throws {SeedValidationError} as `loadSeedFile` and `parseSeed` do.
 * @example
 * ```ts
 * const seed = await resolveSeed(undefined); // the default seed
 * ```
 */
export async function resolveSeed(seed: SeedData | string | undefined): Promise<ValidSeed> {
  if (seed === undefined) {
    return loadSeedFile(DEFAULT_SEED_PATH);
  }
  if (typeof seed === 'string') {
    return loadSeedFile(seed);
  }
  return parseSeed(seed, 'the seed option');
}
