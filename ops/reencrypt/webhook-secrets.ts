// The webhook endpoints' signing secrets (webhook_endpoints): the current one and the one a rotation keeps beside it,
// each bound to organisation, endpoint and its own version (lib/events/endpoint-secret.ts); a row's id is the endpoint's.
import * as z from 'zod';
import { endpointSecretBinding } from '../../lib/events/endpoint-secret.ts';
import type { SealedColumn } from './sealed-column.ts';

const Row = z.object({
  id: z.string(),
  key_id: z.string(),
  ciphertext: z.string(),
  organization_id: z.string(),
  version: z.number().int().positive(),
});
type Row = z.infer<typeof Row>;

/** Both columns compare the version too; re-sealing keeps the plaintext, the version and the overlap's end, so what a delivery signs with is unchanged. */
const binding = (row: Row) => endpointSecretBinding(row.organization_id, row.id, row.version);
const versions = (rows: readonly Row[]) => [rows.map((row) => row.version)];

export const WEBHOOK_SECRETS: SealedColumn<Row> = {
  label: 'Webhook secrets',
  countByKey: `SELECT secret_key_id AS key_id, count(*)::int AS n FROM webhook_endpoints
    WHERE secret_key_id <> $1 GROUP BY secret_key_id ORDER BY secret_key_id`,
  nextBatch: `SELECT id, secret_key_id AS key_id, secret_ciphertext AS ciphertext, organization_id, secret_version AS version
    FROM webhook_endpoints WHERE secret_key_id <> $1 AND ($2::uuid IS NULL OR id > $2::uuid) ORDER BY id LIMIT $3`,
  // A rotation since the read moved this secret to the previous columns (the next column's pass takes it there) and
  // sealed a new one with the newest key: the row no longer holds what was read and is left alone.
  move: `UPDATE webhook_endpoints AS e
    SET secret_ciphertext = m.new_ciphertext, secret_key_id = $1
    FROM unnest($2::uuid[], $3::text[], $4::text[], $5::text[], $6::int[])
      AS m (id, new_ciphertext, old_key_id, old_ciphertext, version)
    WHERE e.id = m.id AND e.secret_key_id = m.old_key_id AND e.secret_ciphertext = m.old_ciphertext
      AND e.secret_version = m.version
    RETURNING e.id`,
  row: Row,
  whenFailed:
    'a failed row is an endpoint whose secret no longer opens: its deliveries fail (secret-unavailable) until an admin ' +
    'rotates its secret twice (the second rotation drops it) and gives the receiver the new one',
  binding,
  extraParams: versions,
};

/** Every previous secret still stored, its overlap over or not: an older key can go only when none is sealed with it. */
export const WEBHOOK_PREVIOUS_SECRETS: SealedColumn<Row> = {
  label: 'Webhook previous secrets',
  countByKey: `SELECT previous_secret_key_id AS key_id, count(*)::int AS n FROM webhook_endpoints
    WHERE previous_secret_key_id <> $1 GROUP BY previous_secret_key_id ORDER BY previous_secret_key_id`,
  nextBatch: `SELECT id, previous_secret_key_id AS key_id, previous_secret_ciphertext AS ciphertext, organization_id,
      previous_secret_version AS version
    FROM webhook_endpoints WHERE previous_secret_key_id <> $1 AND ($2::uuid IS NULL OR id > $2::uuid) ORDER BY id LIMIT $3`,
  // A rotation since the read replaced this secret with the current one: left alone, as above.
  move: `UPDATE webhook_endpoints AS e
    SET previous_secret_ciphertext = m.new_ciphertext, previous_secret_key_id = $1
    FROM unnest($2::uuid[], $3::text[], $4::text[], $5::text[], $6::int[])
      AS m (id, new_ciphertext, old_key_id, old_ciphertext, version)
    WHERE e.id = m.id AND e.previous_secret_key_id = m.old_key_id AND e.previous_secret_ciphertext = m.old_ciphertext
      AND e.previous_secret_version = m.version
    RETURNING e.id`,
  row: Row,
  whenFailed:
    'a failed row is an endpoint whose previous secret no longer opens: while its overlap lasts its deliveries fail ' +
    '(secret-unavailable); one rotation of its secret drops it',
  binding,
  extraParams: versions,
};
