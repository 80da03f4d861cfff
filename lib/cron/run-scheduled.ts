// The scheduled function: under one run lock, each task in order with a fresh budget, one log line per task and one per run.
import { uuidv7 } from 'uuidv7';
import type { Deps } from '../deps.ts';
import { errorKind } from '../log/logger.ts';
import { createBudget } from '../runtime/cron-task/budget.ts';
import { releaseRunLock, takeRunLock } from './run-lock.ts';
import { runLockTtlMs, TASK_OVERRUN_MS } from './run-lock-ttl.ts';
import type { CronTask, TaskReport } from '../runtime/cron-task/task.ts';
import { CRON_TASKS } from './tasks.ts';

/** What started the run; it is on every log line, so a run can be told from another in the logs. */
export type CronTrigger = 'workers' | 'lambda' | 'timer' | 'cli';

export interface ScheduledOptions {
  trigger: CronTrigger;
  /** The default list is CRON_TASKS; tests pass their own. */
  tasks?: readonly CronTask[];
  /** Aborted: no further task starts (npm start's Ctrl-C); the task in hand finishes within its budget. */
  signal?: AbortSignal;
}

export type ScheduledRun =
  | {
      ran: true;
      correlationId: string;
      /** One per task that returned, in order. */
      reports: TaskReport[];
      /** Tasks that threw (logged `cron_task_failed`); the run went on with the next. */
      failed: string[];
      /** Tasks never started: the lock could no longer cover their budget, or the signal was aborted. They run next time. */
      notStarted: string[];
    }
  | {
      ran: false;
      correlationId: string;
      /** `locked`: another run holds the lock (`cron_skipped`); `lock-unavailable`: Redis did not answer (`cron_run_failed`). */
      reason: 'locked' | 'lock-unavailable';
      reports: [];
    };

export async function runScheduled(deps: Deps, options: ScheduledOptions): Promise<ScheduledRun> {
  const { clock, logger } = deps;
  const { taskCommandBudget, taskTimeBudgetMs } = deps.config.cron;
  const tasks = options.tasks ?? CRON_TASKS;
  const correlationId = uuidv7();
  const context = { trigger: options.trigger, correlationId };

  const startedAt = clock.now();
  const ttlMs = runLockTtlMs(tasks.length, taskTimeBudgetMs);
  let lock;
  try {
    lock = await takeRunLock(deps, ttlMs);
  } catch (error) {
    // The tasks are safe to run twice at once, but without the lock two runs could each spend a full budget on the same work.
    logger.error('cron_run_failed', { ...context, reason: 'lock-unavailable', errorKind: errorKind(error) });
    return { ran: false, correlationId, reason: 'lock-unavailable', reports: [] };
  }
  if (!lock.taken) {
    logger.info('cron_skipped', { ...context, lockMsLeft: lock.msLeft });
    return { ran: false, correlationId, reason: 'locked', reports: [] };
  }
  // Measured from before the take was sent, so the lock ends no earlier than this.
  const lockEndsAt = startedAt + ttlMs;

  const reports: TaskReport[] = [];
  const failed: string[] = [];
  const notStarted: string[] = [];
  for (const task of tasks) {
    // A task starts only if the lock still covers it: past its TTL another run could start beside this one.
    if (options.signal?.aborted === true || lockEndsAt - clock.now() < taskTimeBudgetMs + TASK_OVERRUN_MS) {
      notStarted.push(task.name);
      continue;
    }
    const budget = createBudget({ commands: taskCommandBudget, timeMs: taskTimeBudgetMs }, clock);
    const taskStartedAt = clock.now();
    try {
      const report = await task.run(deps, budget, { correlationId });
      // The budget's count, not the task's own, is what the line and the report carry.
      const done = { ...report, task: task.name, commands: budget.used() };
      reports.push(done);
      logger.info('cron_task', {
        task: done.task,
        visited: done.visited,
        removed: done.removed,
        repaired: done.repaired,
        commands: done.commands,
        ms: clock.now() - taskStartedAt,
        done: done.done,
        ...context,
      });
    } catch (error) {
      failed.push(task.name);
      // The kind only: a client library's message can quote keys and values.
      logger.error('cron_task_failed', {
        task: task.name,
        errorKind: errorKind(error),
        commands: budget.used(),
        ms: clock.now() - taskStartedAt,
        ...context,
      });
    }
  }

  let released: boolean | undefined;
  try {
    released = await releaseRunLock(deps, lock.owner);
  } catch (error) {
    // Harmless: the lock expires by its TTL, and the next run waits at most that long.
    logger.warn('cron_lock_release_failed', { ...context, errorKind: errorKind(error) });
  }
  // The run outlived its lock: another run may have started beside it. Budgets or the overrun allowance need a look.
  if (released === false) logger.warn('cron_lock_expired', context);

  // warn when something is left for the next run, so an alert can key on the level.
  const level = failed.length === 0 && notStarted.length === 0 ? 'info' : 'warn';
  logger[level]('cron_run', {
    tasks: reports.length,
    failed: failed.length,
    notStarted: notStarted.length,
    ms: clock.now() - startedAt,
    ...context,
  });
  return { ran: true, correlationId, reports, failed, notStarted };
}
