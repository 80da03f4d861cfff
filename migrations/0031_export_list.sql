-- The export list (GET /orgs/{orgId}/audit/exports, lib/runtime/jobs/list-exports.ts): an organisation's jobs newest
-- first, one keyset page at a time by (created_at, id), and the API key that asked for each, so the list can name it.

-- Page order with its tie-break, so the cursor is an index condition and a page reads only its own rows. It replaces
-- jobs_organization_idx (organization_id, created_at DESC), of which it is a superset; nothing else needs that one.
CREATE INDEX IF NOT EXISTS jobs_organization_list_idx ON jobs (organization_id, created_at DESC, id DESC);
DROP INDEX IF EXISTS jobs_organization_idx;

-- The key an export was requested with (requested_by_user_id stays the admin in whose name the key acts, as
-- audit_events.actor_api_key_id sits beside actor_user_id in migrations/0030_api_keys.sql); null when a person asked.
-- No foreign key, as on audit_events: the column records who acted, whatever becomes of the key.
ALTER TABLE jobs ADD COLUMN requested_by_api_key_id uuid NULL;

-- Exports requested by a key before this column existed: their audit.export_requested row names the key, written in
-- the create's transaction at the job's created_at (lib/runtime/jobs/create-export.ts), so the lookup walks
-- audit_events_organization_time_idx. Jobs are kept EXPORT_RETENTION_DAYS after they finish, so there are few.
UPDATE jobs
   SET requested_by_api_key_id = requested.actor_api_key_id
  FROM audit_events AS requested
 WHERE requested.organization_id = jobs.organization_id
   AND requested.occurred_at = jobs.created_at
   AND requested.action = 'audit.export_requested'
   AND requested.target_id = jobs.id
   AND requested.actor_api_key_id IS NOT NULL;
