-- Passkeys (WebAuthn credentials) of an account, and passkey sign-in (docs/design/passkeys.md). Only public material is
-- kept: the credential id and the COSE public key the authenticator gave at registration, both base64url.

CREATE TABLE passkeys (
  id uuid PRIMARY KEY,
  user_id uuid NOT NULL REFERENCES users (id),
  -- The authenticator's credential id (at most 1023 bytes in WebAuthn, so at most 1364 base64url characters): one
  -- credential belongs to one account, whichever account tries to register it again.
  credential_id text NOT NULL UNIQUE CHECK (credential_id ~ '^[A-Za-z0-9_-]+$' AND char_length(credential_id) <= 1364),
  public_key text NOT NULL CHECK (public_key ~ '^[A-Za-z0-9_-]+$' AND char_length(public_key) <= 2048),
  -- The signature counter last seen (0 for authenticators that keep none): a later assertion must go above it.
  sign_count bigint NOT NULL CHECK (sign_count BETWEEN 0 AND 4294967295),
  transports text[] NOT NULL DEFAULT '{}',
  name text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 64),
  created_at timestamptz NOT NULL,
  last_used_at timestamptz NULL
);

CREATE INDEX passkeys_user_idx ON passkeys (user_id, created_at);

-- A passkey sign-in is its own method; with user verification required it is a second factor in itself, so it is
-- accepted wherever a password with the TOTP factor is (auth_sign_in_accepted, migrations/0021_session_switch.sql).
ALTER TABLE sessions DROP CONSTRAINT sessions_method_check;
ALTER TABLE sessions
  ADD CONSTRAINT sessions_method_check
    CHECK (method IS NULL OR method IN ('password', 'password+totp', 'oidc', 'oidc+totp', 'dev-link', 'passkey'));

CREATE OR REPLACE FUNCTION auth_sign_in_accepted(p_method text, p_provider_id text, p_organization_id uuid) RETURNS boolean
LANGUAGE sql STABLE AS $$
  SELECT CASE
    WHEN p_method IN ('password', 'password+totp', 'dev-link', 'passkey') THEN true
    WHEN p_method IN ('oidc', 'oidc+totp') THEN p_provider_id IS NOT NULL AND EXISTS (
      SELECT 1 FROM oidc_provider_organizations p WHERE p.organization_id = p_organization_id AND p.provider_id = p_provider_id)
    ELSE false
  END
$$;

-- Records an assertion's use of a passkey in the transaction that opens its session: the counter must go above the
-- stored one (or both stay 0, an authenticator without a counter), compared and set in one UPDATE, so of two sign-ins
-- with a cloned credential only the higher counter that commits first goes on. RS412: the counter did not advance (the
-- caller audits passkey.counter_regressed); RS404: the passkey was removed meanwhile.
CREATE FUNCTION passkey_record_use(p_passkey uuid, p_counter bigint, p_now timestamptz) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
  UPDATE passkeys SET sign_count = p_counter, last_used_at = p_now
   WHERE id = p_passkey AND (p_counter > sign_count OR (p_counter = 0 AND sign_count = 0));
  IF FOUND THEN
    RETURN;
  END IF;
  IF EXISTS (SELECT 1 FROM passkeys WHERE id = p_passkey) THEN
    RAISE EXCEPTION 'passkey signature counter did not advance' USING ERRCODE = 'RS412';
  END IF;
  RAISE EXCEPTION 'no such passkey' USING ERRCODE = 'RS404';
END
$$;
