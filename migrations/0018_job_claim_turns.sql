-- Fair claiming of background jobs: the worker serves the organisation it served least recently, so one
-- organisation's long exports queue behind each other, not in front of everyone else's (docs/design/jobs.md).

-- When a run last claimed a job of each organisation and kind; written by the claim statement itself
-- (lib/runtime/jobs/claim-job.ts). One row per organisation that ever had a job claimed.
CREATE TABLE job_claim_turns (
  organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  kind text NOT NULL CHECK (kind IN ('audit-export')),
  last_claimed_at timestamptz NOT NULL,
  PRIMARY KEY (organization_id, kind)
);

-- No new index on jobs: the claim reads the claimable jobs through jobs_unfinished_idx (migrations/0006), which holds
-- only unfinished ones, at most AUDIT_EXPORT.maxUnfinishedPerOrg (3) per organisation; one on (organization_id,
-- created_at) went unused by the planner at 1 000 organisations with 3 000 queued jobs.
