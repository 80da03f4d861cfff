-- An organisation's sign-in policy (docs/design/sign-in-policy.md): which ways of signing in it accepts and whether it
-- requires a second factor. Kept on the organisation's row, so every sign-in path reads it in the statement it already
-- runs there (no new round trip), and the session's insert checks it again (no stale allow).

-- The default accepts every method and requires no second factor: what every organisation had before this migration.
ALTER TABLE organizations
  ADD COLUMN sign_in_require_mfa boolean NOT NULL DEFAULT false,
  ADD COLUMN sign_in_methods text[] NOT NULL DEFAULT ARRAY['password', 'oidc', 'passkey'],
  ADD CONSTRAINT organizations_sign_in_methods CHECK (
    cardinality(sign_in_methods) BETWEEN 1 AND 3
    AND sign_in_methods <@ ARRAY['password', 'oidc', 'passkey']
    AND array_position(sign_in_methods, NULL) IS NULL);

-- What the policy says of a session method (sessions.method): 'allowed', 'method-not-allowed' (its kind is not in the
-- organisation's list) or 'mfa-required' (the organisation requires a second factor this sign-in did not have). The
-- kind is the word before '+'; '+totp' is a second factor, and a passkey is one by itself (user verification is
-- required). The console's dev link (APP_ENV=dev only) is outside every policy, as it is outside the provider lists.
-- An unknown organisation has no policy to refuse with: the callers refuse it for their own reasons.
CREATE FUNCTION auth_sign_in_policy_verdict(p_method text, p_organization_id uuid) RETURNS text
LANGUAGE sql STABLE AS $$
  SELECT CASE
    WHEN p_method = 'dev-link' THEN 'allowed'
    WHEN o.id IS NULL THEN 'allowed'
    WHEN NOT (split_part(p_method, '+', 1) = ANY (o.sign_in_methods)) THEN 'method-not-allowed'
    WHEN o.sign_in_require_mfa AND NOT (p_method LIKE '%+totp' OR p_method = 'passkey') THEN 'mfa-required'
    ELSE 'allowed'
  END
  FROM (SELECT p_organization_id AS wanted) w
  LEFT JOIN organizations o ON o.id = w.wanted
$$;

-- Every session insert asks it (a trigger, like the suspension's of migrations/0013_members.sql), so no way of opening a
-- session can forget it, and a policy committed after the sign-in's own read of it still refuses the session. RS406:
-- the method is not allowed; RS407: a second factor is required (lib/auth/sessions/open-session.ts maps both). The
-- organisation's row is read FOR SHARE: a policy change (FOR NO KEY UPDATE) and a session insert run one after the
-- other, so no session commits under a policy that was replaced before it.
CREATE FUNCTION sessions_refuse_by_sign_in_policy() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
  verdict text;
BEGIN
  PERFORM 1 FROM organizations o WHERE o.id = NEW.organization_id FOR SHARE;
  verdict := auth_sign_in_policy_verdict(NEW.method, NEW.organization_id);
  IF verdict = 'method-not-allowed' THEN
    RAISE EXCEPTION 'sign-in method not allowed by the organisation' USING ERRCODE = 'RS406';
  ELSIF verdict = 'mfa-required' THEN
    RAISE EXCEPTION 'the organisation requires a second factor' USING ERRCODE = 'RS407';
  END IF;
  RETURN NEW;
END
$$;

-- Named to fire after sessions_refuse_suspended_organization (triggers fire in name order): a suspended organisation
-- answers as before, whatever its policy.
CREATE TRIGGER sessions_sign_in_policy BEFORE INSERT ON sessions
  FOR EACH ROW WHEN (NEW.organization_id IS NOT NULL AND NEW.method IS NOT NULL)
  EXECUTE FUNCTION sessions_refuse_by_sign_in_policy();

-- The one rule of migrations/0021_session_switch.sql, now with the organisation's policy: a switch into an organisation
-- whose policy refuses the session's sign-in (a method it does not allow, or no second factor where it requires one)
-- is 'sign-in-required', as for a provider it does not list; the memberships' switchable mark and the MFA step-up
-- follow, since they ask the same function. A passkey's sign-in is accepted wherever the policy allows it, as a
-- password's is (migrations/0025_passkeys.sql).
CREATE OR REPLACE FUNCTION auth_sign_in_accepted(p_method text, p_provider_id text, p_organization_id uuid) RETURNS boolean
LANGUAGE sql STABLE AS $$
  SELECT CASE
    WHEN p_method = 'dev-link' THEN true
    WHEN auth_sign_in_policy_verdict(p_method, p_organization_id) <> 'allowed' THEN false
    WHEN p_method IN ('password', 'password+totp', 'passkey') THEN true
    WHEN p_method IN ('oidc', 'oidc+totp') THEN p_provider_id IS NOT NULL AND EXISTS (
      SELECT 1 FROM oidc_provider_organizations p WHERE p.organization_id = p_organization_id AND p.provider_id = p_provider_id)
    ELSE false
  END
$$;

-- Whether at least one organisation-wide OrganizationAdmin could still sign in under `p_methods`: by password when it
-- is allowed and they have one, by OpenID when it is allowed and the organisation lists a provider (linking is by
-- verified email, so every member can). A required second factor locks nobody out: a member without one enrols at
-- sign-in. By passkey when it is allowed and they have registered one (migrations/0025_passkeys.sql).
CREATE FUNCTION auth_admins_can_sign_in(p_organization_id uuid, p_methods text[]) RETURNS boolean
LANGUAGE sql STABLE AS $$
  SELECT EXISTS (
    SELECT 1 FROM role_assignments ra JOIN users u ON u.id = ra.user_id
     WHERE ra.organization_id = p_organization_id AND ra.location_id IS NULL AND ra.role_code = 'OrganizationAdmin'
       AND (('password' = ANY (p_methods) AND u.password_hash IS NOT NULL)
         OR ('oidc' = ANY (p_methods)
             AND EXISTS (SELECT 1 FROM oidc_provider_organizations p WHERE p.organization_id = p_organization_id))
         OR ('passkey' = ANY (p_methods) AND EXISTS (SELECT 1 FROM passkeys k WHERE k.user_id = u.id))))
$$;

-- One policy change: under the organisation's row lock (the one member changes take, so an admin's demotion and a
-- policy change of one organisation run one after the other and the lockout check counts what committed before it).
-- Outcomes: 'not-found' (unknown or deleted), 'lockout' (no organisation-wide admin could sign in afterwards; nothing
-- written), 'unchanged', 'changed'; with the policy before (and, when changed, after).
CREATE FUNCTION sign_in_policy_set(p_org uuid, p_require_mfa boolean, p_methods text[])
RETURNS TABLE (outcome text, before_require_mfa boolean, before_methods text[])
LANGUAGE plpgsql AS $$
DECLARE
  org organizations%ROWTYPE;
BEGIN
  SELECT * INTO org FROM organizations o WHERE o.id = p_org AND o.state <> 'deleted' FOR NO KEY UPDATE;
  IF NOT FOUND THEN
    RETURN QUERY SELECT 'not-found'::text, NULL::boolean, NULL::text[];
    RETURN;
  END IF;
  IF org.sign_in_require_mfa = p_require_mfa AND org.sign_in_methods @> p_methods AND org.sign_in_methods <@ p_methods THEN
    RETURN QUERY SELECT 'unchanged'::text, org.sign_in_require_mfa, org.sign_in_methods;
    RETURN;
  END IF;
  IF NOT auth_admins_can_sign_in(p_org, p_methods) THEN
    RETURN QUERY SELECT 'lockout'::text, org.sign_in_require_mfa, org.sign_in_methods;
    RETURN;
  END IF;
  UPDATE organizations SET sign_in_require_mfa = p_require_mfa, sign_in_methods = p_methods WHERE id = p_org;
  RETURN QUERY SELECT 'changed'::text, org.sign_in_require_mfa, org.sign_in_methods;
END
$$;
