import type { Logger } from '../shared/logger.js';
import type { CommandOutput } from './poll-command-io.js';
import type { ReplaySourceRead } from './replay-events.js';

/** Where `rules replay` says how its reading goes. */
export interface ReplayProgress {
  /** After each page: redraws the line of the source being read, on a terminal only. */
  page(read: ReplaySourceRead): void;
  /** After a source's last page: one line, on a terminal or not. */
  source(read: ReplaySourceRead): void;
  /** One line of its own. */
  note(text: string): void;
  /** For the Atlas client: its warnings and errors (retries, rate limits) as lines. */
  readonly logger: Logger;
  /** Clears the line being redrawn, if any. */
  done(): void;
}

/**
 * The progress of a replay's reads on stderr: a line per source read (`org:5f4e…: 1,204 events in 3
 * pages`) and the Atlas client's warnings, always; on a terminal also a line redrawn after each page.
 * stdout stays for the report alone.
 *
 * @example
 * ```ts
 * const progress = createReplayProgress(process.stderr);
 * await readReplayEvents({ ..., onPage: (read) => progress.page(read), onSource: (read) => progress.source(read) });
 * progress.done();
 * ```
 */
export function createReplayProgress(stream: CommandOutput): ReplayProgress {
  let shown = false;
  const clear = (): void => {
    if (shown) stream.write('\r\u001b[2K');
    shown = false;
  };
  const note = (text: string): void => {
    clear();
    stream.write(`${text}\n`);
  };
  const log =
    (level: string) =>
    (message: string, attributes?: Record<string, unknown>): void => {
      const details =
        attributes === undefined || Object.keys(attributes).length === 0
          ? ''
          : ` ${JSON.stringify(attributes)}`;
      note(`${level}: ${message}${details}`);
    };
  return {
    page(read) {
      if (!stream.isTTY) return;
      stream.write(`\r\u001b[2Kreading ${describeRead(read)}`);
      shown = true;
    },
    source(read) {
      note(`read ${describeRead(read)}`);
    },
    note,
    logger: { debug: () => {}, info: () => {}, warn: log('warn'), error: log('error') },
    done: clear,
  };
}

function describeRead(read: ReplaySourceRead): string {
  const events = `${read.events.toLocaleString('en-US')} ${read.events === 1 ? 'event' : 'events'}`;
  return `${read.source}: ${events} in ${read.pages} ${read.pages === 1 ? 'page' : 'pages'}`;
}
