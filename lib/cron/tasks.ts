// The scheduled function's default task list, run in this order by every trigger (Workers, Lambda, npm start, npm run cron).
import { inviteExpiryTask, inviteIndexCleanupTask, inviteReconcileTask } from '../runtime/invites/index.ts';
import { auditExportTask } from '../runtime/jobs/index.ts';
import { webhookDeliveryTask } from '../events/delivery/delivery-task.ts';
import { retentionTask } from '../runtime/retention/index.ts';
import { denylistRepairTask } from '../runtime/revocation/index.ts';
import { syrveHousekeepingTask } from '../runtime/syrve/index.ts';
import type { CronTask } from '../runtime/cron-task/task.ts';

/**
 * The order is the order they run in; a run whose lock time runs short leaves the last ones for the next run
 * (lib/cron/run-scheduled.ts), so the security repairs come first: a revoked token must not come back to life, and a
 * lost reply must end exactly once, before housekeeping and the audit export. The webhook deliveries come after the tasks
 * that write events (invite expiry, export finished), so those go out in the same run. Retention is last: what it deletes can
 * wait a run.
 */
export const CRON_TASKS: readonly CronTask[] = [
  denylistRepairTask,
  inviteReconcileTask,
  inviteIndexCleanupTask,
  inviteExpiryTask,
  syrveHousekeepingTask,
  auditExportTask,
  webhookDeliveryTask,
  retentionTask,
];
