// The shape of one scheduled task and of the one structured line it reports per run.
import type { Deps } from '../../deps.ts';
import type { CronBudget } from './budget.ts';

export interface TaskReport {
  task: string;
  /** Objects looked at (index members, receipts, sessions, connections, job batches…). */
  visited: number;
  /** Objects deleted or finished. */
  removed: number;
  /** Objects written again (denylist entries, TTLs restored, jobs resumed). */
  repaired: number;
  /** Commands the budget recorded. */
  commands: number;
  /** True when the task reached the end of its work list; false when the budget stopped it (it resumes next run). */
  done: boolean;
}

export interface CronRunContext {
  correlationId: string;
}

/**
 * A task is bounded (it stops when `budget.exhausted()`), resumable (it keeps its cursor with lib/runtime/cron-task/cursor.ts and
 * starts there next run), idempotent (a run repeated or run twice at once changes nothing twice), and safe beside the
 * request paths (every change is one script or statement that re-checks what it deletes).
 */
export interface CronTask {
  name: string;
  run(deps: Deps, budget: CronBudget, context: CronRunContext): Promise<TaskReport>;
}
