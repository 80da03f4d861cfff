-- The revocation clock: every revocation (a session's revoked_at set, a revoked_tokens row) takes the next value of
-- one counter in the statement that revokes, so the denylist on the revocation store can record how far it has come
-- (lib/runtime/revocation/denylist-state.ts) and the check can see it behind (lib/runtime/revocation/applied-point.ts).
--
-- One row, not a sequence: the row stays locked until the revoking transaction ends, so values commit in their own
-- order and a rolled-back revocation gives its value back. "Every value up to the clock's" is then a contiguous prefix
-- of committed revocations, which a sequence (values committed out of order, gaps from rollbacks) cannot give.
-- The cost is that revocations commit one at a time; each holds the row for one statement and its commit.
CREATE TABLE revocation_clock (
  id boolean PRIMARY KEY DEFAULT true CHECK (id),
  seq bigint NOT NULL,
  -- When the last value was taken (clock_timestamp(), PostgreSQL's own clock): how old the newest revocation is.
  advanced_at timestamptz NOT NULL
);
INSERT INTO revocation_clock (id, seq, advanced_at) VALUES (true, 0, clock_timestamp());

-- Null for revocations made before this migration (the next full repair pass covers them) and for live sessions.
ALTER TABLE sessions ADD COLUMN revocation_seq bigint;
ALTER TABLE revoked_tokens ADD COLUMN revocation_seq bigint;

-- The targeted repair reads what came after the denylist's point, in clock order.
CREATE INDEX IF NOT EXISTS sessions_revocation_seq_idx ON sessions (revocation_seq, id) WHERE revocation_seq IS NOT NULL;
CREATE INDEX IF NOT EXISTS revoked_tokens_revocation_seq_idx ON revoked_tokens (revocation_seq, id) WHERE revocation_seq IS NOT NULL;

-- One value per transaction: every row one transaction revokes shares it (a sign-out everywhere is one revocation),
-- and the value is left in a transaction-local setting for a caller whose rows it cannot return (auth_refresh_session).
CREATE FUNCTION revocation_clock_tick() RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
  taken text := current_setting('runstate.revocation_seq', true);
  next_seq bigint;
BEGIN
  IF taken IS NOT NULL AND taken <> '' THEN
    RETURN taken::bigint;
  END IF;
  UPDATE revocation_clock SET seq = seq + 1, advanced_at = clock_timestamp() RETURNING seq INTO next_seq;
  PERFORM set_config('runstate.revocation_seq', next_seq::text, true);
  RETURN next_seq;
END $$;

CREATE FUNCTION revocation_clock_stamp() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.revoked_at IS NOT NULL AND (TG_OP = 'INSERT' OR OLD.revoked_at IS NULL) THEN
    NEW.revocation_seq := revocation_clock_tick();
  ELSIF TG_OP = 'UPDATE' THEN
    NEW.revocation_seq := OLD.revocation_seq;
  END IF;
  RETURN NEW;
END $$;

-- The clock's row is locked before the statement locks any session row, so two revoking statements over the same
-- sessions queue on the clock instead of each holding a row the other waits for.
CREATE FUNCTION revocation_clock_lock() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM 1 FROM revocation_clock FOR UPDATE;
  RETURN NULL;
END $$;

CREATE TRIGGER sessions_revocation_clock_lock BEFORE UPDATE OF revoked_at ON sessions
  FOR EACH STATEMENT EXECUTE FUNCTION revocation_clock_lock();
CREATE TRIGGER sessions_revocation_clock BEFORE INSERT OR UPDATE ON sessions
  FOR EACH ROW EXECUTE FUNCTION revocation_clock_stamp();
CREATE TRIGGER revoked_tokens_revocation_clock BEFORE INSERT OR UPDATE ON revoked_tokens
  FOR EACH ROW EXECUTE FUNCTION revocation_clock_stamp();
