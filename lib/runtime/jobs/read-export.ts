// jobs.readAuditExport: a job's progress from the cache while it runs, from its row otherwise.
import type { Deps } from '../../deps.ts';
import { nextScheduledRunAt } from '../cron-task/next-run.ts';
import { readJobCache } from './job-cache.ts';
import { loadJob, toJob, type Job } from './job-record.ts';

export type ReadExportOutcome = { ok: true; job: Job } | { ok: false; reason: 'not-found' };

/**
 * One Redis round trip while the job runs (the poll a progress bar makes); the row when the cache has nothing (queued,
 * finished, stalled, expired, or Redis down — then a WARN, and still an answer). The cache key is in the caller's
 * organisation, so a job id of another organisation misses it and then misses the row: `not-found`.
 */
export async function readAuditExport(deps: Deps, ref: { organizationId: string; jobId: string }): Promise<ReadExportOutcome> {
  const cached = await readJobCache(deps, ref);
  if (cached !== undefined) return { ok: true, job: cached };
  const row = await loadJob(deps, ref);
  return row === undefined
    ? { ok: false, reason: 'not-found' }
    : { ok: true, job: toJob(row, nextScheduledRunAt(deps.config, deps.clock.now())) };
}
