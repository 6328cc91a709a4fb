/**
 * Errors of the poll tick. Every one extends {@link PollError} and carries a stable `code` for logs
 * and metrics. A tick reports most of them in its summary rather than throwing them.
 */

/** Base class of every error the poll tick raises. */
export class PollError extends Error {
  /** Stable identifier of the error class, for logs and metrics. */
  readonly code: string = 'POLL_ERROR';

  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'PollError';
  }
}

/** The configuration names nothing to poll, or a setting the tick cannot work with. */
export class PollConfigError extends PollError {
  override readonly code: string = 'POLL_CONFIG';

  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'PollConfigError';
  }
}

/**
 * A connection has no Atlas client this tick: its credentials could not be read, or the tick was
 * given no way to build one. Its sources fail with this code (or the cause's, when it has one) and
 * the other connections are polled as usual.
 */
export class ConnectionUnavailableError extends PollError {
  override readonly code: string = 'CONNECTION_UNAVAILABLE';

  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'ConnectionUnavailableError';
  }
}

/**
 * The tick ran into its deadline margin: the reason Atlas calls still in flight are aborted with.
 * The source keeps its cursor; its events are read again next tick.
 */
export class TickDeadlineError extends PollError {
  override readonly code: string = 'TICK_DEADLINE';

  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'TickDeadlineError';
  }
}

/**
 * The notifier could not deliver some alerts of a window and says a later attempt may succeed: the
 * cursor stays before the window, so the next tick raises them again.
 */
export class AlertDeliveryError extends PollError {
  override readonly code: string = 'ALERT_DELIVERY_FAILED';

  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'AlertDeliveryError';
  }
}

/**
 * A window of one second (it cannot be cut shorter: Atlas dates are whole seconds) holds more new
 * events than the tick may hold in memory: the source fails this tick, its cursor stays before that
 * second, and the other sources go on.
 */
export class EventBudgetExceededError extends PollError {
  override readonly code: string = 'EVENT_BUDGET_EXCEEDED';

  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'EventBudgetExceededError';
  }
}

/**
 * An inventory lists more entries (API keys, service accounts, access-list entries) than an inventory
 * may hold in memory, or one of its lists more pages than its entries can fill: the inventory fails
 * this tick, stores nothing, and the source's events are still polled.
 */
export class InventoryBudgetExceededError extends PollError {
  override readonly code: string = 'INVENTORY_BUDGET_EXCEEDED';

  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'InventoryBudgetExceededError';
  }
}
