import type { SeenIdSet } from '../state/seen-id-set.js';

/**
 * The events a source's walk has processed, for dropping them when they are read again and for the
 * seen ids of each commit. It starts from the cursor's seen ids (which carry no times) and adds every
 * event of each window read to its end, with its `created`; after a commit it forgets what lies
 * before the new overlap, so it holds about one overlap's worth of ids.
 *
 * @example
 * ```ts
 * const recent = new RecentEventIds(cursor?.seenIds);
 * recent.addAll(window.events);
 * await store.commitCursor({ lease, watermark, seenIds: recent.idsFrom(watermark - overlapMs) });
 * ```
 */
export class RecentEventIds {
  readonly #committed: SeenIdSet | undefined;
  readonly #times = new Map<string, number>();

  constructor(committed: SeenIdSet | undefined) {
    this.#committed = committed;
  }

  /** Whether the event with this id was processed before, by an earlier tick or an earlier window. */
  has(key: string): boolean {
    return this.#times.has(key) || (this.#committed?.has(key) ?? false);
  }

  /** Records the events of a window read to its end. */
  addAll(events: Iterable<{ key: string; time: number }>): void {
    for (const { key, time } of events) {
      const known = this.#times.get(key);
      if (known === undefined || time > known) this.#times.set(key, time);
    }
  }

  /** The ids recorded with `created` at or after `floor`: the seen ids of a cursor. */
  idsFrom(floor: number): string[] {
    const ids: string[] = [];
    for (const [key, time] of this.#times) if (time >= floor) ids.push(key);
    return ids;
  }

  /** Forgets the ids recorded with `created` before `floor`. */
  forgetBefore(floor: number): void {
    for (const [key, time] of this.#times) if (time < floor) this.#times.delete(key);
  }

  /** How many ids it holds with their times. */
  get size(): number {
    return this.#times.size;
  }
}
