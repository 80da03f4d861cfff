-- Syrve/iiko RMS connections: permanent configuration with the password sealed by the secret box (lib/crypto/secret-box.ts),
-- and the webhook ids already used, so each signed delivery changes something at most once.

CREATE TABLE syrve_connections (
  id uuid PRIMARY KEY,
  organization_id uuid NOT NULL REFERENCES organizations (id),
  name text NOT NULL CHECK (length(name) BETWEEN 1 AND 100),
  base_url text NOT NULL,
  login text NOT NULL CHECK (length(login) BETWEEN 1 AND 200),
  -- AES-256-GCM: base64url(iv || ciphertext || tag); the additional data binds it to organization, connection and
  -- credential_version, so a ciphertext copied to another row (or an older version) does not open.
  password_ciphertext text NOT NULL,
  -- Which SECRETS_KEYS entry sealed it; `npm run secrets:reencrypt` moves rows to the newest.
  password_key_id text NOT NULL,
  credential_version integer NOT NULL DEFAULT 1 CHECK (credential_version > 0),
  -- The signed timestamp of the rotation that set these credentials: an older rotation never overwrites a newer one.
  credentials_rotated_at timestamptz NULL,
  enabled boolean NOT NULL DEFAULT true,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (organization_id, name)
);

CREATE INDEX syrve_connections_organization_idx ON syrve_connections (organization_id, created_at);
-- The re-encryption tool walks rows not yet on the newest key.
CREATE INDEX syrve_connections_key_idx ON syrve_connections (password_key_id, id);

CREATE TABLE webhook_deliveries (
  webhook_id text PRIMARY KEY CHECK (length(webhook_id) BETWEEN 1 AND 256),
  kind text NOT NULL,
  received_at timestamptz NOT NULL DEFAULT now()
);
