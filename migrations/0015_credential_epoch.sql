-- A user's credential epoch: every change of the password moves it on, and what a password (or a reset link) started
-- before that change is refused where it would take effect (docs/design/password-reset.md#earlier-links-end).
-- A reset link and an MFA challenge carry the epoch they were issued at; the reset's confirm sets the password only at
-- that epoch, and a session opens only at the epoch the sign-in read.

ALTER TABLE users ADD COLUMN credential_epoch integer NOT NULL DEFAULT 0;

-- Every write that changes password_hash moves the epoch, whichever code writes it (the reset, the launcher's seeding,
-- a fixture): no path can change the password and leave the earlier links and challenges alive.
CREATE FUNCTION users_bump_credential_epoch() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.password_hash IS DISTINCT FROM OLD.password_hash THEN
    NEW.credential_epoch := OLD.credential_epoch + 1;
  END IF;
  RETURN NEW;
END
$$;

CREATE TRIGGER users_credential_epoch BEFORE UPDATE OF password_hash ON users
  FOR EACH ROW EXECUTE FUNCTION users_bump_credential_epoch();

-- Sets the password only while the epoch is still p_epoch, else raises RS410 so the caller's whole transaction (the
-- revocations and the audit row beside it) rolls back. Two links of one epoch used at once: the second UPDATE waits
-- for the first's row lock, then finds the epoch moved on and raises: exactly one reset wins.
CREATE FUNCTION auth_set_password_at_epoch(p_user uuid, p_hash text, p_epoch integer) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
  UPDATE users SET password_hash = p_hash WHERE id = p_user AND credential_epoch = p_epoch;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'credentials changed' USING ERRCODE = 'RS410';
  END IF;
END
$$;

-- Run first in a session's opening transaction: raises RS410 when the password changed since the sign-in read the
-- epoch. FOR SHARE waits for a password change being committed and reads its outcome; a change that comes after this
-- lock waits for the session's commit, and its revocation (a later statement of its own transaction) then sees and
-- revokes the new session. Either way no session survives a reset that began after the password was checked.
CREATE FUNCTION auth_require_credential_epoch(p_user uuid, p_epoch integer) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM 1 FROM users WHERE id = p_user AND credential_epoch = p_epoch FOR SHARE;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'credentials changed' USING ERRCODE = 'RS410';
  END IF;
END
$$;
