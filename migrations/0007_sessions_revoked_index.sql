-- The denylist repair (lib/runtime/revocation/repair-denylist.ts) reads the sessions revoked within the longest
-- access-token lifetime in pages by (revoked_at, id). Sessions are never deleted, so without this index every run
-- would scan every session ever revoked; with it, a run reads only the window. Partial: sessions not revoked are not
-- the repair's business. Built inside the migration's transaction (no CONCURRENTLY), which blocks logouts for as long as
-- building it takes: on a large sessions table, create it by hand first with CREATE INDEX CONCURRENTLY and this
-- definition, and the migration finds it there.
CREATE INDEX IF NOT EXISTS sessions_revoked_idx ON sessions (revoked_at, id) WHERE revoked_at IS NOT NULL;
