import { describe, expect, it } from 'vitest';
import { TickDeadlineError } from '../../shared/poll/index.js';
import { TickBudget } from '../../shared/poll/tick-budget.js';
import { TestClock } from './support/test-clock.js';

const SECOND = 1_000;

describe('TickBudget', () => {
  it('lets work start while more than the margin remains', () => {
    // Prepare
    const clock = new TestClock();
    const budget = new TickBudget({ clock, deadline: clock.now() + 60 * SECOND, marginMs: 20 * SECOND });

    // Act
    clock.advance(39 * SECOND);
    const reason = budget.stopReason();
    budget.dispose();

    // Assess
    expect(reason).toBeUndefined();
    expect(budget.remainingMs()).toBe(21 * SECOND);
  });

  it('stops new work inside the margin without aborting the calls in flight', () => {
    // Prepare
    const clock = new TestClock();
    const budget = new TickBudget({ clock, deadline: clock.now() + 60 * SECOND, marginMs: 20 * SECOND });

    // Act
    clock.advance(41 * SECOND);
    const reason = budget.stopReason();
    budget.dispose();

    // Assess
    expect(reason).toBe('deadline');
    expect(budget.signal.aborted).toBe(false);
  });

  it('aborts the calls in flight when half the margin remains', async () => {
    // Prepare
    const clock = new TestClock();
    const budget = new TickBudget({ clock, deadline: clock.now() + 60 * SECOND, marginMs: 20 * SECOND });

    // Act
    clock.advance(50 * SECOND);
    await Promise.resolve();

    // Assess
    expect(budget.signal.aborted).toBe(true);
    expect(budget.signal.reason).toBeInstanceOf(TickDeadlineError);
    expect(budget.isAbort(budget.signal.reason)).toBe(true);
    budget.dispose();
  });

  it('never stops a tick without a deadline, and stops its timer on dispose', async () => {
    // Prepare
    const clock = new TestClock();
    const timed = new TickBudget({ clock, deadline: clock.now() + 60 * SECOND, marginMs: 20 * SECOND });
    const untimed = new TickBudget({ clock, marginMs: 20 * SECOND });

    // Act
    timed.dispose();
    clock.advance(3_600 * SECOND);
    await Promise.resolve();

    // Assess
    expect(untimed.stopReason()).toBeUndefined();
    expect(untimed.remainingMs()).toBe(Number.POSITIVE_INFINITY);
    expect(timed.signal.aborted).toBe(false);
  });

  it('follows the caller signal, telling its abort from a failure', () => {
    // Prepare
    const clock = new TestClock();
    const caller = new AbortController();
    const budget = new TickBudget({ clock, marginMs: 20 * SECOND, signal: caller.signal });
    const reason = new Error('shutting down');

    // Act
    caller.abort(reason);

    // Assess
    expect(budget.stopReason()).toBe('aborted');
    expect(budget.signal.reason).toBe(reason);
    expect(budget.isAbort(reason)).toBe(true);
    expect(budget.isAbort(new Error('403'))).toBe(false);
  });

  it('lets the calls of a tick at concurrency 32 listen on its signal without a leak warning in the log', async () => {
    // Prepare
    const warnings: Error[] = [];
    const onWarning = (warning: Error): void => {
      warnings.push(warning);
    };
    process.on('warning', onWarning);
    const budget = new TickBudget({ clock: new TestClock(), marginMs: 20 * SECOND });
    const listeners = Array.from({ length: 32 * 4 }, () => () => {});

    // Act
    for (const listener of listeners) budget.signal.addEventListener('abort', listener, { once: true });
    await new Promise((resolve) => setImmediate(resolve));
    process.off('warning', onWarning);
    for (const listener of listeners) budget.signal.removeEventListener('abort', listener);
    budget.dispose();

    // Assess
    expect(warnings.map((warning) => warning.name)).not.toContain('MaxListenersExceededWarning');
  });
});
