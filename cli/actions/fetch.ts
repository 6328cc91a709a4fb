import {
  AtlasClient,
  type AtlasEvent,
  type AtlasEventFilter,
  type AtlasList,
  formatAtlasDate,
} from '../../shared/atlas/index.js';
import type { Logger } from '../../shared/logger.js';
import { resolveAtlasClientOptions } from '../atlas-credentials.js';
import type {
  FetchAccessListOptions,
  FetchApiKeysOptions,
  FetchCommandIo,
  FetchCommonOptions,
  FetchEventsOptions,
  OutputStream,
} from '../commands/fetch.js';
import { formatDuration } from '../duration-option.js';
import { CommandFailed, ExitCode, UsageError } from '../errors.js';
import { sinceInstant } from '../since-option.js';

/** Runs `fetch events` (see `registerFetchCommand`), with the process's streams unless `io` replaces them. */
export async function fetchEventsAction(options: FetchEventsOptions, io?: FetchCommandIo): Promise<void> {
  const filter = eventFilter(options);
  await withClient(options, streams(io), async (client, output, signal) => {
    const lists = await eventLists(client, options, { ...filter, signal });
    const [only] = lists;
    if (lists.length === 1 && only !== undefined) {
      await printList(only, output, 'events');
    } else {
      await printMerged(lists, output, 'events');
    }
  });
}

/** Runs `fetch api-keys` (see `registerFetchCommand`), with the process's streams unless `io` replaces them. */
export async function fetchApiKeysAction(options: FetchApiKeysOptions, io?: FetchCommandIo): Promise<void> {
  await withClient(options, streams(io), (client, output, signal) =>
    printList(client.listApiKeys(options.org, { signal }), output, 'API keys'),
  );
}

/** Runs `fetch access-list` (see `registerFetchCommand`), with the process's streams unless `io` replaces them. */
export async function fetchAccessListAction(
  options: FetchAccessListOptions,
  io?: FetchCommandIo,
): Promise<void> {
  await withClient(options, streams(io), (client, output, signal) =>
    printList(client.listApiKeyAccessList(options.org, options.key, { signal }), output, 'entries'),
  );
}

function streams(io: FetchCommandIo | undefined): FetchCommandIo {
  return io ?? { stdout: process.stdout, stderr: process.stderr, env: process.env };
}

function eventFilter(options: FetchEventsOptions): AtlasEventFilter {
  if (options.project === undefined && options.org === undefined) {
    throw new UsageError('fetch events needs --project <id> or --org <id> (either may be repeated)');
  }
  if (options.allProjects && options.org === undefined) {
    throw new UsageError('--all-projects reads the projects of each --org: give at least one --org <id>');
  }
  const filter: AtlasEventFilter = {};
  const now = Date.now();
  if (options.since !== undefined) {
    filter.minDate = formatAtlasDate(sinceInstant(options.since, now));
  }
  if (options.until !== undefined) {
    filter.maxDate = formatAtlasDate(sinceInstant(options.until, now));
  }
  if (options.type !== undefined && options.type.length > 0) {
    filter.eventTypes = options.type;
  }
  if (options.includeRaw) {
    filter.includeRaw = true;
  }
  return filter;
}

/**
 * One event list per source: each `--org` (its org events), each `--project`, then with
 * `--all-projects` every project of each org that was not named already, in that order, each once.
 */
async function eventLists(
  client: AtlasClient,
  options: FetchEventsOptions,
  filter: AtlasEventFilter & { signal: AbortSignal },
): Promise<Array<AtlasList<AtlasEvent>>> {
  const orgIds = [...new Set(options.org ?? [])];
  const projectIds = new Set(options.project ?? []);
  if (options.allProjects) {
    for (const orgId of orgIds) {
      for await (const project of client.listOrgProjects(orgId, { signal: filter.signal })) {
        projectIds.add(project.id);
      }
    }
  }
  return [
    ...orgIds.map((orgId) => client.listOrgEvents(orgId, filter)),
    ...[...projectIds].map((projectId) => client.listProjectEvents(projectId, filter)),
  ];
}

/**
 * Reads every list, then prints their items merged newest first (by `created`, then `id`): the order
 * Atlas itself sends one list in. Holds the items in memory: narrow with --since/--until.
 */
async function printMerged(
  lists: ReadonlyArray<AtlasList<AtlasEvent>>,
  output: ListOutput,
  noun: string,
): Promise<void> {
  const events: Array<{ event: AtlasEvent; time: number }> = [];
  let pages = 0;
  for (const list of lists) {
    for await (const page of list.pages()) {
      pages += 1;
      for (const event of page.items) events.push({ event, time: createdTime(event) });
      output.progress.update(pages, events.length, noun);
    }
  }
  events.sort((a, b) => b.time - a.time || compareIds(b.event, a.event));
  for (const { event } of events) {
    if (!(await output.lines.write(event))) return;
  }
}

