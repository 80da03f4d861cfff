-- Members an organisation manages (lib/auth/members/): the page order of its member list, a role change and a removal
-- that keep at least one organisation-wide OrganizationAdmin, and no session opened in a suspended organisation
-- (docs/design/tenants.md#members-and-roles, docs/design/tenants.md#suspension).

-- GET /orgs/{orgId}/members pages one organisation's role assignments by (created_at, id): this index holds them in
-- that order, so a page reads its own rows and the cursor is an index condition.
CREATE INDEX IF NOT EXISTS role_assignments_member_list_idx ON role_assignments (organization_id, created_at, id);

-- Changes the role a user holds at one scope of the organisation (p_location NULL: organisation-wide). Membership
-- changes of one organisation run one at a time: each first takes the organisation's row (FOR NO KEY UPDATE, which an
-- invite's grant, a FOREIGN KEY check taking FOR KEY SHARE, does not wait for), and every statement after it sees all
-- that committed before. So two admins demoting each other at once cannot both pass the last-admin check: the second
-- counts after the first has committed. Outcomes: 'not-found' (no such organisation, or no role at that scope),
-- 'unchanged' (that role already), 'last-admin' (the only organisation-wide OrganizationAdmin would stop being one),
-- 'changed'. The caller writes the audit row in the same statement (lib/auth/members/change-member-role.ts).
CREATE FUNCTION members_change_role(p_org uuid, p_user uuid, p_location uuid, p_role text)
RETURNS TABLE (outcome text, from_role text, email text, joined_at timestamptz)
LANGUAGE plpgsql AS $$
DECLARE
  assignment role_assignments%ROWTYPE;
  member_email text;
BEGIN
  PERFORM 1 FROM organizations WHERE id = p_org FOR NO KEY UPDATE;
  IF NOT FOUND THEN
    RETURN QUERY SELECT 'not-found'::text, NULL::text, NULL::text, NULL::timestamptz;
    RETURN;
  END IF;
  SELECT * INTO assignment FROM role_assignments
   WHERE user_id = p_user AND organization_id = p_org AND location_id IS NOT DISTINCT FROM p_location
   FOR UPDATE;
  IF NOT FOUND THEN
    RETURN QUERY SELECT 'not-found'::text, NULL::text, NULL::text, NULL::timestamptz;
    RETURN;
  END IF;
  SELECT u.email INTO member_email FROM users u WHERE u.id = p_user;
  IF assignment.role_code = p_role THEN
    RETURN QUERY SELECT 'unchanged'::text, assignment.role_code, member_email, assignment.created_at;
    RETURN;
  END IF;
  IF p_location IS NULL AND assignment.role_code = 'OrganizationAdmin' AND NOT EXISTS (
       SELECT 1 FROM role_assignments
        WHERE organization_id = p_org AND location_id IS NULL AND role_code = 'OrganizationAdmin' AND user_id <> p_user) THEN
    RETURN QUERY SELECT 'last-admin'::text, assignment.role_code, member_email, assignment.created_at;
    RETURN;
  END IF;
  UPDATE role_assignments SET role_code = p_role WHERE id = assignment.id;
  RETURN QUERY SELECT 'changed'::text, assignment.role_code, member_email, assignment.created_at;
END
$$;

-- Removes a user from the organisation: every role they hold in it, and every live session they opened in it
-- (revoked_at set, as an admin's revoke does). Serialised with members_change_role by the same row lock. Outcomes:
-- 'not-found' (no role in this organisation), 'last-admin' (they are its only organisation-wide OrganizationAdmin),
-- 'removed'. Returns, for what follows the commit: the organisation-wide role they held, how many roles went, the
-- Outlets whose member count changed (every Outlet of the organisation under an organisation-wide role, at most
-- p_max_locations + 1 of them, so the caller can tell "too many to name"), and the revoked sessions.
CREATE FUNCTION members_remove(p_org uuid, p_user uuid, p_now timestamptz, p_max_locations integer)
RETURNS TABLE (outcome text, org_role text, role_count integer, location_ids uuid[], session_ids uuid[])
LANGUAGE plpgsql AS $$
DECLARE
  held_org_role text;
  removed integer;
  outlets uuid[];
  revoked uuid[];
BEGIN
  PERFORM 1 FROM organizations WHERE id = p_org FOR NO KEY UPDATE;
  IF NOT FOUND THEN
    RETURN QUERY SELECT 'not-found'::text, NULL::text, 0, '{}'::uuid[], '{}'::uuid[];
    RETURN;
  END IF;
  PERFORM 1 FROM role_assignments WHERE user_id = p_user AND organization_id = p_org FOR UPDATE;
  IF NOT FOUND THEN
    RETURN QUERY SELECT 'not-found'::text, NULL::text, 0, '{}'::uuid[], '{}'::uuid[];
    RETURN;
  END IF;
  SELECT role_code INTO held_org_role FROM role_assignments
   WHERE user_id = p_user AND organization_id = p_org AND location_id IS NULL;
  IF held_org_role = 'OrganizationAdmin' AND NOT EXISTS (
       SELECT 1 FROM role_assignments
        WHERE organization_id = p_org AND location_id IS NULL AND role_code = 'OrganizationAdmin' AND user_id <> p_user) THEN
    RETURN QUERY SELECT 'last-admin'::text, held_org_role, 0, '{}'::uuid[], '{}'::uuid[];
    RETURN;
  END IF;
  IF held_org_role IS NOT NULL THEN
    SELECT COALESCE(array_agg(id), '{}') INTO outlets
      FROM (SELECT id FROM locations WHERE organization_id = p_org ORDER BY id LIMIT p_max_locations + 1) AS some_outlets;
  ELSE
    SELECT COALESCE(array_agg(location_id), '{}') INTO outlets
      FROM role_assignments WHERE user_id = p_user AND organization_id = p_org AND location_id IS NOT NULL;
  END IF;
  DELETE FROM role_assignments WHERE user_id = p_user AND organization_id = p_org;
  GET DIAGNOSTICS removed = ROW_COUNT;
  -- As lib/auth/sessions/revoke-member-sessions.ts: only the sessions opened in this organisation, live ones only.
  WITH ended AS (
    UPDATE sessions SET revoked_at = p_now
     WHERE user_id = p_user AND organization_id = p_org AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > p_now)
    RETURNING id
  )
  SELECT COALESCE(array_agg(id), '{}') INTO revoked FROM ended;
  RETURN QUERY SELECT 'removed'::text, held_org_role, removed, outlets, revoked;
END
$$;

-- No session is opened in a suspended organisation, whichever path opens it (password, MFA, OIDC, the console's dev
-- link): the insert is refused with SQLSTATE RS403, which lib/auth/sessions/open-session.ts answers as 403
-- TENANT_SUSPENDED. FOR SHARE waits for a suspension being committed (lib/runtime/tenants/set-state.ts takes the row
-- FOR UPDATE) and reads its outcome, so a sign-in racing a suspension either commits before it or is refused.
-- Sessions without an organisation (an external identity provider's, recorded at logout) are not checked.
CREATE FUNCTION sessions_refuse_suspended_organization() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
  org_state text;
BEGIN
  -- The lock is taken whatever the state (a WHERE on it would skip the row a suspension is changing, without waiting).
  SELECT state INTO org_state FROM organizations WHERE id = NEW.organization_id FOR SHARE;
  IF org_state = 'suspended' THEN
    RAISE EXCEPTION 'organisation suspended' USING ERRCODE = 'RS403';
  END IF;
  RETURN NEW;
END
$$;

CREATE TRIGGER sessions_refuse_suspended_organization BEFORE INSERT ON sessions
  FOR EACH ROW WHEN (NEW.organization_id IS NOT NULL) EXECUTE FUNCTION sessions_refuse_suspended_organization();
