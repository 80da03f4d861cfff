-- MFA enrolment: a pending TOTP factor is written and confirmed only through these functions, each in the caller's
-- transaction with its audit row (the next statement), so a refusal rolls the audit row back with it.

-- Stores a pending factor, replacing a pending one (a fresh secret every enrolment); refuses (RS409) while a confirmed
-- factor exists and (RS404) a user this database does not know (one signed in through an external identity provider).
CREATE FUNCTION mfa_enrol(p_user uuid, p_ciphertext text, p_key_id text, p_enrolled_at timestamptz) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
  user_email text;
BEGIN
  SELECT email INTO user_email FROM users WHERE id = p_user;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'no such user' USING ERRCODE = 'RS404';
  END IF;
  -- The WHERE is checked against the newest row version, so a confirmation committed meanwhile is never overwritten.
  INSERT INTO user_mfa (user_id, secret_ciphertext, secret_key_id, enrolled_at, confirmed_at)
  VALUES (p_user, p_ciphertext, p_key_id, p_enrolled_at, NULL)
  ON CONFLICT (user_id) DO UPDATE
    SET secret_ciphertext = EXCLUDED.secret_ciphertext, secret_key_id = EXCLUDED.secret_key_id,
        enrolled_at = EXCLUDED.enrolled_at, confirmed_at = NULL
    WHERE user_mfa.confirmed_at IS NULL;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'a confirmed factor exists' USING ERRCODE = 'RS409';
  END IF;
  RETURN user_email;
END
$$;

-- Confirms the pending factor the caller checked the code against (the same ciphertext: a re-enrolment in between
-- replaced it, RS404); refuses (RS409) a factor already confirmed.
CREATE FUNCTION mfa_confirm(p_user uuid, p_ciphertext text, p_confirmed_at timestamptz) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  held user_mfa%ROWTYPE;
BEGIN
  SELECT * INTO held FROM user_mfa WHERE user_id = p_user FOR UPDATE;
  IF FOUND AND held.confirmed_at IS NOT NULL THEN
    RAISE EXCEPTION 'already confirmed' USING ERRCODE = 'RS409';
  END IF;
  IF NOT FOUND OR held.secret_ciphertext <> p_ciphertext THEN
    RAISE EXCEPTION 'no such pending factor' USING ERRCODE = 'RS404';
  END IF;
  UPDATE user_mfa SET confirmed_at = p_confirmed_at WHERE user_id = p_user;
END
$$;
