-- The keys that sign this deployment's access tokens when they are kept in PostgreSQL (docs/design/signing-keys.md):
-- at most one 'next' (published, not signing yet), one 'current' (signs) and one 'previous' (published until every
-- token it signed has expired). The private key is sealed with SECRETS_KEYS (lib/crypto/secret-box.ts), bound to its
-- kid and creation time; a retired key's row is deleted, private key and all. Written only by the rotation
-- (lib/auth/signing-keys/rotate-signing-keys.ts), read by every isolate at most once per reload interval.
CREATE TABLE signing_keys (
  kid text PRIMARY KEY CHECK (kid ~ '^[A-Za-z0-9._-]{1,64}$'),
  alg text NOT NULL CHECK (alg IN ('ES256', 'EdDSA')),
  state text NOT NULL CHECK (state IN ('next', 'current', 'previous')),
  -- The public members only (kty, crv, x, y): what /.well-known/jwks.json publishes.
  public_jwk jsonb NOT NULL,
  sealed_key_id text NOT NULL,
  sealed_private_key text NOT NULL,
  created_at timestamptz NOT NULL,
  -- When it became 'current' (null while 'next'); its tokens were signed from then until the next rotation.
  activated_at timestamptz,
  -- When it stopped being 'current' (set as it becomes 'previous').
  retired_at timestamptz
);

-- One key per state: two rotations racing collide here, and the later one rolls back whole.
CREATE UNIQUE INDEX signing_keys_one_per_state ON signing_keys (state);
