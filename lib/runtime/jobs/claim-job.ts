// Who works an export now: one run claims one job with one conditional UPDATE, and hands it back when its budget ends.
import type { Deps } from '../../deps.ts';
import { conditionalAuditInsert } from '../../pg/audit.ts';
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
 * Claims the next export nobody holds — queued, or running with no live claim (released by a run that ran out of
 * budget, or lapsed: the claim lasts the stall threshold from the last heartbeat) — taking turns between
 * organisations: the oldest such job of the organisation whose last claim is oldest (never claimed first), so one
 * organisation's three long exports do not hold up everyone else's. The same statement records the claim in
 * `job_claim_turns` (migrations/0018). `FOR UPDATE SKIP LOCKED` lets two runs at once claim two different jobs, and
 * the condition is checked again on the locked row, so they never claim one job together. The claim is a heartbeat too.
 */
export async function claimNextExport(deps: Deps, claimId: string): Promise<ClaimedJob | undefined> {
  const rows = await dbCall('commit', 'jobs.claim', (signal) =>
    deps.db.query<JobRow & { was_stalled: boolean }>(
      // `turn` ranks each organisation's claimable jobs oldest first (read through jobs_unfinished_idx), so the first
      // candidates are one job per organisation, the least recently served first; a run finding that one
      // locked by a run claiming at the same instant takes the next organisation's, not the same one's second.
      // Its cost grows with the claimable jobs, at most AUDIT_EXPORT.maxUnfinishedPerOrg per organisation.
      // MATERIALIZED: each step runs once. As a subquery in FROM the planner may rescan the pick per row of the join,
      // locking one job and updating another.
      `WITH candidates AS MATERIALIZED (
         SELECT id AS candidate_id, organization_id AS candidate_organization_id,
                row_number() OVER (PARTITION BY organization_id ORDER BY created_at, id) AS turn
           FROM jobs
          WHERE kind = 'audit-export' AND state IN ('queued', 'running') AND (lease_until IS NULL OR lease_until < now())
       ),
       pick AS MATERIALIZED (
         SELECT jobs.id AS pick_id,
                (jobs.state = 'running' AND COALESCE(jobs.heartbeat_at < now() - make_interval(secs => $1), true)) AS was_stalled
           FROM candidates
           JOIN jobs ON jobs.id = candidates.candidate_id
           LEFT JOIN job_claim_turns AS turns
                  ON turns.organization_id = candidates.candidate_organization_id AND turns.kind = 'audit-export'
          WHERE jobs.state IN ('queued', 'running') AND (jobs.lease_until IS NULL OR jobs.lease_until < now())
          ORDER BY candidates.turn, turns.last_claimed_at NULLS FIRST, jobs.created_at, jobs.id
          LIMIT 1
            FOR UPDATE OF jobs SKIP LOCKED
       ),
       claimed AS (
         UPDATE jobs
            SET state = 'running', claim_id = $2, lease_until = now() + make_interval(secs => $1), heartbeat_at = now(),
                started_at = COALESCE(started_at, now()), updated_at = now()
           FROM pick
          WHERE jobs.id = pick.pick_id
        RETURNING ${JOB_COLUMNS}, pick.was_stalled
       ),
       served AS (
         INSERT INTO job_claim_turns (organization_id, kind, last_claimed_at)
         SELECT organization_id, 'audit-export', now() FROM claimed
             ON CONFLICT (organization_id, kind) DO UPDATE SET last_claimed_at = EXCLUDED.last_claimed_at
       )
      SELECT * FROM claimed`,
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
export async function failJob(
  deps: Deps,
  claim: { jobId: string; claimId: string; organizationId: string; correlationId: string },
  errorCode: string,
): Promise<boolean> {
  // The end is recorded with it (the event export.finished follows from the row, migrations/0028_webhook_endpoints.sql).
  const finished = conditionalAuditInsert(
    {
      action: 'audit.export_finished',
      actorUserId: null,
      organizationId: claim.organizationId,
      locationId: null,
      targetId: claim.jobId,
      correlationId: claim.correlationId,
      details: { outcome: 'failed' },
    },
    new Date(deps.clock.now()),
    'EXISTS (SELECT 1 FROM failed)',
    4,
  );
  const rows = await dbCall('commit', 'jobs.fail', (signal) =>
    deps.db.query(
      `WITH failed AS (
         UPDATE jobs SET state = 'failed', error_code = $3, finished_at = now(), claim_id = NULL, lease_until = NULL, updated_at = now()
          WHERE id = $1 AND claim_id = $2 AND state = 'running' RETURNING id
       ), finished AS (${finished.text})
       SELECT id FROM failed`,
      [claim.jobId, claim.claimId, errorCode, ...finished.params],
      { signal },
    ),
  );
  return rows.length > 0;
}
