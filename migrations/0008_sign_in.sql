-- Sign-in: password hashes, sessions this service issues (organisation and end), rotating refresh tokens, TOTP enrolment.

ALTER TABLE users ADD COLUMN password_hash text NULL;

-- Sessions of an external identity provider keep both NULL; sign-in's own sessions carry the organisation they were
-- opened in and the moment they end, whatever their refresh tokens say.
ALTER TABLE sessions ADD COLUMN organization_id uuid NULL REFERENCES organizations (id);
ALTER TABLE sessions ADD COLUMN expires_at timestamptz NULL;

CREATE INDEX sessions_user_open_idx ON sessions (user_id) WHERE revoked_at IS NULL;

-- Only the SHA-256 of a refresh token is kept. A token is used once: used_at is set when it is exchanged for the next
-- one, and presenting it again is reuse, which revokes the whole session (auth_rotate_refresh_token below).
CREATE TABLE refresh_tokens (
  token_hash text PRIMARY KEY CHECK (token_hash ~ '^[0-9a-f]{64}$'),
  session_id uuid NOT NULL REFERENCES sessions (id),
  created_at timestamptz NOT NULL,
  used_at timestamptz NULL
);

CREATE INDEX refresh_tokens_session_idx ON refresh_tokens (session_id);

-- A user's TOTP factor: the secret sealed by the secret box (lib/crypto/secret-box.ts, purpose 'totp-secret'), pending
-- until a first code confirms it; only a confirmed factor makes sign-in ask for a code.
CREATE TABLE user_mfa (
  user_id uuid PRIMARY KEY REFERENCES users (id),
  secret_ciphertext text NOT NULL,
  secret_key_id text NOT NULL,
  enrolled_at timestamptz NOT NULL,
  confirmed_at timestamptz NULL
);

-- One refresh, atomically, with the session row locked: 'rotated' (the old token is spent, the new one stored),
-- 'reused' (a spent token came back: the session is revoked here, in the same statement, and audited), 'ended'
-- (revoked or past its end) or 'unknown'. Returns the session with the outcome.
CREATE FUNCTION auth_rotate_refresh_token(
  p_old_hash text, p_new_hash text, p_now timestamptz, p_audit_id uuid, p_correlation_id text
) RETURNS TABLE (outcome text, session_id uuid, user_id uuid, organization_id uuid, expires_at timestamptz)
LANGUAGE plpgsql AS $$
DECLARE
  token refresh_tokens%ROWTYPE;
  session sessions%ROWTYPE;
BEGIN
  SELECT * INTO token FROM refresh_tokens WHERE token_hash = p_old_hash FOR UPDATE;
  IF NOT FOUND THEN
    RETURN QUERY SELECT 'unknown'::text, NULL::uuid, NULL::uuid, NULL::uuid, NULL::timestamptz;
    RETURN;
  END IF;
  SELECT * INTO session FROM sessions WHERE id = token.session_id FOR UPDATE;
  IF session.revoked_at IS NOT NULL OR session.expires_at IS NULL OR session.expires_at <= p_now THEN
    RETURN QUERY SELECT 'ended'::text, session.id, session.user_id, session.organization_id, session.expires_at;
    RETURN;
  END IF;
  IF token.used_at IS NOT NULL THEN
    UPDATE sessions SET revoked_at = p_now WHERE id = session.id;
    INSERT INTO audit_events (id, occurred_at, actor_user_id, organization_id, location_id, target_id, action, correlation_id, details)
    VALUES (p_audit_id, p_now, session.user_id, session.organization_id, NULL, session.user_id, 'session.refresh_reused', p_correlation_id,
            '{"reason":"a spent refresh token was presented again"}');
    RETURN QUERY SELECT 'reused'::text, session.id, session.user_id, session.organization_id, session.expires_at;
    RETURN;
  END IF;
  UPDATE refresh_tokens SET used_at = p_now WHERE token_hash = p_old_hash;
  INSERT INTO refresh_tokens (token_hash, session_id, created_at) VALUES (p_new_hash, session.id, p_now);
  RETURN QUERY SELECT 'rotated'::text, session.id, session.user_id, session.organization_id, session.expires_at;
END
$$;
