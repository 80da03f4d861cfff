// A Syrve/iiko connection as PostgreSQL keeps it, its public shape (never a password or session), and the one read of it.
import * as z from 'zod';
import type { SealedSecret, SecretBinding } from '../../crypto/secret-box.ts';
import type { Deps } from '../../deps.ts';
import { dbCall } from '../../pg/unavailable.ts';

export interface SyrveConnection {
  connectionId: string;
  organizationId: string;
  name: string;
  baseUrl: string;
  login: string;
  credentialVersion: number;
  enabled: boolean;
  createdAtUtc: string;
  updatedAtUtc: string;
  sealedPassword: SealedSecret;
}

/** The API's Connection (docs/api.md#syrveiiko-connections-functionssyrve-libruntimesyrve). */
export const connectionSchema = z.strictObject({
  connectionId: z.uuid(),
  organizationId: z.uuid(),
  name: z.string(),
  baseUrl: z.string(),
  login: z.string(),
  credentialVersion: z.number().int().positive(),
  enabled: z.boolean(),
  createdAtUtc: z.string(),
  updatedAtUtc: z.string(),
});

export type PublicConnection = z.infer<typeof connectionSchema>;

export function toPublicConnection(connection: SyrveConnection): PublicConnection {
  const { sealedPassword: _sealed, ...visible } = connection;
  return visible;
}

/** What the password's ciphertext is bound to: a copy in another row, organisation or version does not open. */
export function passwordBinding(connection: Pick<SyrveConnection, 'organizationId' | 'connectionId' | 'credentialVersion'>): SecretBinding {
  return {
    purpose: 'syrve-password',
    organizationId: connection.organizationId,
    connectionId: connection.connectionId,
    credentialVersion: connection.credentialVersion,
  };
}

export const CONNECTION_COLUMNS =
  'id, organization_id, name, base_url, login, credential_version, enabled, created_at, updated_at, password_ciphertext, password_key_id';

export interface ConnectionRow {
  id: string;
  organization_id: string;
  name: string;
  base_url: string;
  login: string;
  credential_version: number;
  enabled: boolean;
  created_at: Date;
  updated_at: Date;
  password_ciphertext: string;
  password_key_id: string;
}

export function fromRow(row: ConnectionRow): SyrveConnection {
  return {
    connectionId: row.id,
    organizationId: row.organization_id,
    name: row.name,
    baseUrl: row.base_url,
    login: row.login,
    credentialVersion: row.credential_version,
    enabled: row.enabled,
    createdAtUtc: new Date(row.created_at).toISOString(),
    updatedAtUtc: new Date(row.updated_at).toISOString(),
    sealedPassword: { keyId: row.password_key_id, ciphertext: row.password_ciphertext },
  };
}

/** The connection, if it exists in this organisation (a connection id of another tenant reads as missing). */
export async function loadConnection(
  deps: Deps,
  ref: { organizationId: string; connectionId: string },
): Promise<SyrveConnection | undefined> {
  const rows = await dbCall('read', 'syrve.connection.read', (signal) =>
    deps.db.query<ConnectionRow>(
      `SELECT ${CONNECTION_COLUMNS} FROM syrve_connections WHERE id = $1 AND organization_id = $2`,
      [ref.connectionId, ref.organizationId],
      { signal },
    ),
  );
  return rows[0] === undefined ? undefined : fromRow(rows[0]);
}
