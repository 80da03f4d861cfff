// The access-token signing keys' private halves (signing_keys), bound to their kid and creation time; a row's id is its kid.
import * as z from 'zod';
import { signingKeyBinding } from '../../lib/auth/signing-keys/generate-signing-key.ts';
import type { SealedColumn } from './sealed-column.ts';

const Row = z.object({ id: z.string(), key_id: z.string(), ciphertext: z.string(), created_at: z.date() });
type Row = z.infer<typeof Row>;

export const SIGNING_KEYS: SealedColumn<Row> = {
  label: 'Signing keys',
  countByKey: `SELECT sealed_key_id AS key_id, count(*)::int AS n FROM signing_keys
    WHERE sealed_key_id <> $1 GROUP BY sealed_key_id ORDER BY sealed_key_id`,
  nextBatch: `SELECT kid AS id, sealed_key_id AS key_id, sealed_private_key AS ciphertext, created_at
    FROM signing_keys WHERE sealed_key_id <> $1 AND ($2::text IS NULL OR kid > $2::text) ORDER BY kid LIMIT $3`,
  // A key deleted by a rotation in between is simply not found; its replacement is sealed with the newest key already.
  move: `UPDATE signing_keys AS k
    SET sealed_private_key = m.new_ciphertext, sealed_key_id = $1
    FROM unnest($2::text[], $3::text[], $4::text[], $5::text[]) AS m (id, new_ciphertext, old_key_id, old_ciphertext)
    WHERE k.kid = m.id AND k.sealed_key_id = m.old_key_id AND k.sealed_private_key = m.old_ciphertext
    RETURNING k.kid AS id`,
  row: Row,
  whenFailed: 'a failed row is a signing key that no longer opens: run npm run keys:rotate (twice, 25 minutes apart) to replace it',
  binding: (row) => signingKeyBinding(row.id, row.created_at.getTime()),
};
