-- Background jobs (the audit export first): the durable truth of each job, and the file it writes, in parts.
-- Redis only caches a running job's progress (registry row jobCache); nothing here depends on that cache.

CREATE TABLE jobs (
  id uuid PRIMARY KEY,
  organization_id uuid NOT NULL REFERENCES organizations (id),
  kind text NOT NULL CHECK (kind IN ('audit-export')),
  state text NOT NULL CHECK (state IN ('queued', 'running', 'done', 'failed', 'cancelled')),
  requested_by_user_id uuid NOT NULL REFERENCES users (id),
  correlation_id text NOT NULL CHECK (length(correlation_id) BETWEEN 1 AND 128),
  -- The export covers the organisation's audit events that occurred before this instant (the request's time).
  until_occurred_at timestamptz NOT NULL,
  -- How many events the file will hold (fixed at creation, at most the cap), how many it holds so far, and whether
  -- the cap left older events out.
  rows_total integer NOT NULL CHECK (rows_total >= 0),
  rows_done integer NOT NULL DEFAULT 0 CHECK (rows_done >= 0),
  truncated boolean NOT NULL DEFAULT false,
  -- The last exported event, (occurred_at, id): the next batch starts after it. NULL: start at the beginning.
  -- The initial value skips what the cap leaves out.
  cursor_occurred_at timestamptz NULL,
  cursor_id uuid NULL,
  -- Parts written to job_files; also the version every batch's UPDATE compares, so no batch lands twice.
  parts integer NOT NULL DEFAULT 0 CHECK (parts >= 0),
  file_bytes bigint NOT NULL DEFAULT 0 CHECK (file_bytes >= 0),
  -- Liveness: set by every batch. A running job whose heartbeat is older than the stall threshold is stalled.
  heartbeat_at timestamptz NULL,
  -- Who works the job now: a run's claim id, held until lease_until; NULL when nobody does. A run that stops on its
  -- budget releases it, so the next run resumes at once; a run that died leaves it to expire.
  claim_id uuid NULL,
  lease_until timestamptz NULL,
  -- Why a job failed: a short code, never an error message.
  error_code text NULL CHECK (error_code IS NULL OR length(error_code) <= 64),
  created_at timestamptz NOT NULL,
  started_at timestamptz NULL,
  finished_at timestamptz NULL,
  updated_at timestamptz NOT NULL DEFAULT now(),
  CHECK ((cursor_occurred_at IS NULL) = (cursor_id IS NULL)),
  CHECK ((claim_id IS NULL) = (lease_until IS NULL))
);

CREATE INDEX jobs_organization_idx ON jobs (organization_id, created_at DESC);
-- The worker's pick: unfinished jobs, oldest first.
CREATE INDEX jobs_unfinished_idx ON jobs (created_at, id) WHERE state IN ('queued', 'running');

-- The export's CSV, one part per batch (no object store in this project): the file is the header and the parts in
-- part_no order. Deleted with its job's cancellation; kept with the job otherwise.
CREATE TABLE job_files (
  job_id uuid NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
  part_no integer NOT NULL CHECK (part_no > 0),
  content text NOT NULL,
  bytes integer NOT NULL CHECK (bytes >= 0),
  PRIMARY KEY (job_id, part_no)
);

-- Called first in the transaction that creates a job: waits for the organisation's other creates (an advisory lock
-- held until COMMIT), then refuses (SQLSTATE RS429) when the organisation already has p_max unfinished jobs of the
-- kind, so concurrent creates cannot pass the cap together.
CREATE FUNCTION jobs_take_slot(p_organization uuid, p_kind text, p_max integer) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_advisory_xact_lock(hashtextextended('jobs:' || p_kind || ':' || p_organization::text, 0));
  IF (SELECT count(*) FROM jobs
       WHERE organization_id = p_organization AND kind = p_kind AND state IN ('queued', 'running')) >= p_max THEN
    RAISE EXCEPTION 'too many unfinished jobs' USING ERRCODE = 'RS429';
  END IF;
END
$$;

-- Cancels an unfinished job, atomically with the caller's audit row (the next statement of its transaction): refuses
-- (RS404) a job not in the organisation, (RS208) one already cancelled, so a repeat writes no second audit row, and
-- (RS409, DETAIL the state) one already done or failed. Deletes the file's parts; the row stays.
CREATE FUNCTION jobs_cancel(p_job uuid, p_organization uuid) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  current_state text;
BEGIN
  SELECT state INTO current_state FROM jobs WHERE id = p_job AND organization_id = p_organization FOR UPDATE;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'no such job' USING ERRCODE = 'RS404';
  END IF;
  IF current_state = 'cancelled' THEN
    RAISE EXCEPTION 'already cancelled' USING ERRCODE = 'RS208';
  END IF;
  IF current_state NOT IN ('queued', 'running') THEN
    RAISE EXCEPTION 'job finished' USING ERRCODE = 'RS409', DETAIL = current_state;
  END IF;
  UPDATE jobs SET state = 'cancelled', finished_at = now(), claim_id = NULL, lease_until = NULL, updated_at = now()
   WHERE id = p_job;
  DELETE FROM job_files WHERE job_id = p_job;
END
$$;
