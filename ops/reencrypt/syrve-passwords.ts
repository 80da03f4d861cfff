// The Syrve connection passwords (syrve_connections), bound to organisation, connection and credential version.
import * as z from 'zod';
import type { SealedColumn } from './sealed-column.ts';

const Row = z.object({
  id: z.string(),
  key_id: z.string(),
  ciphertext: z.string(),
  organization_id: z.string(),
  credential_version: z.number().int().positive(),
});
type Row = z.infer<typeof Row>;

export const SYRVE_PASSWORDS: SealedColumn<Row> = {
  label: 'Syrve passwords',
  countByKey: `SELECT password_key_id AS key_id, count(*)::int AS n FROM syrve_connections
    WHERE password_key_id <> $1 GROUP BY password_key_id ORDER BY password_key_id`,
  nextBatch: `SELECT id, password_key_id AS key_id, password_ciphertext AS ciphertext, organization_id, credential_version
    FROM syrve_connections WHERE password_key_id <> $1 AND ($2::uuid IS NULL OR id > $2::uuid) ORDER BY id LIMIT $3`,
  // A row rotated since it was read (the webhook bumps the version and seals with the newest key) is left alone.
  move: `UPDATE syrve_connections AS c
    SET password_ciphertext = m.new_ciphertext, password_key_id = $1, updated_at = now()
    FROM unnest($2::uuid[], $3::text[], $4::text[], $5::text[], $6::int[])
      AS m (id, new_ciphertext, old_key_id, old_ciphertext, credential_version)
    WHERE c.id = m.id AND c.password_key_id = m.old_key_id AND c.password_ciphertext = m.old_ciphertext
      AND c.credential_version = m.credential_version
    RETURNING c.id`,
  row: Row,
  whenFailed: 'a failed row needs its password set again',
  binding: (row) => ({
    purpose: 'syrve-password',
    organizationId: row.organization_id,
    connectionId: row.id,
    credentialVersion: row.credential_version,
  }),
  extraParams: (rows) => [rows.map((row) => row.credential_version)],
};
