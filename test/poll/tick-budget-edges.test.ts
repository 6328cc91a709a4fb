import { describe, expect, it } from 'vitest';
import { TickBudget } from '../../shared/poll/tick-budget.js';
import { TestClock } from './support/test-clock.js';

const SECOND = 1_000;

/** Lets the budget's deadline timer, resolved by the clock, run its continuation. */
async function settle(): Promise<void> {
  for (let turn = 0; turn < 5; turn += 1) await Promise.resolve();
}

describe('TickBudget edges', () => {
  it('lets new work start with exactly the margin left', () => {
    // Prepare
    const clock = new TestClock();
    const budget = new TickBudget({ clock, deadline: clock.now() + 60 * SECOND, marginMs: 20 * SECOND });

    // Act
    clock.advance(40 * SECOND);
    const reason = budget.stopReason();
    budget.dispose();

    // Assess
    expect(budget.remainingMs()).toBe(20 * SECOND);
    expect(reason).toBeUndefined();
  });

  it('keeps calls in flight until only half the margin remains, then aborts them', async () => {
    // Prepare
    const clock = new TestClock();
    const budget = new TickBudget({ clock, deadline: clock.now() + 60 * SECOND, marginMs: 20 * SECOND });

    // Act
    clock.advance(49 * SECOND);
    await settle();
    const abortedBeforeHalf = budget.signal.aborted;
    clock.advance(1 * SECOND);
    await settle();

    // Assess
    expect(abortedBeforeHalf).toBe(false);
    expect(budget.signal.aborted).toBe(true);
    budget.dispose();
  });

  it('says in its abort how much margin was kept and before which deadline', async () => {
    // Prepare
    const clock = new TestClock(Date.parse('2025-06-02T12:00:00Z'));
    const budget = new TickBudget({ clock, deadline: clock.now() + 60 * SECOND, marginMs: 20 * SECOND });

    // Act
    clock.advance(50 * SECOND);
    await settle();

    // Assess
    const reason = budget.signal.reason as Error;
    expect(reason.message).toBe(
      'the tick reached its deadline margin (10000 ms before 2025-06-02T12:01:00.000Z): Atlas calls in flight were aborted; their sources are read again next tick',
    );
    budget.dispose();
  });

  it('never aborts a tick without a deadline, even on a clock whose sleeps return at once', async () => {
    // Prepare
    const clock = new TestClock();
    const budget = new TickBudget({ clock: clock.instant(), marginMs: 20 * SECOND });

    // Act
    await settle();

    // Assess
    expect(budget.signal.aborted).toBe(false);
    expect(budget.stopReason()).toBeUndefined();
    budget.dispose();
  });

  it('is aborted from the start when the caller signal already is', () => {
    // Prepare
    const clock = new TestClock();
    const reason = new Error('shutting down');
    const caller = AbortSignal.abort(reason);

    // Act
    const budget = new TickBudget({ clock, marginMs: 20 * SECOND, signal: caller });

    // Assess
    expect(budget.signal.aborted).toBe(true);
    expect(budget.signal.reason).toBe(reason);
    expect(budget.isAbort(reason)).toBe(true);
  });

  it('reports its deadline, or none', () => {
    // Prepare
    const clock = new TestClock();
    const deadline = clock.now() + 60 * SECOND;

    // Act
    const timed = new TickBudget({ clock, deadline, marginMs: 20 * SECOND });
    const untimed = new TickBudget({ clock, marginMs: 20 * SECOND });
    timed.dispose();

    // Assess
    expect(timed.deadline).toBe(deadline);
    expect(untimed.deadline).toBeUndefined();
  });
});
