// Who works an export now: one run claims one job with one conditional UPDATE, and hands it back when its budget ends.
import type { Deps } from '../../deps.ts';
import { dbCall } from '../../pg/unavailable.ts';
import { JOB_COLUMNS, type JobRow } from './job-record.ts';
import { stallSeconds } from './policy.ts';

export interface ClaimedJob {
  row: JobRow;
  /** This run's claim: every batch's UPDATE requires it, so a run whose claim lapsed and was taken over writes nothing. */
  claimId: string;
  /** It was running with no heartbeat for the stall threshold: a run died, or none came; this run resumes it. */
  wasStalled: boolean;
}

/**
 * Claims the oldest export nobody holds: queued, or running with no live claim (released by a run that ran out of
 * budget, or lapsed — the claim lasts the stall threshold from the last heartbeat). `FOR UPDATE SKIP LOCKED` lets two
 * runs at once claim two different jobs, and the condition is checked again on the locked row, so they never claim
 * one job together. The claim is a heartbeat too.
 */
export async function claimNextExport(deps: Deps, claimId: string): Promise<ClaimedJob | undefined> {
  const rows = await dbCall('commit', 'jobs.claim', (signal) =>
    deps.db.query<JobRow & { was_stalled: boolean }>(
      // MATERIALIZED: the pick runs once. As a subquery in FROM the planner may rescan it per row of the join, locking
      // one job and updating another.
      `WITH pick AS MATERIALIZED (
         SELECT id AS pick_id, (state = 'running' AND COALESCE(heartbeat_at < now() - make_interval(secs => $1), true)) AS was_stalled
           FROM jobs
          WHERE kind = 'audit-export' AND state IN ('queued', 'running') AND (lease_until IS NULL OR lease_until < now())
          ORDER BY created_at, id
          LIMIT 1
            FOR UPDATE SKIP LOCKED
       )
       UPDATE jobs
          SET state = 'running', claim_id = $2, lease_until = now() + make_interval(secs => $1), heartbeat_at = now(),
              started_at = COALESCE(started_at, now()), updated_at = now()
         FROM pick
        WHERE jobs.id = pick.pick_id
      RETURNING ${JOB_COLUMNS}, pick.was_stalled`,
      [stallSeconds(deps.config), claimId],
      { signal },
    ),
  );
  const row = rows[0];
  return row === undefined ? undefined : { row, claimId, wasStalled: row.was_stalled };
}

/** Hands the job back (still running, heartbeat kept) so the next run resumes it at once; only while the claim is ours. */
export async function releaseJob(deps: Deps, claim: { jobId: string; claimId: string }): Promise<void> {
  await dbCall('commit', 'jobs.release', (signal) =>
    deps.db.query(
      `UPDATE jobs SET claim_id = NULL, lease_until = NULL, updated_at = now() WHERE id = $1 AND claim_id = $2 AND state = 'running'`,
      [claim.jobId, claim.claimId],
      { signal },
    ),
  );
}

/** Gives up on a job for good (a fault that would repeat on every run), with a short code, never an error message. */
export async function failJob(deps: Deps, claim: { jobId: string; claimId: string }, errorCode: string): Promise<boolean> {
  const rows = await dbCall('commit', 'jobs.fail', (signal) =>
    deps.db.query(
      `UPDATE jobs SET state = 'failed', error_code = $3, finished_at = now(), claim_id = NULL, lease_until = NULL, updated_at = now()
        WHERE id = $1 AND claim_id = $2 AND state = 'running' RETURNING id`,
      [claim.jobId, claim.claimId, errorCode],
      { signal },
    ),
  );
  return rows.length > 0;
}
