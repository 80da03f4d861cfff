-- A session's sign-in, recorded so every organisation's rules can be applied to it, and the switch of a session to
-- another organisation (docs/design/sign-in.md#switching-organisation).

-- The OpenID provider an OIDC sign-in came through (its id in OIDC_PROVIDERS), and a method word for a provider's
-- sign-in finished with this deployment's TOTP factor: it was recorded as 'password+totp' before, which claims a
-- password nobody typed. Sessions opened before this migration keep provider_id NULL: an OIDC one then satisfies no
-- organisation's rules (it cannot be switched, nor stand in for a password), until the user signs in again.
ALTER TABLE sessions DROP CONSTRAINT sessions_method_check;
ALTER TABLE sessions
  ADD CONSTRAINT sessions_method_check
    CHECK (method IS NULL OR method IN ('password', 'password+totp', 'oidc', 'oidc+totp', 'dev-link')),
  ADD COLUMN provider_id text NULL CHECK (provider_id IS NULL OR provider_id ~ '^[a-z][a-z0-9-]{0,31}$'),
  ADD CONSTRAINT sessions_provider_only_for_oidc CHECK (provider_id IS NULL OR method IN ('oidc', 'oidc+totp'));

-- Whether a sign-in (a session's method and provider) satisfies an organisation's rules: the one definition the switch,
-- the memberships list and the MFA step-up all ask. A password (with or without the factor) and the console's dev link
-- are accepted everywhere; a provider's sign-in only where the organisation lists that provider
-- (migrations/0016_oidc_provider_organizations.sql); an unknown method nowhere. Organisations' own sign-in policies, once
-- they exist, are added here.
CREATE FUNCTION auth_sign_in_accepted(p_method text, p_provider_id text, p_organization_id uuid) RETURNS boolean
LANGUAGE sql STABLE AS $$
  SELECT CASE
    WHEN p_method IN ('password', 'password+totp', 'dev-link') THEN true
    WHEN p_method IN ('oidc', 'oidc+totp') THEN p_provider_id IS NOT NULL AND EXISTS (
      SELECT 1 FROM oidc_provider_organizations p WHERE p.organization_id = p_organization_id AND p.provider_id = p_provider_id)
    ELSE false
  END
$$;

-- One switch, atomically: the session moves from p_from (the presenting token's organisation) to p_to, compared and set
-- under the session's row lock, so of two switches racing only the first finds it still in p_from. Outcomes:
--   'revoked'          the session is revoked (its denylist entry may not have landed yet): nothing is written;
--   'ended'            no such session of the user, or it is past expires_at: nothing is written;
--   'moved'            the session is no longer in p_from (a switch won the race, or the token predates one);
--   'no-role'          the target is unknown or deleted, or the user holds no role there (at its level, or at p_location);
--   'location-outside' p_location is not an outlet of the target;
--   'suspended'        the target is suspended (told only to a member);
--   'sign-in-required' the session's sign-in does not satisfy the target (auth_sign_in_accepted);
--   'switched'         the session is bound to p_to, its live refresh tokens are spent (presented again, they are reuse,
--                      as after a refresh) and p_refresh_hash is the family's new head, and session.switched is audited
--                      in the target naming the session; expires_at and last_seen_at are unchanged.
-- The live refresh tokens are locked before the session, the order auth_refresh_session takes them in, so a refresh
-- racing the switch waits for it instead of deadlocking with it.
CREATE FUNCTION auth_switch_session(
  p_session_id uuid, p_user_id uuid, p_from uuid, p_to uuid, p_location uuid, p_refresh_hash text, p_now timestamptz,
  p_audit_id uuid, p_correlation_id text
) RETURNS TABLE (outcome text, expires_at timestamptz, email text, org_role text, location_role text)
LANGUAGE plpgsql AS $$
DECLARE
  session sessions%ROWTYPE;
  target_state text;
  role_org text;
  role_location text;
BEGIN
  PERFORM 1 FROM refresh_tokens r WHERE r.session_id = p_session_id AND r.used_at IS NULL FOR UPDATE;
  SELECT * INTO session FROM sessions s WHERE s.id = p_session_id AND s.user_id = p_user_id FOR UPDATE;
  IF FOUND AND session.revoked_at IS NOT NULL THEN
    RETURN QUERY SELECT 'revoked'::text, NULL::timestamptz, NULL::text, NULL::text, NULL::text;
    RETURN;
  END IF;
  IF NOT FOUND OR session.expires_at IS NULL OR session.expires_at <= p_now THEN
    RETURN QUERY SELECT 'ended'::text, NULL::timestamptz, NULL::text, NULL::text, NULL::text;
    RETURN;
  END IF;
  IF session.organization_id IS DISTINCT FROM p_from THEN
    RETURN QUERY SELECT 'moved'::text, NULL::timestamptz, NULL::text, NULL::text, NULL::text;
    RETURN;
  END IF;
  SELECT o.state INTO target_state FROM organizations o WHERE o.id = p_to;
  SELECT ra.role_code INTO role_org FROM role_assignments ra
   WHERE ra.user_id = p_user_id AND ra.organization_id = p_to AND ra.location_id IS NULL;
  IF p_location IS NOT NULL THEN
    SELECT ra.role_code INTO role_location FROM role_assignments ra
     WHERE ra.user_id = p_user_id AND ra.organization_id = p_to AND ra.location_id = p_location;
  END IF;
  IF target_state IS NULL OR target_state = 'deleted' OR (role_org IS NULL AND role_location IS NULL) THEN
    RETURN QUERY SELECT 'no-role'::text, NULL::timestamptz, NULL::text, NULL::text, NULL::text;
    RETURN;
  END IF;
  IF p_location IS NOT NULL AND NOT EXISTS (SELECT 1 FROM locations l WHERE l.id = p_location AND l.organization_id = p_to) THEN
    RETURN QUERY SELECT 'location-outside'::text, NULL::timestamptz, NULL::text, NULL::text, NULL::text;
    RETURN;
  END IF;
  IF target_state = 'suspended' THEN
    RETURN QUERY SELECT 'suspended'::text, NULL::timestamptz, NULL::text, NULL::text, NULL::text;
    RETURN;
  END IF;
  IF NOT auth_sign_in_accepted(session.method, session.provider_id, p_to) THEN
    RETURN QUERY SELECT 'sign-in-required'::text, NULL::timestamptz, NULL::text, NULL::text, NULL::text;
    RETURN;
  END IF;
  UPDATE sessions SET organization_id = p_to WHERE id = session.id;
  UPDATE refresh_tokens SET used_at = p_now, successor_hash = p_refresh_hash WHERE session_id = session.id AND used_at IS NULL;
  INSERT INTO refresh_tokens (token_hash, session_id, created_at) VALUES (p_refresh_hash, session.id, p_now);
  INSERT INTO audit_events (id, occurred_at, actor_user_id, organization_id, location_id, target_id, action, correlation_id, details)
  VALUES (p_audit_id, p_now, p_user_id, p_to, p_location, session.id, 'session.switched', p_correlation_id,
          jsonb_build_object('method', session.method));
  RETURN QUERY SELECT 'switched'::text, session.expires_at, (SELECT u.email FROM users u WHERE u.id = p_user_id), role_org, role_location;
END
$$;
