import type { AtlasList } from '../atlas/atlas-list.js';
import { InventoryBudgetExceededError } from './errors.js';

/** Entries one inventory may hold when the configuration does not say (`inventory.maxEntries`). */
export const DEFAULT_MAX_INVENTORY_ENTRIES = 20_000;

/**
 * Entries a page must bring on average for a list to take as many pages as its entries need: Atlas
 * sends 500 when asked, so only a server that sends far fewer meets this bound.
 */
const MIN_ENTRIES_PER_PAGE = 100;

/** Options of {@link InventoryReadBudget}. */
export interface InventoryReadBudgetOptions {
  /** Whose inventory, in messages: `org 5f…` or `project 5f…`. */
  scope: string;
  /** Entries the whole inventory may hold: keys, service accounts and every access-list entry. */
  maxEntries: number;
}

/**
 * What one inventory may read, as the event walk has its event budget: at most `maxEntries` entries
 * over all its lists, and at most `maxEntries / 100` pages in any one list, so an endless list (or
 * one of endless short pages) fails the inventory within a bounded memory and number of requests
 * instead of running the function out of either. Pages are read one at a time and their items
 * appended one by one: a page is never spread into an argument list.
 *
 * @example
 * ```ts
 * const budget = new InventoryReadBudget({ scope: 'project 5f4e…', maxEntries: 20_000 });
 * const entries = await budget.readAll(atlas.listProjectAccessList(groupId, { signal }), `GET /groups/${groupId}/accessList`);
 * ```
 */
export class InventoryReadBudget {
  readonly #scope: string;
  readonly #maxEntries: number;
  readonly #maxPagesPerList: number;
  #entries = 0;
  #dropped = 0;

  /** @throws RangeError when `maxEntries` is not a positive integer. */
  constructor(options: InventoryReadBudgetOptions) {
    if (!Number.isInteger(options.maxEntries) || options.maxEntries < 1) {
      throw new RangeError(`maxEntries must be a positive integer, got ${options.maxEntries}`);
    }
    this.#scope = options.scope;
    this.#maxEntries = options.maxEntries;
    this.#maxPagesPerList = Math.max(1, Math.ceil(options.maxEntries / MIN_ENTRIES_PER_PAGE));
  }

  /** Entries read so far, over every list. */
  get entries(): number {
    return this.#entries;
  }

  /**
   * Entries left out so far because they could not be read (an access-list entry that is not an
   * object), and parts of entries left out (a role that is not an object), over every list.
   */
  get dropped(): number {
    return this.#dropped;
  }

  /**
   * Reads a whole list, page by page, counting its entries and pages against the budget.
   *
   * @throws InventoryBudgetExceededError when the inventory's entries, or this list's pages, pass the
   *   budget; the Atlas client's errors while reading.
   */
  async readAll<T>(list: AtlasList<T>, what: string): Promise<T[]> {
    const items: T[] = [];
    for await (const page of list.pages()) {
      if (page.pageNum > this.#maxPagesPerList) {
        throw this.#exceeded(
          `${what} went on past ${this.#maxPagesPerList} pages (${items.length} entries, fewer than ` +
            `${MIN_ENTRIES_PER_PAGE} a page)`,
        );
      }
      this.#entries += page.items.length;
      this.#dropped += page.dropped;
      if (this.#entries > this.#maxEntries) {
        throw this.#exceeded(
          `it lists more than ${this.#maxEntries} entries (counted while reading ${what})`,
        );
      }
      for (const item of page.items) items.push(item);
    }
    return items;
  }

  #exceeded(reason: string): InventoryBudgetExceededError {
    return new InventoryBudgetExceededError(
      `The inventory of ${this.#scope} was given up: ${reason}, more than an inventory may hold. Nothing ` +
        "was stored or compared this tick, and the source's events are still polled. Check what fills " +
        "the list, or raise inventory.maxEntries (and the function's memory) if it is really that large",
    );
  }
}
