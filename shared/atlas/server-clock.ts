import type { Clock } from '../clock.js';
import type { LogAttributes, Logger } from '../logger.js';
import { parseServerDate } from './server-date.js';

/** Options of {@link ServerClock}. */
export interface ServerClockOptions {
  /** The local clock: read when an answer arrives, and the fallback before any usable `Date`. */
  clock: Clock;
  logger: Logger;
  /**
   * A `Date` further than this from the local clock is not believed (default 24 hours): a clock that
   * wrong is a broken or hostile server, not drift, and following it would move every window by as much.
   */
  maxSkewMs?: number;
}

/** What {@link ServerClock.observe} did with one answer's `Date` header. */
export type DateObservation = 'used' | 'absent' | 'invalid' | 'implausible';

const DAY_MS = 24 * 60 * 60 * 1_000;
/** The longest stretch of a hostile header that goes into a log line. */
const LOGGED_VALUE_CHARS = 64;

/**
 * Atlas's clock as the client sees it: the local clock moved by the offset the latest `Date` header
 * showed. Windows end at Atlas's `now − lag`, so a poller whose clock runs ahead of Atlas never moves
 * its watermark past events Atlas has not written yet.
 *
 * A `Date` header has whole seconds and is written some time between sending and receiving: the
 * offset is taken as the header's time minus the local time the answer arrived, the lowest the
 * server's clock can be. An error in that direction only ends a window earlier, which the next tick
 * reads. A header that is not an HTTP date, or one more than `maxSkewMs` away, is ignored with one
 * warning per client (then debug lines), and the last good offset, or the local clock, stands.
 *
 * @example
 * ```ts
 * const server = new ServerClock({ clock: systemClock, logger });
 * server.observe(response.headers.date, systemClock.now());
 * const end = server.now() - lagMs;
 * ```
 */
export class ServerClock {
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #maxSkewMs: number;
  #offsetMs: number | undefined;
  #warned = false;
  /** The last `Date` value read, and its time: Atlas sends the same text for a whole second. */
  #lastDate: { text: string; ms: number } | undefined;

  constructor(options: ServerClockOptions) {
    this.#clock = options.clock;
    this.#logger = options.logger;
    this.#maxSkewMs = options.maxSkewMs ?? DAY_MS;
  }

  /** Atlas's time now, in milliseconds since the epoch; the local clock before any usable `Date`. */
  now(): number {
    return this.#clock.now() + (this.#offsetMs ?? 0);
  }

  /**
   * The local clock minus Atlas's, in milliseconds (positive when the local clock runs ahead);
   * undefined before any usable `Date`.
   */
  get skewMs(): number | undefined {
    return this.#offsetMs === undefined ? undefined : -this.#offsetMs;
  }

  /**
   * Takes the offset from one answer's `Date` header, received at `receivedAt` on the local clock.
   * Several `Date` headers in one answer are not a date.
   */
  observe(header: string | readonly string[] | undefined, receivedAt: number): DateObservation {
    if (header === undefined) return 'absent';
    const value = typeof header === 'string' ? header : header.length === 1 ? header[0] : undefined;
    const last = this.#lastDate;
    const dateMs = last !== undefined && value === last.text ? last.ms : this.#read(value);
    if (dateMs === undefined) {
      this.#ignore('Atlas sent a Date header that is not an HTTP date; it is ignored', {
        value: describeHeader(header),
      });
      return 'invalid';
    }
    const offsetMs = dateMs - receivedAt;
    if (Math.abs(offsetMs) > this.#maxSkewMs) {
      this.#ignore('Atlas sent a Date header too far from the local clock to believe; it is ignored', {
        value: describeHeader(header),
        offsetSeconds: Math.round(offsetMs / 1_000),
        maxSkewSeconds: Math.round(this.#maxSkewMs / 1_000),
      });
      return 'implausible';
    }
    this.#offsetMs = offsetMs;
    return 'used';
  }

  /** Parses a `Date` value, and keeps it when valid for the answers of the same second. */
  #read(value: string | undefined): number | undefined {
    const date = parseServerDate(value);
    if (value === undefined || date === undefined) return undefined;
    const ms = date.getTime();
    this.#lastDate = { text: value, ms };
    return ms;
  }

  #ignore(message: string, attributes: LogAttributes): void {
    const fallback =
      this.#offsetMs === undefined
        ? 'the local clock'
        : `an offset of ${Math.round(this.#offsetMs / 1_000)} s from the local clock`;
    const details = { ...attributes, using: fallback };
    if (this.#warned) {
      this.#logger.debug(message, details);
      return;
    }
    this.#warned = true;
    this.#logger.warn(message, details);
  }
}

function describeHeader(header: string | readonly string[]): string {
  const text = typeof header === 'string' ? header : header.join(', ');
  return text.length > LOGGED_VALUE_CHARS ? `${text.slice(0, LOGGED_VALUE_CHARS)}…` : text;
}
