-- No session opened in a suspended organisation (docs/design/tenants.md#suspension).

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
