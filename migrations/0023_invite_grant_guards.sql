-- What an invite's grant checks about its organisation and its creator, in the transaction that grants the role
-- (lib/runtime/invites/outcome.ts; docs/design/invites.md#what-a-grant-checks).

-- Refuses the grant of an invite of p_org created by p_creator:
--   RS403                                   the organisation is suspended (the invite is given back: usable again
--                                           once an operator reactivates it);
--   RS410, DETAIL 'organization-deleted'    the organisation is deleted (or unknown): treated as gone;
--   RS410, DETAIL 'creator-not-admin'       the creator no longer holds the organisation-wide OrganizationAdmin role
--                                           there (removed or demoted since the invite was made).
-- The organisation's row is taken FOR SHARE first, whatever its state (a WHERE on it would skip a row being changed
-- without waiting). That lock conflicts with the FOR NO KEY UPDATE of members_remove and members_change_role
-- (migrations/0013_members.sql) and with the FOR UPDATE or UPDATE of a suspension, reactivation or deletion, so the
-- grant and each of them run one after the other: a removal or demotion that committed first is seen by the role
-- check below (under READ COMMITTED each statement of this function reads what committed before it), and one that
-- comes second waits for the grant to commit, the creator having been an admin when the role was granted. Grants
-- share the lock with each other and with sign-ins (sessions_refuse_suspended_organization), so they never wait on
-- one another.
CREATE FUNCTION invite_assert_grantable(p_org uuid, p_creator uuid) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  org_state text;
BEGIN
  SELECT state INTO org_state FROM organizations WHERE id = p_org FOR SHARE;
  IF NOT FOUND OR org_state = 'deleted' THEN
    RAISE EXCEPTION 'organisation gone' USING ERRCODE = 'RS410', DETAIL = 'organization-deleted';
  END IF;
  IF org_state = 'suspended' THEN
    RAISE EXCEPTION 'organisation suspended' USING ERRCODE = 'RS403';
  END IF;
  IF NOT EXISTS (SELECT 1 FROM role_assignments
                  WHERE user_id = p_creator AND organization_id = p_org AND location_id IS NULL
                    AND role_code = 'OrganizationAdmin') THEN
    RAISE EXCEPTION 'invite creator no longer an admin' USING ERRCODE = 'RS410', DETAIL = 'creator-not-admin';
  END IF;
END
$$;
