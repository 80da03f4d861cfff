// A scheduled task's budget (commands and wall-clock time) and the run lock's TTL, on a clock the test moves by hand.
import { describe, expect, it } from 'vitest';
import { createBudget } from '../../lib/runtime/cron-task/budget.ts';
import { RUN_LOCK_MAX_MS, runLockTtlMs, TASK_OVERRUN_MS } from '../../lib/cron/run-lock-ttl.ts';
import { KEY_REGISTRY } from '../../lib/keys/index.ts';

function fakeClock(start = 1_750_000_000_000) {
  let now = start;
  return { now: () => now, advance: (ms: number) => void (now += ms) };
}

describe('createBudget', () => {
  it('counts the commands spent and what is left, never below zero', () => {
    const budget = createBudget({ commands: 100, timeMs: 5_000 }, fakeClock());
    expect(budget.used()).toBe(0);
    expect(budget.commandsLeft()).toBe(100);
    budget.spend(1);
    budget.spend(39);
    expect(budget.used()).toBe(40);
    expect(budget.commandsLeft()).toBe(60);
    expect(budget.exhausted()).toBe(false);
    budget.spend(60);
    expect(budget.commandsLeft()).toBe(0);
    expect(budget.exhausted()).toBe(true);
    // A batch sized before the check may overshoot: the count stays true, what is left stays at zero.
    budget.spend(7);
    expect(budget.used()).toBe(107);
    expect(budget.commandsLeft()).toBe(0);
  });

  it('runs out at its deadline, measured from when it was made', () => {
    const clock = fakeClock();
    clock.advance(12_345); // time before the budget exists does not count
    const budget = createBudget({ commands: 100, timeMs: 5_000 }, clock);
    expect(budget.msLeft()).toBe(5_000);
    clock.advance(4_999);
    expect(budget.msLeft()).toBe(1);
    expect(budget.exhausted()).toBe(false);
    clock.advance(1);
    expect(budget.msLeft()).toBe(0);
    expect(budget.exhausted()).toBe(true);
    clock.advance(10_000);
    expect(budget.msLeft()).toBe(0);
    // Time alone exhausts it; no command was spent.
    expect(budget.used()).toBe(0);
    expect(budget.commandsLeft()).toBe(100);
  });

  it('gives each budget its own count and deadline', () => {
    const clock = fakeClock();
    const first = createBudget({ commands: 10, timeMs: 1_000 }, clock);
    first.spend(10);
    clock.advance(1_000);
    const second = createBudget({ commands: 10, timeMs: 1_000 }, clock);
    expect(first.exhausted()).toBe(true);
    expect(second.exhausted()).toBe(false);
    expect(second.commandsLeft()).toBe(10);
    expect(second.msLeft()).toBe(1_000);
  });
});

describe('runLockTtlMs', () => {
  it('covers every task budget with its overrun, plus the run margin', () => {
    expect(runLockTtlMs(0, 5_000)).toBe(2_000);
    expect(runLockTtlMs(1, 5_000)).toBe(5_000 + TASK_OVERRUN_MS + 2_000);
    expect(runLockTtlMs(5, 5_000)).toBe(5 * (5_000 + TASK_OVERRUN_MS) + 2_000);
    expect(runLockTtlMs(5, 100)).toBe(5 * (100 + TASK_OVERRUN_MS) + 2_000);
  });

  it('stays within the registry row, whatever the task count or the largest allowed time budget', () => {
    const row = KEY_REGISTRY.find((entry) => entry.name === 'cronRunLock');
    expect(row?.ttl.maxSeconds).toBe(RUN_LOCK_MAX_MS / 1000);
    // Five tasks at CRON_TASK_TIME_BUDGET_MS's maximum (60 s) are not capped.
    expect(runLockTtlMs(5, 60_000)).toBeLessThan(RUN_LOCK_MAX_MS);
    expect(runLockTtlMs(1_000, 60_000)).toBe(RUN_LOCK_MAX_MS);
  });
});
