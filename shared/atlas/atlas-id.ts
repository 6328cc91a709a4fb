/**
 * An Atlas organization or project id: 24 lowercase hexadecimal characters (an ObjectId). A module of
 * its own, free of the schema library, so the command line checks ids without loading it.
 *
 * @example
 * ```ts
 * ATLAS_ID_PATTERN.test('5f4e3d2c1b0a998877665544'); // true
 * ```
 */
export const ATLAS_ID_PATTERN = /^[0-9a-f]{24}$/;
