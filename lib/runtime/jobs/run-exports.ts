// The scheduled task that works audit exports: claims one at a time and writes bounded batches until its budget ends.
import { uuidv7 } from 'uuidv7';
import type { CronBudget } from '../cron-task/budget.ts';
import type { CronRunContext, CronTask, TaskReport } from '../cron-task/task.ts';
import type { Deps } from '../../deps.ts';
import { errorKind } from '../../log/logger.ts';
import { DatabaseUnavailableError, sqlState } from '../../pg/unavailable.ts';
import { claimNextExport, failJob, releaseJob, type ClaimedJob } from './claim-job.ts';
import { commitBatch, readBatch } from './export-batch.ts';
import { deleteJobCache, writeJobCache } from './job-cache.ts';
import { toJob, type JobRow } from './job-record.ts';
import { AUDIT_EXPORT } from './policy.ts';

/** A batch costs a read, a commit and a cache write (or the final DEL); one more is kept for handing the job back. */
const BATCH_COMMANDS = 3;
const RESERVE = 1;
/** Claiming a job costs the claim and its first cache write. */
const CLAIM_COMMANDS = 2;

type WorkOutcome = 'done' | 'paused' | 'lost' | 'failed';

/**
 * Bounded (it stops when its budget would not cover the next batch and hands the job back), resumable (the job's row
 * holds its cursor), idempotent (a batch lands only at the part count it was read at) and safe to run beside itself
 * (one conditional claim per job) and the request paths (a cancel makes the next batch's UPDATE refuse).
 * visited: batches committed; removed: exports finished; repaired: stalled exports resumed.
 */
export const auditExportTask: CronTask = {
  name: 'audit-export',
  async run(deps: Deps, budget: CronBudget, context: CronRunContext): Promise<TaskReport> {
    const report: TaskReport = { task: 'audit-export', visited: 0, removed: 0, repaired: 0, commands: 0, done: false };
    const claimId = uuidv7();
    while (!budget.exhausted() && budget.commandsLeft() >= CLAIM_COMMANDS + BATCH_COMMANDS + RESERVE) {
      budget.spend(1);
      const claimed = await claimNextExport(deps, claimId);
      if (claimed === undefined) {
        report.done = true;
        break;
      }
      if (claimed.wasStalled) {
        report.repaired += 1;
        deps.logger.warn('audit_export_resumed_stalled', { jobId: claimed.row.id, correlationId: context.correlationId });
      }
      const outcome = await workExport(deps, budget, claimed, report, context);
      if (outcome === 'done') report.removed += 1;
      if (outcome === 'paused') break;
    }
    report.commands = budget.used();
    return report;
  },
};

async function workExport(
  deps: Deps,
  budget: CronBudget,
  claimed: ClaimedJob,
  report: TaskReport,
  context: CronRunContext,
): Promise<WorkOutcome> {
  const claim = { jobId: claimed.row.id, claimId: claimed.claimId };
  const job = { organizationId: claimed.row.organization_id, jobId: claimed.row.id };
  let row = claimed.row;
  budget.spend(1);
  await heartbeat(deps, row);
  try {
    for (;;) {
      if (budget.exhausted() || budget.commandsLeft() < BATCH_COMMANDS + RESERVE) {
        budget.spend(1);
        await releaseJob(deps, claim);
        return 'paused';
      }
      const limit = Math.min(AUDIT_EXPORT.batchRows, AUDIT_EXPORT.maxRows - row.rows_done);
      budget.spend(1);
      const batch = limit > 0 ? await readBatch(deps, row, limit) : { content: '', bytes: 0, rows: 0, last: undefined };
      // Fewer than asked means the end; so does the cap.
      const final = batch.rows < limit || row.rows_done + batch.rows >= AUDIT_EXPORT.maxRows;
      budget.spend(1);
      const next = await commitBatch(deps, { row, claimId: claimed.claimId }, batch, final);
      if (next === undefined) {
        // Cancelled meanwhile, or another run took over a lapsed claim: the job is not ours to touch any more.
        deps.logger.info('audit_export_claim_lost', { jobId: job.jobId, correlationId: context.correlationId });
        return 'lost';
      }
      row = next;
      report.visited += 1;
      budget.spend(1);
      if (final) {
        await deleteJobCache(deps, job);
        deps.logger.info('audit_export_done', { jobId: job.jobId, rows: row.rows_done, correlationId: context.correlationId });
        return 'done';
      }
      await heartbeat(deps, row);
    }
  } catch (error) {
    if (error instanceof DatabaseUnavailableError) {
      // Nothing is decided: the claim lapses after the stall threshold, or the next run after the release resumes it.
      budget.spend(1);
      await releaseJob(deps, claim).catch(() => undefined);
      throw error;
    }
    // PostgreSQL answered with an error (a bug, a constraint): it would repeat on every run, so the job fails for good.
    deps.logger.error('audit_export_failed', {
      jobId: job.jobId,
      errorKind: errorKind(error),
      sqlState: sqlState(error),
      correlationId: context.correlationId,
    });
    budget.spend(2);
    if (await failJob(deps, { ...claim, organizationId: job.organizationId, correlationId: claimed.row.correlation_id }, 'export_error'))
      await deleteJobCache(deps, job);
    return 'failed';
  }
}

/** The cache gets the heartbeat the row just recorded (PostgreSQL's clock), so both say the same time. */
function heartbeat(deps: Deps, row: JobRow): Promise<boolean> {
  return writeJobCache(deps, { ...toJob(row, null), heartbeatAtUtc: new Date(row.heartbeat_at ?? deps.clock.now()).toISOString() });
}
