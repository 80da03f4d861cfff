-- API keys for machine clients (docs/design/api-keys.md): an organisation's key, stored only as a keyed hash of the
-- key, with the scopes it may use and its own rate limit; and the audit column that names a key as an action's actor.

CREATE TABLE api_keys (
  id uuid PRIMARY KEY,
  organization_id uuid NOT NULL REFERENCES organizations (id),
  name text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 100),
  -- The key's first characters, for people to tell keys apart (lib/auth/api-keys/key-format.ts); never enough to use it.
  prefix text NOT NULL CHECK (prefix ~ '^rsk_[0-9A-Za-z]{8}$'),
  -- HMAC-SHA256 of the whole key under INDEX_HASH_KEY (lib/auth/api-keys/key-hash.ts), lowercase hex: the key itself is never stored.
  key_hash text NOT NULL UNIQUE CHECK (key_hash ~ '^[0-9a-f]{64}$'),
  scopes text[] NOT NULL CHECK (cardinality(scopes) BETWEEN 1 AND 32 AND array_position(scopes, NULL) IS NULL),
  created_by uuid NOT NULL REFERENCES users (id),
  created_at timestamptz NOT NULL,
  -- Null: the key does not expire. A roll sets the old key's to the end of the overlap.
  expires_at timestamptz NULL,
  revoked_at timestamptz NULL,
  last_used_at timestamptz NULL,
  -- Null: the default per-key limit (docs/design/api-keys.md#limits).
  rate_limit_per_minute integer NULL CHECK (rate_limit_per_minute BETWEEN 1 AND 100000),
  -- The key a roll made in this one's place; set once, by the roll.
  rolled_to uuid NULL REFERENCES api_keys (id),
  -- Raised by every change a cached copy of the key must not outlive (scopes, roll, revocation).
  version bigint NOT NULL DEFAULT 1 CHECK (version >= 1)
);

-- The list of an organisation's keys, in the order they were made (GET /orgs/{orgId}/api-keys).
CREATE INDEX api_keys_organization_list_idx ON api_keys (organization_id, created_at, id);

-- The key an action was taken with, beside (not instead of) the user who made it: null for every other action.
ALTER TABLE audit_events ADD COLUMN actor_api_key_id uuid NULL;

-- Raised in the statement of every change of one of the organisation's keys that a cached copy must not outlive (scopes,
-- roll, revocation): a cached entry carries the value it was read with, and an isolate that has read a higher one from
-- here uses no entry older than it (docs/design/api-keys.md#revocation).
ALTER TABLE organizations ADD COLUMN api_key_seq bigint NOT NULL DEFAULT 0;
