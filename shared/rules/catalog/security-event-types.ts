import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import * as z from 'zod';

/** The curated list, `security-event-types.yaml` next to this file. */
export const SECURITY_EVENT_TYPES_FILE = fileURLToPath(
  new URL('./security-event-types.yaml', import.meta.url),
);

/**
 * Which fields a rule needs to alert on the type: those the official v2 schema declares (`v2`), or
 * those of the API document this project implements, which Ops Manager and Cloud Manager send
 * (`api-document`).
 */
export type SecurityEventShape = 'v2' | 'api-document';

/** One security-relevant event type and why it matters. */
export interface SecurityEventType {
  readonly type: string;
  readonly area: string;
  /** One line: why a security team must hear about it. */
  readonly reason: string;
  readonly shape: SecurityEventShape;
}

/** The curated list: areas in file order, each with its types in file order. */
export interface SecurityEventTypes {
  readonly areas: readonly { readonly area: string; readonly types: readonly SecurityEventType[] }[];
  /** Every listed type by name. */
  readonly types: ReadonlyMap<string, SecurityEventType>;
}

/** The curated list is unreadable, malformed, or names a type twice. */
export class SecurityEventTypesError extends Error {
  readonly code = 'SECURITY_EVENT_TYPES_INVALID';
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'SecurityEventTypesError';
  }
}

const listSchema = z.strictObject({
  areas: z
    .array(
      z.strictObject({
        area: z.string().min(1),
        types: z
          .array(
            z.strictObject({
              type: z
                .string()
                .regex(/^[A-Z][A-Z0-9_]*$/, 'an event type is written in capitals, like GROUP_DELETED'),
              reason: z
                .string()
                .min(1)
                .refine((reason) => !reason.includes('\n'), 'a reason is one line'),
              shape: z.enum(['v2', 'api-document']).optional(),
            }),
          )
          .min(1),
      }),
    )
    .min(1),
});

let loaded: SecurityEventTypes | undefined;

/**
 * The committed list, read once per process.
 *
 * @throws {SecurityEventTypesError} when the file is missing or malformed.
 * @example
 * ```ts
 * loadSecurityEventTypes().types.get('ORG_USERS_WITHOUT_MFA')?.area; // 'Organization posture and identity'
 * ```
 */
export function loadSecurityEventTypes(): SecurityEventTypes {
  if (loaded !== undefined) return loaded;
  let text: string;
  try {
    text = readFileSync(SECURITY_EVENT_TYPES_FILE, 'utf8');
  } catch (error) {
    throw new SecurityEventTypesError(
      `cannot read the list of security-relevant event types ${SECURITY_EVENT_TYPES_FILE}: restore it from the repository`,
      { cause: error },
    );
  }
  loaded = parseSecurityEventTypes(text, SECURITY_EVENT_TYPES_FILE);
  return loaded;
}

/**
 * Reads a list of security-relevant event types from YAML text.
 *
 * @throws {SecurityEventTypesError} when the text is not YAML, does not have the list's shape, or names
 *   a type twice; the message names the file and the entry.
 * @example
 * ```ts
 * const list = parseSecurityEventTypes('areas:\n  - area: Access\n    types:\n      - { type: API_KEY_CREATED, reason: A new credential. }\n', 'list.yaml');
 * list.types.has('API_KEY_CREATED'); // true
 * ```
 */
export function parseSecurityEventTypes(text: string, file: string): SecurityEventTypes {
  let document: unknown;
  try {
    document = parse(text);
  } catch (error) {
    throw new SecurityEventTypesError(
      `${file} is not valid YAML (${error instanceof Error ? error.message.split('\n')[0] : String(error)}): fix the file`,
      { cause: error },
    );
  }
  const parsed = listSchema.safeParse(document);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.join('.') ?? '';
    throw new SecurityEventTypesError(
      `${file}${where === '' ? '' : ` at ${where}`}: ${issue?.message ?? 'invalid'}; each area has an area name and types, each type { type, reason, shape? }`,
    );
  }
  const types = new Map<string, SecurityEventType>();
  const areas = parsed.data.areas.map(({ area, types: entries }) => ({
    area,
    types: entries.map(({ type, reason, shape }): SecurityEventType => {
      const previous = types.get(type);
      if (previous !== undefined) {
        throw new SecurityEventTypesError(
          `${file}: ${type} is listed twice (in "${previous.area}" and "${area}"): keep one entry`,
        );
      }
      const entry = { type, area, reason, shape: shape ?? 'v2' };
      types.set(type, entry);
      return entry;
    }),
  }));
  return { areas, types };
}
