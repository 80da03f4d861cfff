-- Deleting an organisation (lib/auth/tenant-deletion/delete-tenant.ts, docs/design/tenants.md#deletion): no session
-- is opened in a deleted organisation whichever path opens it, and the delete finds the organisation's live sessions
-- by an index instead of a scan of every session.

-- The delete revokes every live session opened in the organisation, under the organisation's row lock: by this index
-- that is the organisation's own rows, not a scan of the table while the lock is held.
CREATE INDEX sessions_organization_open_idx ON sessions (organization_id) WHERE revoked_at IS NULL AND organization_id IS NOT NULL;

-- As migrations/0013_members.sql's, and a deleted organisation refused too, with SQLSTATE RS404, which
-- lib/auth/sessions/open-session.ts answers as an unknown organisation. The same FOR SHARE read closes the race with the
-- delete (which holds the row FOR UPDATE): a sign-in whose own read came before the delete either committed its session
-- before it (and the delete revoked it) or is refused here.
CREATE OR REPLACE FUNCTION sessions_refuse_suspended_organization() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
  org_state text;
BEGIN
  -- The lock is taken whatever the state (a WHERE on it would skip the row a suspension is changing, without waiting).
  SELECT state INTO org_state FROM organizations WHERE id = NEW.organization_id FOR SHARE;
  IF org_state = 'suspended' THEN
    RAISE EXCEPTION 'organisation suspended' USING ERRCODE = 'RS403';
  END IF;
  IF org_state = 'deleted' THEN
    RAISE EXCEPTION 'organisation deleted' USING ERRCODE = 'RS404';
  END IF;
  RETURN NEW;
END
$$;
