-- MFA recovery codes: ten single-use codes per confirmed factor, kept only as keyed hashes (HMAC-SHA256 under
-- INDEX_HASH_KEY, lib/auth/mfa/recovery-codes.ts). They belong to the factor: removing it (the user's DELETE /auth/mfa,
-- an operator's reset) removes them through the foreign key, in the same statement.
CREATE TABLE user_mfa_recovery_codes (
  user_id uuid NOT NULL REFERENCES user_mfa (user_id) ON DELETE CASCADE,
  code_hash text NOT NULL CHECK (code_hash ~ '^[0-9a-f]{64}$'),
  created_at timestamptz NOT NULL,
  used_at timestamptz NULL,
  PRIMARY KEY (user_id, code_hash)
);

-- Replaces the user's codes with p_hashes, for the confirmed factor whose ciphertext the caller checked the proof
-- against (RS404 otherwise: removed or re-enrolled meanwhile). The old codes are gone when this commits.
CREATE FUNCTION mfa_replace_recovery_codes(p_user uuid, p_ciphertext text, p_hashes text[], p_now timestamptz) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM 1 FROM user_mfa
   WHERE user_id = p_user AND secret_ciphertext = p_ciphertext AND confirmed_at IS NOT NULL
   FOR UPDATE;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'no such confirmed factor' USING ERRCODE = 'RS404';
  END IF;
  DELETE FROM user_mfa_recovery_codes WHERE user_id = p_user;
  INSERT INTO user_mfa_recovery_codes (user_id, code_hash, created_at)
  SELECT p_user, h, p_now FROM unnest(p_hashes) AS h;
END
$$;

-- Spends one code: the conditional UPDATE is the single-use rule, so of two sign-ins racing with one code only one
-- row update happens and the other raises RS410 (its transaction, the session with it, rolls back). Returns how many
-- unused codes are left.
CREATE FUNCTION mfa_spend_recovery_code(p_user uuid, p_code_hash text, p_now timestamptz) RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
  spent text;
BEGIN
  UPDATE user_mfa_recovery_codes SET used_at = p_now
   WHERE user_id = p_user AND code_hash = p_code_hash AND used_at IS NULL
     AND EXISTS (SELECT 1 FROM user_mfa m WHERE m.user_id = p_user AND m.confirmed_at IS NOT NULL)
  RETURNING code_hash INTO spent;
  IF spent IS NULL THEN
    RAISE EXCEPTION 'no such unused recovery code' USING ERRCODE = 'RS410';
  END IF;
  RETURN (SELECT count(*) FROM user_mfa_recovery_codes WHERE user_id = p_user AND used_at IS NULL);
END
$$;
