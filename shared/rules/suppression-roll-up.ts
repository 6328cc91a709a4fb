import { createHash } from 'node:crypto';

/**
 * The occurrences of a suppressed rule's group that were not sent one by one, as the group's next
 * alert tells of them.
 */
export interface RollUp {
  /** How many occurrences were suppressed. */
  suppressed: number;
  /** Event time of the earliest, in milliseconds since the epoch. */
  first: number;
  /** Event time of the latest, in milliseconds since the epoch. */
  last: number;
}

/**
 * Distinct occurrences a period's roll-up counts by identity; past them it counts only occurrences
 * later (by time, then member) than the latest it counted, so a batch read again still counts nothing
 * twice, and a late occurrence is then not counted (the figure is a lower bound). Kept as 12-character
 * hashes: two periods' worth fit in a DynamoDB item with room to spare (about 30 KB).
 */
export const ROLL_UP_IDS = 1_000;

/** The suppressed occurrences of one period, as a store keeps them. */
export interface RollUpTally {
  /** Hashes of the occurrences counted one by one (see {@link rollUpId}), at most {@link ROLL_UP_IDS}. */
  ids: Set<string>;
  /** Occurrences counted past {@link ROLL_UP_IDS}. */
  beyond: number;
  /** The latest occurrence counted past the ids, as `[time, member]`; absent while none is. */
  mark?: [number, string];
  first: number;
  last: number;
}

/** What a suppression key keeps besides its period's occurrence and end. */
export interface RollUpState {
  /** The occurrences suppressed in the current period. */
  suppressed?: RollUpTally;
  /** The previous period's suppressed occurrences: the current period's alert carries them. */
  carried?: RollUpTally;
  /**
   * The period before the current one: its alert's occurrence and what that alert carried, so that
   * re-reading its events after the key started again (a tick retried over a long window) alerts alike.
   */
  previous?: { occurrence: string; rollUp?: RollUp };
}

/** A suppression key as a store reads it: the period's alerting occurrence, its end and roll-ups. */
export interface SuppressionPeriod {
  /** The occurrence that alerted for the period, as the store keeps members (`counterMember`). */
  occurrence: string;
  /** When the period ends, on the rule engine's clock. */
  periodEnd: number;
  state: RollUpState;
}

/** One occurrence of a suppressed rule's group, its member as the store keeps members. */
export interface SuppressionStep {
  member: string;
  /** The occurrence's time, on the rule engine's clock. */
  now: number;
  /** When a period this occurrence starts ends. */
  expiresAt: number;
}

/** The answer to one occurrence of a suppressed rule's group. */
export interface SuppressionAnswer {
  /** Whether the occurrence is the one its period alerts for. */
  alerts: boolean;
  /** For an occurrence that alerts: the previous period's suppressed occurrences, when there were any. */
  rollUp?: RollUp;
}

/** What applying occurrences to a suppression key gives, and whether the store must write it. */
export interface SuppressionUpdate {
  answers: SuppressionAnswer[];
  /** The key after the occurrences; `undefined` when it was absent and no occurrence came. */
  period: SuppressionPeriod | undefined;
  changed: boolean;
}

/**
 * The short, stable identity a roll-up counts an occurrence by: 12 base64url characters of its
 * SHA-256 (72 bits; a collision within one period's thousand ids is about one in 10^16).
 *
 * @example
 * ```ts
 * rollUpId('event:5f4e3d2c1b0a998877665544').length; // 12
 * ```
 */
export function rollUpId(member: string): string {
  return createHash('sha256').update(member).digest('base64url').slice(0, 12);
}

/** How many occurrences a tally counted. */
export function tallyCount(tally: RollUpTally | undefined): number {
  return tally === undefined ? 0 : tally.ids.size + tally.beyond;
}

/** What a tally tells an alert, or `undefined` for an empty one. */
export function rollUpOf(tally: RollUpTally | undefined): RollUp | undefined {
  const suppressed = tallyCount(tally);
  if (tally === undefined || suppressed === 0) return undefined;
  return { suppressed, first: tally.first, last: tally.last };
}

