// How long the scheduled function's run lock lives: every task's time budget and overrun, plus the run's own steps.
import { CRON_RUN_LOCK_MAX_SECONDS } from '../keys/index.ts';

/**
 * What one task may run past its time budget: a task checks the budget before each batch, so the batch in hand
 * (a Redis call, at most a 2 s deadline) and its cursor write (a `commit`, 2.5 s) can still finish after it.
 */
export const TASK_OVERRUN_MS = 5_000;

/** Taking and releasing the lock, and the run's last log line. */
const RUN_MARGIN_MS = 2_000;

/** The upper bound declared with the key (lib/keys/defs/cron.ts). */
export const RUN_LOCK_MAX_MS = CRON_RUN_LOCK_MAX_SECONDS * 1000;

/**
 * The lock outlives a run whose every task stays within its budget and overrun, so no second run starts while
 * this one works; a holder that dies leaves a lock that expires within this. The runner starts a task only while
 * the lock still covers that task's budget and overrun (lib/cron/run-scheduled.ts), so a capped TTL stays safe.
 */
export function runLockTtlMs(taskCount: number, taskTimeBudgetMs: number): number {
  return Math.min(RUN_LOCK_MAX_MS, taskCount * (taskTimeBudgetMs + TASK_OVERRUN_MS) + RUN_MARGIN_MS);
}
