// The one terminal line npm start prints per scheduled run, in words; each task's JSON record is in <data>/cron.log.
import type { ScheduledRun } from '../../lib/cron/run-scheduled.ts';

/** Local wall-clock time as HH:MM:SS: the interval can be a few seconds, so minutes alone would repeat. */
function timeOfDay(at: Date): string {
  return at.toTimeString().slice(0, 8);
}

export function describeRun(run: ScheduledRun, startedAt: Date, ms: number): string {
  const head = `scheduled run ${timeOfDay(startedAt)}`;
  if (!run.ran) {
    return run.reason === 'locked'
      ? `${head}: skipped, another run holds the lock (it ends within its TTL)`
      : `${head}: Redis did not answer; nothing ran`;
  }
  const failed = run.failed.length > 0 ? `${run.failed.length} failed (${run.failed.join(', ')})` : '0 failed';
  const left = run.notStarted.length > 0 ? `, ${run.notStarted.length} not started (${run.notStarted.join(', ')}; next run)` : '';
  return `${head}: ${run.reports.length + run.failed.length} tasks, ${failed}${left}, ${ms} ms`;
}
