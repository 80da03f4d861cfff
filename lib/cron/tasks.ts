// The scheduled function's default task list, run in this order by every trigger (Workers, Lambda, npm start, npm run cron).
import { auditExportTask } from '../runtime/jobs/index.ts';
import type { CronTask } from './task.ts';

/**
 * The order is the order they run in; a run whose lock time runs short leaves the last ones for the next run
 * (lib/cron/run-scheduled.ts), so the security repairs come first and the audit export last.
 */
export const CRON_TASKS: readonly CronTask[] = [auditExportTask];
