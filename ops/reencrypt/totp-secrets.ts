// The users' TOTP secrets (user_mfa), bound to the user and the enrolment time; a row's id is its user id.
import * as z from 'zod';
import { totpBinding } from '../../lib/auth/mfa/factor.ts';
import type { SealedColumn } from './sealed-column.ts';

const Row = z.object({ id: z.string(), key_id: z.string(), ciphertext: z.string(), enrolled_at: z.date() });
type Row = z.infer<typeof Row>;

export const TOTP_SECRETS: SealedColumn<Row> = {
  label: 'TOTP secrets',
  countByKey: `SELECT secret_key_id AS key_id, count(*)::int AS n FROM user_mfa
    WHERE secret_key_id <> $1 GROUP BY secret_key_id ORDER BY secret_key_id`,
  nextBatch: `SELECT user_id AS id, secret_key_id AS key_id, secret_ciphertext AS ciphertext, enrolled_at
    FROM user_mfa WHERE secret_key_id <> $1 AND ($2::uuid IS NULL OR user_id > $2::uuid) ORDER BY user_id LIMIT $3`,
  // A factor enrolled again since it was read (a new pending secret, sealed with the newest key) is left alone; a
  // confirmation in between changes neither column, so the moved secret keeps its confirmation.
  move: `UPDATE user_mfa AS f
    SET secret_ciphertext = m.new_ciphertext, secret_key_id = $1
    FROM unnest($2::uuid[], $3::text[], $4::text[], $5::text[]) AS m (id, new_ciphertext, old_key_id, old_ciphertext)
    WHERE f.user_id = m.id AND f.secret_key_id = m.old_key_id AND f.secret_ciphertext = m.old_ciphertext
    RETURNING f.user_id AS id`,
  row: Row,
  whenFailed: 'a failed row is a factor that no longer opens: its user cannot pass MFA until the row is removed and they enrol again',
  binding: (row) => totpBinding(row.id, row.enrolled_at.getTime()),
};
