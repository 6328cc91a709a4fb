import { MAX_ITEMS_PER_PAGE } from '../atlas/event-filter.js';

/**
 * Heap an event costs while a window holds it: the parsed event (about 2.3 KB measured on the
 * simulator's event mix), its key and order entry, and its share of the page it came in on.
 */
export const HEAP_BYTES_PER_HELD_EVENT = 4 * 1024;
/**
 * Share of the V8 heap limit the held events may take: the rest is for the code, the SDK clients,
 * the pages being parsed, the alerts and their messages, and the collector's headroom. Measured on
 * the backlog benchmarks (docs/load.md): twice this share reads no faster, with windows sized from
 * their density, and lets the peak memory of a long tick grow with what the windows hold.
 */
export const HEAP_SHARE_FOR_EVENTS = 0.2;
/** The smallest budget: two pages for each of two windows, so a pipelined walk can always go on. */
export const MIN_EVENT_BUDGET = 4 * MAX_ITEMS_PER_PAGE;

/**
 * The events a tick may hold in memory at once, sized from the heap the process may use:
 * {@link HEAP_SHARE_FOR_EVENTS} of the V8 heap limit at {@link HEAP_BYTES_PER_HELD_EVENT} an event,
 * and never fewer than {@link MIN_EVENT_BUDGET}.
 *
 * @throws RangeError when `heapLimitBytes` is not a positive number.
 *
 * @example
 * ```ts
 * eventBudgetForHeap(279 * 1024 * 1024); // 14284: the heap limit of a 256 MB Lambda function
 * ```
 */
export function eventBudgetForHeap(heapLimitBytes: number): number {
  if (!(heapLimitBytes > 0) || !Number.isFinite(heapLimitBytes)) {
    throw new RangeError(`the heap limit must be a positive number of bytes, got ${heapLimitBytes}`);
  }
  return Math.max(
    MIN_EVENT_BUDGET,
    Math.floor((heapLimitBytes * HEAP_SHARE_FOR_EVENTS) / HEAP_BYTES_PER_HELD_EVENT),
  );
}

/** Options of {@link EventBudget}. */
export interface EventBudgetOptions {
  /** The most events the tick holds at once, over all its sources. */
  capacity: number;
  /** How many sources read at once (the tick's concurrency, or fewer when it has fewer sources). */
  sourcesAtOnce: number;
}

interface Waiter {
  ready: () => boolean;
  resolve: () => void;
}

/**
 * The events a tick holds in memory, over every source. Each window a source reads takes a
 * {@link EventReservation} (see {@link open}) and counts in it the events it keeps until they are
 * evaluated and delivered. A source reads at most two windows at once (it reads the next one while
 * the last is evaluated), so a window may hold `capacity / (2 × sourcesAtOnce)` events
 * ({@link windowLimit}), and never fewer than two pages: windows holding more are cut shorter, and
 * the sum stays within the capacity (or two pages a window, for a capacity smaller than that).
 *
 * A window of one second cannot be cut shorter. When it holds more than its limit, its reader
 * {@link widen}s the reservation: it gives back what it held, waits until no other window holds an
 * event (no new window opens meanwhile), and reads the second again with the whole capacity to itself.
 * Only a second holding more than the capacity fails its source.
 *
 * No waiting can deadlock: every window that holds events is being read or evaluated, and neither
 * waits for the budget; a reader waits only when it holds nothing.
 *
 * @example
 * ```ts
 * const budget = new EventBudget({ capacity: eventBudgetForHeap(heapLimit), sourcesAtOnce: 4 });
 * const reservation = await budget.open(signal);
 * try {
 *   if (!reservation.tryAdd(500)) ... // the window holds too many: cut it shorter
 * } finally {
 *   reservation.release();
 * }
 * ```
 */
export class EventBudget {
  /** The most events held at once. */
  readonly capacity: number;
  /** The most events one window holds, unless it is widened. */
  readonly windowLimit: number;
  #held = 0;
  #exclusive: EventReservation | undefined;
  #widening = 0;
  readonly #waiters: Waiter[] = [];