/** Whether `[now, member]` comes after `mark`, by time, then member. */
function isAfter(now: number, member: string, mark: [number, string] | undefined): boolean {
  return mark === undefined || now > mark[0] || (now === mark[0] && member > mark[1]);
}

/** Whether the tally counted the occurrence already (or, past its ids, one later). */
function counted(tally: RollUpTally | undefined, id: string, now: number, member: string): boolean {
  if (tally === undefined) return false;
  if (tally.ids.has(id)) return true;
  return tally.beyond > 0 && !isAfter(now, member, tally.mark);
}

/** Options of {@link applySuppressions}. */
export interface ApplySuppressionsOptions {
  /**
   * Names an occurrence in the roll-up: {@link rollUpId} (the default) for a store that writes the
   * roll-up out; a store held in memory may keep members as they are.
   */
  idOf?: ((member: string) => string) | undefined;
  /**
   * Change the stored key's roll-up in place rather than a copy of it: for a store held in memory,
   * whose write cannot fail. Default false: the stored key stays as read.
   */
  inPlace?: boolean | undefined;
}

/**
 * Applies a suppression key's occurrences, in order, to the key as stored: an occurrence at or past
 * the period's end (or for an absent key) starts a new period and alerts, carrying the old period's
 * suppressed occurrences; the period's own occurrence alerts again with what it carried (a re-read);
 * any other occurrence is suppressed and counted, once, in the period's roll-up. Pure: every store
 * uses it, so they answer alike, and the same occurrences applied again change nothing and get the
 * same answers, also when they started a new period (the previous period is remembered for that).
 *
 * A store passes `undefined` for a key it no longer holds on the wall clock.
 *
 * @example
 * ```ts
 * const { answers } = applySuppressions(undefined, [
 *   { member: 'event:a', now: 0, expiresAt: 3_600_000 },
 *   { member: 'event:b', now: 60_000, expiresAt: 3_660_000 },
 *   { member: 'event:c', now: 3_600_000, expiresAt: 7_200_000 },
 * ]);
 * answers[2]; // { alerts: true, rollUp: { suppressed: 1, first: 60_000, last: 60_000 } }
 * ```
 */
export function applySuppressions(
  stored: SuppressionPeriod | undefined,
  steps: readonly SuppressionStep[],
  options: ApplySuppressionsOptions = {},
): SuppressionUpdate {
  const idOf = options.idOf ?? rollUpId;
  let period = stored;
  let changed = false;
  let copied = options.inPlace === true;
  const answers = steps.map(({ member, now, expiresAt }): SuppressionAnswer => {
    if (period !== undefined && member === period.occurrence) return alertFor(period.state.carried);
    if (period === undefined || period.periodEnd <= now) {
      const carried = period?.state.suppressed;
      const state: RollUpState = {};
      if (carried !== undefined && tallyCount(carried) > 0) state.carried = carried;
      if (period !== undefined) {
        const rollUp = rollUpOf(period.state.carried);
        state.previous =
          rollUp === undefined
            ? { occurrence: period.occurrence }
            : { occurrence: period.occurrence, rollUp };
      }
      period = { occurrence: member, periodEnd: expiresAt, state };
      changed = true;
      copied = true;
      return alertFor(state.carried);
    }
    const previous = period.state.previous;
    if (previous !== undefined && previous.occurrence === member) {
      return previous.rollUp === undefined ? ALERTS : { alerts: true, rollUp: previous.rollUp };
    }
    const id = idOf(member);
    if (counted(period.state.carried, id, now, member) || counted(period.state.suppressed, id, now, member)) {
      return SUPPRESSED;
    }
    if (!copied) {
      // The stored key stays as read until the store has written the update.
      period = { ...period, state: { ...period.state } };
      const tally = period.state.suppressed;
      if (tally !== undefined) period.state.suppressed = { ...tally, ids: new Set(tally.ids) };
      copied = true;
    }
    const state = period.state;
    let tally = state.suppressed;
    if (tally === undefined) {
      tally = { ids: new Set(), beyond: 0, first: now, last: now };
      state.suppressed = tally;
    }
    if (tally.ids.size < ROLL_UP_IDS) tally.ids.add(id);
    else {
      tally.beyond += 1;
      tally.mark = [now, member];
    }
    if (now < tally.first) tally.first = now;
    if (now > tally.last) tally.last = now;
    changed = true;
    return SUPPRESSED;
  });
  return { answers, period, changed };
}

