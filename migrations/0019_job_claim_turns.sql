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

-- The claim ranks each organisation's claimable jobs oldest first: read in this order, the window needs no sort.
CREATE INDEX jobs_unfinished_by_organization_idx ON jobs (kind, organization_id, created_at, id) WHERE state IN ('queued', 'running');
