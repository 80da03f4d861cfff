-- The refresh's reuse and idle end take the revocation clock before the session row, the order every other revoking
-- statement takes them in (the clock first: migrations/0024_revocation_clock.sql), so a refresh that ends a session
-- beside a sign out everywhere of the same user waits for it instead of deadlocking with it (40P01 after
-- deadlock_timeout, one of the two answered 503). Before, auth_refresh_session (migrations/0012_session_inventory.sql)
-- locked the session row and took the clock only when its UPDATE set revoked_at.
--
-- Whether a call will end the session is seen before the row is locked, from the token (locked first, so its used_at
-- cannot change under the call) and an unlocked look at the session, which the locked read can only contradict
-- towards not ending it: revoked_at is never cleared, and last_seen_at now only moves forward. A spent token takes the
-- clock even when it turns out a retry within the grace: rare (a lost reply), and it holds the clock only to its
-- commit. A plain rotation, the common refresh, never takes it, so refreshes do not queue on the revocation clock.
--
-- The body is otherwise migrations/0012's.
CREATE OR REPLACE FUNCTION auth_refresh_session(
  p_old_hash text, p_successor_hash text, p_now timestamptz, p_idle_seconds integer, p_grace_seconds integer,
  p_audit_id uuid, p_correlation_id text
) RETURNS TABLE (outcome text, session_id uuid, user_id uuid, organization_id uuid, expires_at timestamptz)
LANGUAGE plpgsql AS $$
DECLARE
  token refresh_tokens%ROWTYPE;
  session sessions%ROWTYPE;
  org_state text;
BEGIN
  SELECT * INTO token FROM refresh_tokens WHERE token_hash = p_old_hash FOR UPDATE;
  IF NOT FOUND THEN
    RETURN QUERY SELECT 'unknown'::text, NULL::uuid, NULL::uuid, NULL::uuid, NULL::timestamptz;
    RETURN;
  END IF;
  -- A look without a lock: will this call end the session (a spent token, an idle one)? Then the clock first.
  SELECT * INTO session FROM sessions WHERE id = token.session_id;
  IF session.revoked_at IS NULL AND (
       token.used_at IS NOT NULL
       OR COALESCE(session.last_seen_at, session.created_at) + make_interval(secs => p_idle_seconds) <= p_now) THEN
    PERFORM 1 FROM revocation_clock FOR UPDATE;
  END IF;
  SELECT * INTO session FROM sessions WHERE id = token.session_id FOR UPDATE;
  SELECT o.state INTO org_state FROM organizations o WHERE o.id = session.organization_id;
  IF session.revoked_at IS NOT NULL OR session.expires_at IS NULL OR session.expires_at <= p_now
     OR org_state IS NULL OR org_state = 'deleted' THEN
    RETURN QUERY SELECT 'ended'::text, session.id, session.user_id, session.organization_id, session.expires_at;
    RETURN;
  END IF;
  IF COALESCE(session.last_seen_at, session.created_at) + make_interval(secs => p_idle_seconds) <= p_now THEN
    UPDATE sessions SET revoked_at = p_now WHERE id = session.id;
    INSERT INTO audit_events (id, occurred_at, actor_user_id, organization_id, location_id, target_id, action, correlation_id, details)
    VALUES (p_audit_id, p_now, session.user_id, session.organization_id, NULL, session.user_id, 'session.idle_ended', p_correlation_id,
            jsonb_build_object('idleTimeoutSeconds', p_idle_seconds));
    RETURN QUERY SELECT 'idle'::text, session.id, session.user_id, session.organization_id, session.expires_at;
    RETURN;
  END IF;
  IF token.used_at IS NOT NULL THEN
    IF p_grace_seconds > 0
       AND token.used_at + make_interval(secs => p_grace_seconds) >= p_now
       AND token.successor_hash = p_successor_hash
       AND EXISTS (SELECT 1 FROM refresh_tokens n WHERE n.token_hash = token.successor_hash AND n.used_at IS NULL) THEN
      IF org_state = 'suspended' THEN
        RETURN QUERY SELECT 'suspended'::text, session.id, session.user_id, session.organization_id, session.expires_at;
        RETURN;
      END IF;
      RETURN QUERY SELECT 'retried'::text, session.id, session.user_id, session.organization_id, session.expires_at;
      RETURN;
    END IF;
    UPDATE sessions SET revoked_at = p_now WHERE id = session.id;
    INSERT INTO audit_events (id, occurred_at, actor_user_id, organization_id, location_id, target_id, action, correlation_id, details)
    VALUES (p_audit_id, p_now, session.user_id, session.organization_id, NULL, session.user_id, 'session.refresh_reused', p_correlation_id,
            '{"reason":"a spent refresh token was presented again"}');
    RETURN QUERY SELECT 'reused'::text, session.id, session.user_id, session.organization_id, session.expires_at;
    RETURN;
  END IF;
  IF org_state = 'suspended' THEN
    RETURN QUERY SELECT 'suspended'::text, session.id, session.user_id, session.organization_id, session.expires_at;
    RETURN;
  END IF;
  UPDATE refresh_tokens SET used_at = p_now, successor_hash = p_successor_hash WHERE token_hash = p_old_hash;
  INSERT INTO refresh_tokens (token_hash, session_id, created_at) VALUES (p_successor_hash, session.id, p_now);
  -- Never back: an isolate whose clock is behind another's must not make the session look idle (or unlock the look
  -- above from the locked read below it).
  UPDATE sessions SET last_seen_at = GREATEST(last_seen_at, p_now) WHERE id = session.id;
  RETURN QUERY SELECT 'rotated'::text, session.id, session.user_id, session.organization_id, session.expires_at;
END
$$;
