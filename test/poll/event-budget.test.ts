import { describe, expect, it } from 'vitest';
import { EventBudget, eventBudgetForHeap, MIN_EVENT_BUDGET } from '../../shared/poll/event-budget.js';

const MIB = 1024 * 1024;

describe('eventBudgetForHeap', () => {
  it('gives 20% of the heap limit at 4 KB an event, and never less than two pages for each of two windows', () => {
    expect(eventBudgetForHeap(279 * MIB)).toBe(14_284);
    expect(eventBudgetForHeap(231 * MIB)).toBe(Math.floor((231 * MIB * 0.2) / 4096));
    expect(eventBudgetForHeap(1 * MIB)).toBe(MIN_EVENT_BUDGET);
    expect(() => eventBudgetForHeap(0)).toThrow(RangeError);
    expect(() => eventBudgetForHeap(Number.NaN)).toThrow(RangeError);
  });
});

describe('EventBudget', () => {
  it('gives each window a share that two windows of every source fit in', async () => {
    const budget = new EventBudget({ capacity: 40_000, sourcesAtOnce: 4 });
    const signal = new AbortController().signal;

    const reservation = await budget.open(signal);

    expect(budget.windowLimit).toBe(5_000);
    expect(reservation.tryAdd(5_000)).toBe(true);
    expect(reservation.tryAdd(1)).toBe(false);
    expect(budget.held).toBe(5_000);
    reservation.remove(1_000);
    expect(budget.held).toBe(4_000);
    reservation.release();
    expect(budget.held).toBe(0);
    expect(reservation.tryAdd(1)).toBe(false);
  });

  it('widens a window once no other window holds events, and opens no new window meanwhile', async () => {
    const budget = new EventBudget({ capacity: 8_000, sourcesAtOnce: 2 });
    const signal = new AbortController().signal;
    const other = await budget.open(signal);
    other.tryAdd(1_500);
    const crowded = await budget.open(signal);
    crowded.tryAdd(2_000);
    const order: string[] = [];

    const widened = budget.widen(crowded, signal).then(() => order.push('widened'));
    const opened = budget.open(signal).then((late) => {
      order.push('opened');
      return late;
    });
    await Promise.resolve();
    expect(order).toEqual([]);
    expect(budget.held).toBe(1_500);
    other.release();
    await widened;
    await Promise.resolve();

    expect(order).toEqual(['widened']);
    expect(crowded.widened).toBe(true);
    expect(crowded.tryAdd(8_000)).toBe(true);
    expect(crowded.tryAdd(1)).toBe(false);
    crowded.release();
    const late = await opened;
    expect(order).toEqual(['widened', 'opened']);
    expect(late.limit).toBe(budget.windowLimit);
  });

  it('stops waiting when the signal aborts', async () => {
    const budget = new EventBudget({ capacity: 4_000, sourcesAtOnce: 1 });
    const holder = await budget.open(new AbortController().signal);
    holder.tryAdd(100);
    const waiting = await budget.open(new AbortController().signal);
    const controller = new AbortController();

    const widened = budget.widen(waiting, controller.signal);
    controller.abort(new Error('deadline'));

    await expect(widened).rejects.toThrow('deadline');
    holder.release();
    expect(budget.held).toBe(0);
    await expect(budget.open(new AbortController().signal)).resolves.toBeDefined();
  });
});
