import { AtlasResponseError } from './errors.js';

/** One page of a list, as {@link AtlasList.pages} yields it. */
export interface AtlasPage<T> {
  items: T[];
  /** 1 for the first page fetched, counting up. */
  pageNum: number;
  /** Atlas's estimate of the whole list's size. Shown for progress, never used to stop. */
  totalCount: number | undefined;
  /** Whether Atlas linked a next page. */
  hasNext: boolean;
  /** Entries of the page left out, and parts of entries left out, because they could not be read. */
  dropped: number;
}

/** A resource path below the API prefix (`/groups/x/events`) and its query. */
export interface PageRequest {
  path: string;
  query: URLSearchParams;
}

/**
 * The resource a `next` link names: its path below the API prefix, and its query as the link wrote it
 * (read into parameters only when the next page is asked for).
 */
export interface LinkedResource {
  path: string;
  search: string;
}

/** What fetching one page gives: its items, and the resource of its `next` link if it had one. */
export interface FetchedPage<T> {
  items: T[];
  totalCount: number | undefined;
  next: LinkedResource | undefined;
  /** Entries left out, and parts of entries left out, because they could not be read. */
  dropped?: number;
}

/** Options of {@link AtlasList}. */
export interface AtlasListInit<T> {
  first: PageRequest;
  /** The API prefix, for error messages. */
  apiPrefix: string;
  fetchPage: (request: PageRequest) => Promise<FetchedPage<T>>;
}

/**
 * A paginated Atlas list. Iterating it yields every item of every page, following `rel=next` links
 * until a page has none (or is empty); `totalCount` is never trusted, as Atlas documents it as an
 * estimate. Each iteration starts again from the first page; pages are fetched one at a time, as the
 * caller asks, so breaking out early fetches no more.
 *
 * A `next` link must name the same resource. Query keys the first request sent and the link dropped are
 * put back, so a server that forgets `eventType` in its links cannot widen the query; a link seen before
 * is an error rather than an endless loop.
 *
 * @example
 * ```ts
 * for await (const event of client.listOrgEvents(orgId, { minDate })) { ... }
 * for await (const page of client.listOrgEvents(orgId, { minDate }).pages()) {
 *   progress(page.pageNum, page.items.length, page.totalCount);
 * }
 * ```
 */
export class AtlasList<T> implements AsyncIterable<T> {
  readonly #init: AtlasListInit<T>;

  constructor(init: AtlasListInit<T>) {
    this.#init = init;
  }

  /**
   * Yields the list page by page.
   *
   * @throws Whatever fetching a page throws (see the client's operations), and AtlasResponseError when
   *   a `next` link points at another resource or back at a page already read.
   */
  async *pages(): AsyncGenerator<AtlasPage<T>, void, undefined> {
    const { first, apiPrefix } = this.#init;
    const seen = new Set<string>();
    let request: PageRequest | undefined = first;
    for (let pageNum = 1; request; pageNum += 1) {
      const page = await this.#init.fetchPage(request);
      const hasNext = page.next !== undefined && page.items.length > 0;
      yield { items: page.items, pageNum, totalCount: page.totalCount, hasNext, dropped: page.dropped ?? 0 };
      if (!hasNext || !page.next) {
        return;
      }
      // Recorded once a next page is asked for: a list read in one page needs no record.
      seen.add(keyOf(request));
      const next = withFirstQuery(page.next, first);
      if (next.path !== first.path) {
        throw new AtlasResponseError(
          `Atlas answered GET ${apiPrefix}${first.path} with a next link to another resource (${apiPrefix}${next.path}): check the base URL and flavour`,
          { method: 'GET', path: `${apiPrefix}${first.path}` },
        );
      }
      if (seen.has(keyOf(next))) {
        throw new AtlasResponseError(
          `Atlas answered GET ${apiPrefix}${first.path} with a next link back to a page already read (page ${pageNum + 1}): the server is paginating in a loop`,
          { method: 'GET', path: `${apiPrefix}${first.path}` },
        );
      }
      request = next;
    }
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<T, void, undefined> {
    for await (const page of this.pages()) {
      yield* page.items;
    }
  }

  /**
   * Reads the whole list into memory.
   *
   * @throws As {@link pages}.
   */
  async toArray(): Promise<T[]> {
    const items: T[] = [];
    for await (const page of this.pages()) {
      // One by one: spreading a page into the call's arguments overflows the stack past some 100k.
      for (const item of page.items) items.push(item);
    }
    return items;
  }
}

function withFirstQuery(next: LinkedResource, first: PageRequest): PageRequest {
  const query = new URLSearchParams(next.search);
  for (const key of new Set(first.query.keys())) {
    if (!query.has(key)) {
      for (const value of first.query.getAll(key)) {
        query.append(key, value);
      }
    }
  }
  return { path: next.path, query };
}

function keyOf(request: PageRequest): string {
  const query = new URLSearchParams(request.query);
  if (!query.has('pageNum')) {
    query.set('pageNum', '1');
  }
  query.sort();
  return `${request.path}?${query.toString()}`;
}
