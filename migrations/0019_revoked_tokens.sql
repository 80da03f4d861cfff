-- Single access tokens revoked alone (their jti), for a token whose session is not its presenter's to end
-- (lib/runtime/revocation/revoke-token.ts). The denylist entry is only a copy: a revocation store that lost its data gets
-- these back from here (lib/runtime/revocation/repair-denylist.ts), and while it is being repaired the request path asks
-- this table (lib/runtime/revocation/is-revoked.ts). The jti itself is never stored, only its SHA-256, as in the key.

CREATE TABLE revoked_tokens (
  -- A uuid beside the digest so the repair pages sessions and tokens together by (revoked_at, id).
  id uuid PRIMARY KEY,
  jti_sha256 text NOT NULL UNIQUE CHECK (jti_sha256 ~ '^[0-9a-f]{64}$'),
  -- Whose token it was, for support; like sessions, an identity provider's user may have no row here: no FK.
  user_id uuid NOT NULL,
  revoked_at timestamptz NOT NULL,
  -- The token's own exp: past it the token is refused anyway, and the retention task deletes the row.
  expires_at timestamptz NOT NULL
);

-- The repair's window read, in (revoked_at, id) order as sessions_revoked_idx (migrations/0007).
CREATE INDEX revoked_tokens_revoked_idx ON revoked_tokens (revoked_at, id);
-- The retention task's read: rows whose token has expired, oldest first.
CREATE INDEX revoked_tokens_expires_idx ON revoked_tokens (expires_at, id);
