// The scheduled function's default task list, run in this order by every trigger (Workers, Lambda, npm start, npm run cron).
import type { CronTask } from './task.ts';

/**
 * Empty until the tasks land beside their areas: invite index cleanup, invite reconciliation, denylist repair,
 * Syrve housekeeping, the audit export. The order is the order they run in; a run whose lock time runs short leaves
 * the last ones for the next run (lib/cron/run-scheduled.ts), so the security repairs belong first.
 */
export const CRON_TASKS: readonly CronTask[] = [];
