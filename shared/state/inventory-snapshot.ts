import * as z from 'zod';
import type { AtlasAccessListEntry, AtlasApiKey } from '../atlas/types.js';
import { StateItemCorruptError } from './errors.js';

/** One API key of an organization with its access list, as a snapshot holds it. */
export interface InventoryApiKeyEntry {
  /** The key as the Atlas client returned it; the store never keeps its `privateKey`. */
  apiKey: AtlasApiKey;
  accessList: AtlasAccessListEntry[];
}

/** An organization's API keys and their access lists at one moment. */
export interface InventorySnapshot {
  orgId: string;
  /** When the snapshot was taken, in milliseconds since the epoch. */
  takenAt: number;
  apiKeys: InventoryApiKeyEntry[];
}

/** The field the store never keeps, at any depth of a snapshot. */
const SECRET_FIELD = 'privateKey';

/**
 * A deep copy of `snapshot` without any `privateKey` field. The Atlas client already masks private
 * keys; the store removes them again so that a change upstream can never put one into the table.
 *
 * @example
 * ```ts
 * withoutPrivateKeys(snapshot).apiKeys[0]?.apiKey.privateKey; // undefined
 * ```
 */
export function withoutPrivateKeys(snapshot: InventorySnapshot): InventorySnapshot {
  return stripSecrets(snapshot) as InventorySnapshot;
}

function stripSecrets(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(stripSecrets);
  if (typeof value !== 'object' || value === null) return value;
  const copy: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(value)) {
    if (key === SECRET_FIELD) continue;
    // Defined as own data properties so that a key named `__proto__` stays data, not a prototype.
    Object.defineProperty(copy, key, {
      value: stripSecrets(field),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return copy;
}

const inventorySnapshotSchema = z.object({
  orgId: z.string(),
  takenAt: z.number(),
  apiKeys: z.array(
    z.object({
      apiKey: z.looseObject({ id: z.string() }),
      accessList: z.array(z.looseObject({})),
    }),
  ),
});

/**
 * Narrows a stored snapshot (parsed JSON) to an {@link InventorySnapshot}, without any `privateKey`.
 *
 * @throws StateItemCorruptError when the value does not have a snapshot's shape; `where` names the
 * item or file in the message.
 *
 * @example
 * ```ts
 * const snapshot = parseInventorySnapshot(JSON.parse(text), 'state.json');
 * ```
 */
export function parseInventorySnapshot(value: unknown, where: string): InventorySnapshot {
  const parsed = inventorySnapshotSchema.safeParse(value);
  if (!parsed.success) {
    throw new StateItemCorruptError(
      `the inventory snapshot in ${where} does not have the expected shape (${parsed.error.issues[0]?.message ?? 'invalid'}): ` +
        'delete it; the next snapshot sets a new baseline',
      { cause: parsed.error },
    );
  }
  return withoutPrivateKeys(parsed.data as InventorySnapshot);
}