  constructor(options: EventBudgetOptions) {
    const { capacity, sourcesAtOnce } = options;
    if (!Number.isInteger(capacity) || capacity < MIN_EVENT_BUDGET) {
      throw new RangeError(
        `the event budget must be an integer of at least ${MIN_EVENT_BUDGET}, got ${capacity}`,
      );
    }
    if (!Number.isInteger(sourcesAtOnce) || sourcesAtOnce < 1) {
      throw new RangeError(`sourcesAtOnce must be a positive integer, got ${sourcesAtOnce}`);
    }
    this.capacity = capacity;
    this.windowLimit = Math.max(2 * MAX_ITEMS_PER_PAGE, Math.floor(capacity / (2 * sourcesAtOnce)));
  }

  /** Events held now, over every window. */
  get held(): number {
    return this.#held;
  }

  /**
   * A reservation for one window, once no widened window holds or waits for the whole budget.
   *
   * @throws The signal's reason when it aborts while waiting.
   */
  async open(signal: AbortSignal): Promise<EventReservation> {
    await this.#wait(() => this.#exclusive === undefined && this.#widening === 0, signal);
    return new EventReservation(this, this.windowLimit);
  }

  /**
   * Gives the whole capacity to `reservation`: gives back what it holds, waits until no other window
   * holds an event, and keeps new windows from opening until it is released.
   *
   * @throws The signal's reason when it aborts while waiting.
   */
  async widen(reservation: EventReservation, signal: AbortSignal): Promise<void> {
    reservation.clear();
    if (this.#exclusive === reservation) return;
    this.#widening += 1;
    try {
      await this.#wait(() => this.#exclusive === undefined && this.#held === 0, signal);
    } finally {
      this.#widening -= 1;
    }
    this.#exclusive = reservation;
    reservation.grant(this.capacity);
  }

  /** @internal Called by reservations as their count changes. */
  change(reservation: EventReservation, delta: number, ended: boolean): void {
    this.#held += delta;
    if (ended && this.#exclusive === reservation) this.#exclusive = undefined;
    if (delta < 0 || ended) this.#wake();
  }

  #wait(ready: () => boolean, signal: AbortSignal): Promise<void> {
    if (signal.aborted) return Promise.reject(signal.reason);
    if (ready()) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const onAbort = (): void => {
        const index = this.#waiters.indexOf(waiter);
        if (index >= 0) this.#waiters.splice(index, 1);
        reject(signal.reason);
        this.#wake();
      };
      const waiter: Waiter = {
        ready,
        resolve: () => {
          signal.removeEventListener('abort', onAbort);
          resolve();
        },
      };
      this.#waiters.push(waiter);
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** Lets in the waiters whose condition holds, oldest first; a widening lets no one in after it. */
  #wake(): void {
    for (let index = 0; index < this.#waiters.length; ) {
      const waiter = this.#waiters[index] as Waiter;
      if (!waiter.ready()) {
        index += 1;
        continue;
      }
      this.#waiters.splice(index, 1);
      waiter.resolve();
      if (this.#exclusive !== undefined) return;
    }
  }
}

/** The events one window holds, counted against the tick's {@link EventBudget}. */
export class EventReservation {
  readonly #budget: EventBudget;
  #held = 0;
  #ended = false;
  #limit: number;
  #widened = false;

  constructor(budget: EventBudget, limit: number) {
    this.#budget = budget;
    this.#limit = limit;
  }

  /** The most events this window may hold. */
  get limit(): number {
    return this.#limit;
  }

  /** Events this window holds. */
  get held(): number {
    return this.#held;
  }

  /** Whether the window has the whole budget to itself (see {@link EventBudget.widen}). */
  get widened(): boolean {
    return this.#widened;
  }

  /** @internal Gives the window the whole capacity. */
  grant(limit: number): void {
    this.#limit = limit;
    this.#widened = true;
  }

  /** Counts `count` more events unless that would pass the limit; whether it did. */
  tryAdd(count: number): boolean {
    if (this.#ended || this.#held + count > this.#limit) return false;
    this.#held += count;
    this.#budget.change(this, count, false);
    return true;
  }

  /** Counts `count` events fewer (a page that kept fewer than it reserved). */
  remove(count: number): void {
    const removed = Math.min(count, this.#held);
    this.#held -= removed;
    this.#budget.change(this, -removed, false);
  }

  /** Gives back every event held; the reservation stays usable (a window read again, shorter). */
  clear(): void {
    this.remove(this.#held);
  }

  /** Gives back every event held and ends the reservation (and a widening). Idempotent. */
  release(): void {
    if (this.#ended) return;
    const held = this.#held;
    this.#held = 0;
    this.#ended = true;
    this.#budget.change(this, -held, true);
  }
}
