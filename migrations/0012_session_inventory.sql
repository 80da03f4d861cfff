-- Sessions a user (and an organisation's admin) can see and end: how and from what each was opened, when it was last
-- refreshed; an idle timeout and a retry grace in the refresh; and what the scheduled retention task deletes by
-- (lib/runtime/retention/retention-task.ts, docs/design/scheduled.md#retention).

-- Recorded when a session opens (lib/auth/sessions/open-session.ts): the client's User-Agent, control characters
-- stripped and cut to 256 characters, and how the user proved who they are. last_seen_at is the open, then each
-- refresh: the idle timeout counts from it. An identity provider's session (a row logout or revoke-all inserts) keeps
-- all three NULL, and so do sign-in's sessions opened before this migration, but for last_seen_at, filled below.
ALTER TABLE sessions
  ADD COLUMN user_agent text NULL CHECK (user_agent IS NULL OR char_length(user_agent) BETWEEN 1 AND 256),
  ADD COLUMN method text NULL CHECK (method IS NULL OR method IN ('password', 'password+totp', 'oidc', 'dev-link')),
  ADD COLUMN last_seen_at timestamptz NULL;

-- A live session's last refresh is its newest refresh token's creation; without one, its opening. Without this a
-- session refreshed a minute before the deploy would count as idle since it opened.
UPDATE sessions s
   SET last_seen_at = COALESCE((SELECT max(r.created_at) FROM refresh_tokens r WHERE r.session_id = s.id), s.created_at)
 WHERE s.expires_at IS NOT NULL AND s.revoked_at IS NULL;

-- The hash of the token this one was exchanged for, set when it is spent. A retry within the grace must recompute
-- exactly this successor (an HMAC of the presented token, lib/auth/tokens/refresh-token.ts) and find it unused.
ALTER TABLE refresh_tokens
  ADD COLUMN successor_hash text NULL CHECK (successor_hash IS NULL OR successor_hash ~ '^[0-9a-f]{64}$');

-- One refresh, atomically, with the token row and its session locked (FOR UPDATE), in one statement. Outcomes:
--   'unknown'   no such token;
--   'ended'     the session was revoked, is past expires_at, or its organisation is deleted (nothing is written);
--   'idle'      unused for p_idle_seconds since last_seen_at: the session is revoked here and audited;
--   'suspended' its organisation is suspended: nothing is spent or written, the session stays;
--   'retried'   a spent token again within p_grace_seconds of its use, whose successor is the one the caller
--               recomputed and is still unused: the same successor is answered again, nothing is written;
--   'reused'    any other spent token: the session is revoked here and audited (theft);
--   'rotated'   the token is spent (used_at, successor_hash), its successor stored, last_seen_at moved: one write.
-- Replaces auth_rotate_refresh_token (migrations/0008), which stays only for instances still running the code before
-- this migration during a deploy.
CREATE FUNCTION auth_refresh_session(
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
  UPDATE sessions SET last_seen_at = p_now WHERE id = session.id;
  RETURN QUERY SELECT 'rotated'::text, session.id, session.user_id, session.organization_id, session.expires_at;
END
$$;

-- Retention (lib/runtime/retention/retention-task.ts) deletes in bounded batches, oldest first, each batch one index
-- range: revoked sessions by sessions_revoked_idx (migrations/0007); sessions that ended by their end time by this one;
-- webhook ids and finished exports by the two after it. Built inside the migration's transaction (no CONCURRENTLY): on
-- large tables, create them by hand first with CREATE INDEX CONCURRENTLY and these definitions, and the migration finds
-- them there.
CREATE INDEX IF NOT EXISTS sessions_ended_by_expiry_idx ON sessions (expires_at, id) WHERE revoked_at IS NULL;
CREATE INDEX IF NOT EXISTS webhook_deliveries_received_idx ON webhook_deliveries (received_at, webhook_id);
CREATE INDEX IF NOT EXISTS jobs_finished_idx ON jobs (finished_at, id) WHERE state IN ('done', 'failed', 'cancelled');
