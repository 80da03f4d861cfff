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

-- One rotation, atomically: refuses (SQLSTATE RS404) an unknown connection, (RS409) a rotation signed no later than the
-- one that set the current credentials, and (RS412) a row whose credential_version moved since the caller sealed the new
-- password for expected_version + 1 (the seal is bound to that version: the caller re-reads and seals again). A replayed
-- webhook id fails on webhook_deliveries' primary key (23505). Returns the new credential_version.
CREATE FUNCTION syrve_rotate_credentials(
  p_webhook_id text, p_organization uuid, p_connection uuid, p_expected_version integer, p_rotated_at timestamptz,
  p_login text, p_password_ciphertext text, p_password_key_id text
) RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
  current syrve_connections%ROWTYPE;
BEGIN
  SELECT * INTO current FROM syrve_connections WHERE id = p_connection AND organization_id = p_organization FOR UPDATE;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'no such connection' USING ERRCODE = 'RS404';
  END IF;
  IF current.credentials_rotated_at IS NOT NULL AND current.credentials_rotated_at >= p_rotated_at THEN
    RAISE EXCEPTION 'superseded by a newer rotation' USING ERRCODE = 'RS409';
  END IF;
  IF current.credential_version <> p_expected_version THEN
    RAISE EXCEPTION 'credential version moved' USING ERRCODE = 'RS412';
  END IF;
  INSERT INTO webhook_deliveries (webhook_id, kind) VALUES (p_webhook_id, 'syrve.credentials-rotated');
  UPDATE syrve_connections
     SET login = p_login, password_ciphertext = p_password_ciphertext, password_key_id = p_password_key_id,
         credential_version = p_expected_version + 1, credentials_rotated_at = p_rotated_at, updated_at = now()
   WHERE id = p_connection;
  RETURN p_expected_version + 1;
END
$$;