// Most answers carry nothing: shared, so a noisy group's repeats allocate no answer each.
const SUPPRESSED: SuppressionAnswer = Object.freeze({ alerts: false });
const ALERTS: SuppressionAnswer = Object.freeze({ alerts: true });

function alertFor(carried: RollUpTally | undefined): SuppressionAnswer {
  const rollUp = rollUpOf(carried);
  return rollUp === undefined ? ALERTS : { alerts: true, rollUp };
}

/** A tally as JSON: what the DynamoDB item and the state file hold. */
interface TallyJson {
  ids: string[];
  beyond?: number;
  mark?: [number, string];
  first: number;
  last: number;
}

/** {@link RollUpState} as JSON. */
export interface RollUpStateJson {
  suppressed?: TallyJson;
  carried?: TallyJson;
  previous?: { occurrence: string; rollUp?: RollUp };
}

function tallyToJson(tally: RollUpTally): TallyJson {
  const json: TallyJson = { ids: [...tally.ids], first: tally.first, last: tally.last };
  if (tally.beyond > 0) json.beyond = tally.beyond;
  if (tally.mark !== undefined) json.mark = tally.mark;
  return json;
}

/**
 * A roll-up state as JSON for a store to keep; `undefined` when it holds nothing (a key written by a
 * version without roll-ups reads the same).
 */
export function rollUpStateToJson(state: RollUpState): RollUpStateJson | undefined {
  const json: RollUpStateJson = {};
  if (tallyCount(state.suppressed) > 0) json.suppressed = tallyToJson(state.suppressed as RollUpTally);
  if (tallyCount(state.carried) > 0) json.carried = tallyToJson(state.carried as RollUpTally);
  if (state.previous !== undefined) json.previous = state.previous;
  return Object.keys(json).length === 0 ? undefined : json;
}

function isNumber(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value);
}

function tallyFromJson(value: unknown): RollUpTally | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { ids, beyond, mark, first, last } = value as Record<string, unknown>;
  if (!Array.isArray(ids) || !isNumber(first) || !isNumber(last)) return undefined;
  const tally: RollUpTally = {
    ids: new Set(ids.filter((id): id is string => typeof id === 'string')),
    beyond: isNumber(beyond) ? beyond : 0,
    first,
    last,
  };
  if (Array.isArray(mark) && isNumber(mark[0]) && typeof mark[1] === 'string')
    tally.mark = [mark[0], mark[1]];
  return tally;
}

function rollUpFromJson(value: unknown): RollUp | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { suppressed, first, last } = value as Record<string, unknown>;
  return isNumber(suppressed) && isNumber(first) && isNumber(last) ? { suppressed, first, last } : undefined;
}

/**
 * Reads a roll-up state a store kept; whatever part of it does not read as one is left out (a key
 * then counts from nothing), so a damaged record costs figures, never the suppression itself.
 *
 * @example
 * ```ts
 * rollUpStateFromJson(undefined); // {}
 * ```
 */
export function rollUpStateFromJson(value: unknown): RollUpState {
  if (typeof value !== 'object' || value === null) return {};
  const json = value as Record<string, unknown>;
  const state: RollUpState = {};
  const suppressed = tallyFromJson(json.suppressed);
  if (suppressed !== undefined) state.suppressed = suppressed;
  const carried = tallyFromJson(json.carried);
  if (carried !== undefined) state.carried = carried;
  const previous = json.previous;
  if (typeof previous === 'object' && previous !== null) {
    const { occurrence, rollUp } = previous as Record<string, unknown>;
    if (typeof occurrence === 'string') {
      const read = rollUpFromJson(rollUp);
      state.previous = read === undefined ? { occurrence } : { occurrence, rollUp: read };
    }
  }
  return state;
}

/** Whether a key holds suppressed occurrences no alert has told of yet: a store keeps it longer. */
export function hasPendingRollUp(period: SuppressionPeriod | undefined): boolean {
  return tallyCount(period?.state.suppressed) > 0;
}