/** `created` in milliseconds; an event without a readable one sorts last (oldest). */
function createdTime(event: AtlasEvent): number {
  const time = typeof event.created === 'string' ? Date.parse(event.created) : Number.NaN;
  return Number.isNaN(time) ? Number.NEGATIVE_INFINITY : time;
}

function compareIds(a: AtlasEvent, b: AtlasEvent): number {
  const x = typeof a.id === 'string' ? a.id : '';
  const y = typeof b.id === 'string' ? b.id : '';
  return x < y ? -1 : x > y ? 1 : 0;
}

/** Where the command reports how far it has got: stderr when it is a terminal, nowhere otherwise. */
interface Progress {
  update(pages: number, items: number, noun: string): void;
  done(): void;
  logger: Logger | undefined;
}

/** The two things a listing writes to: the JSON Lines, and the progress. */
interface ListOutput {
  lines: JsonLinesOutput;
  progress: Progress;
}

async function withClient(
  options: FetchCommonOptions,
  io: FetchCommandIo,
  run: (client: AtlasClient, output: ListOutput, signal: AbortSignal) => Promise<void>,
): Promise<void> {
  const progress = terminalProgress(io.stderr);
  const client = new AtlasClient({
    ...resolveAtlasClientOptions(options, io.env),
    ...(progress.logger ? { logger: progress.logger } : {}),
  });
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(new FetchTimedOut()), options.timeout);
  try {
    await run(client, { lines: new JsonLinesOutput(io.stdout), progress }, deadline.signal);
  } catch (error) {
    if (!(error instanceof FetchTimedOut)) throw error;
    throw new CommandFailed(
      `gave up after ${formatDuration(options.timeout)} (--timeout): Atlas answered too slowly. The lines ` +
        'printed are whole; run again with a narrower --since/--until or a longer --timeout',
      ExitCode.network,
    );
  } finally {
    clearTimeout(timer);
    progress.done();
    await client.close();
  }
}

async function printList<T>(list: AtlasList<T>, output: ListOutput, noun: string): Promise<void> {
  let items = 0;
  for await (const page of list.pages()) {
    for (const item of page.items) {
      if (!(await output.lines.write(item))) {
        return;
      }
    }
    items += page.items.length;
    output.progress.update(page.pageNum, items, noun);
  }
}

function terminalProgress(stream: OutputStream): Progress {
  if (!stream.isTTY) {
    return { update: () => {}, done: () => {}, logger: undefined };
  }
  let shown = false;
  const clearLine = (): void => {
    if (shown) {
      stream.write('\r\u001b[2K');
      shown = false;
    }
  };
  const note = (message: string, attributes?: Record<string, unknown>): void => {
    clearLine();
    const { status, delayMs } = attributes ?? {};
    const wait = typeof delayMs === 'number' ? `; waiting ${(delayMs / 1000).toFixed(1)} s` : '';
    stream.write(`${message}${status === undefined ? '' : ` (${String(status)})`}${wait}\n`);
  };
  return {
    update: (pages, items, noun) => {
      stream.write(`\r\u001b[2K${pages} page${pages === 1 ? '' : 's'}, ${items} ${noun}`);
      shown = true;
    },
    done: () => {
      if (shown) {
        stream.write('\n');
        shown = false;
      }
    },
    logger: { debug: () => {}, info: note, warn: note, error: note },
  };
}

/**
 * Writes JSON Lines with backpressure. A reader that goes away (`| head`) ends the output quietly:
 * {@link write} then returns false and the command stops fetching.
 */
class JsonLinesOutput {
  readonly #stream: NodeJS.WritableStream;
  #closed = false;

  constructor(stream: NodeJS.WritableStream) {
    this.#stream = stream;
    // EPIPE, or any other failure of stdout: nobody is reading any more.
    stream.on('error', () => {
      this.#closed = true;
    });
  }

  async write(value: unknown): Promise<boolean> {
    if (this.#closed) {
      return false;
    }
    if (!this.#stream.write(`${JSON.stringify(value)}\n`)) {
      await new Promise<void>((resolve) => {
        const settle = (): void => {
          this.#stream.off('drain', settle);
          this.#stream.off('error', settle);
          resolve();
        };
        this.#stream.once('drain', settle);
        this.#stream.once('error', settle);
      });
    }
    return !this.#closed;
  }
}

/** The reason the command's deadline aborts its calls with. */
class FetchTimedOut extends Error {
  constructor() {
    super('the fetch command reached its --timeout');
    this.name = 'FetchTimedOut';
  }
}
