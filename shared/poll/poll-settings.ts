import * as z from 'zod';
import { ATLAS_ID_PATTERN } from '../atlas/atlas-id.js';

/** Atlas organization and project ids are 24 hexadecimal characters (ObjectIds). */
export const atlasIdSchema = z
  .string()
  .regex(ATLAS_ID_PATTERN, 'must be a 24-character hexadecimal Atlas id, such as 5f4e3d2c1b0a998877665544');

export const atlasFlavorSchema = z.enum(['ops-manager', 'atlas-v1', 'atlas-v2']);

/** Which orgs and projects a tick polls. */
export const sourcesSchema = z.strictObject({
  /** Organizations whose org-level events (and API key inventory) are polled. */
  orgIds: z.array(atlasIdSchema).default([]),
  /** Projects whose project events are polled. */
  projectIds: z.array(atlasIdSchema).default([]),
  /** Also poll every project of each org in `orgIds`, discovered through `/orgs/{orgId}/groups`. */
  allProjectsOfOrgs: z.boolean().default(false),
  /**
   * Also read the database access history (authentication attempts) of every dedicated cluster of
   * the projects polled: the credentials need Project Cluster Log Viewer (or Project Database Access
   * Admin) on them. Atlas only: Ops Manager keeps no access history.
   */
  accessHistory: z.boolean().optional(),
  /**
   * Run with no organization and no project: each tick then completes at once, reading nothing. Without
   * it a configuration that names no source is refused (`PollConfigError`), since it is a mistake.
   */
  allowNone: z.boolean().optional(),
});

/** How long an empty stretch of access history is read again, when the configuration does not say. */
export const DEFAULT_ACCESS_HISTORY_SETTLE_SECONDS = 30 * 60;

/** Timings of a tick, in seconds. */
export const timingSchema = z.strictObject({
  /** How far behind the watermark each tick reads again, for events Atlas shows late. */
  overlapSeconds: z.number().int().min(0).max(86_400).default(900),
  /** How far behind now the window ends, so events still being written are read next time. */
  lagSeconds: z.number().int().min(0).max(3_600).default(30),
  /** How far back the first tick of a new source starts; 0 starts from now. */
  initialLookbackSeconds: z
    .number()
    .int()
    .min(0)
    .max(90 * 86_400)
    .default(3_600),
  /**
   * How often each org's API keys and service accounts, and each project's IP access list, are
   * snapshotted.
   */
  inventoryIntervalSeconds: z.number().int().min(60).max(86_400).default(3_600),
  /** No new work starts when less than this remains of the invocation's time. */
  deadlineMarginSeconds: z.number().int().min(1).max(600).default(20),
  /**
   * How long a stretch of a cluster's access history that answered nothing is read again before the
   * cursor passes it: Atlas may list authentication attempts late, so an empty answer says "not yet"
   * as often as "nothing". Default 1,800 (30 minutes).
   */
  accessHistorySettleSeconds: z
    .number()
    .int()
    .min(0)
    .max(6 * 86_400)
    .optional(),
  /** The longest window a backlog is read in before the cursor is committed. Default 21,600 (6 hours). */
  maxWindowSeconds: z
    .number()
    .int()
    .min(60)
    .max(30 * 86_400)
    .optional(),
});

/** Inventory snapshots (see docs/inventory.md). */
export const inventorySettingsSchema = z.strictObject({
  /**
   * Alert once on what the first snapshot of a source finds already wrong (a project open to
   * 0.0.0.0/0, an owner key without an access list). `false` stores it silently as the baseline.
   */
  baselineFindings: z.boolean().default(true),
  /**
   * The most entries one inventory holds in memory (API keys, service accounts and every access-list
   * entry of an organization; a project's access list): past it the inventory fails
   * (INVENTORY_BUDGET_EXCEEDED) and the source's events are still polled. Default 20,000.
   */
  maxEntries: z.number().int().min(100).max(1_000_000).optional(),
});
