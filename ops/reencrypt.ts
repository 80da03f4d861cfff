// Moves every sealed Syrve password to the newest SECRETS_KEYS key, batch by batch; the core of `npm run secrets:reencrypt`.
import * as z from 'zod';
import type { SecretKey } from '../lib/config/secrets-keys.ts';
import { openSecret, sealSecret, SecretBoxError } from '../lib/crypto/index.ts';
import type { SecretBinding } from '../lib/crypto/index.ts';

/** Anything with pg's `query` shape: pg.Client or a pool client. */
export interface ReencryptClient {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  query(text: string, params?: unknown[]): Promise<{ rows: any[] }>;
}

type FailureReason = 'unknown-key' | 'does-not-open' | 'bad-row';

/** Only ids, key ids and counts: nothing sealed or opened is ever reported. */
export type ReencryptProgress =
  | { kind: 'start'; newestKeyId: string; total: number; byKeyId: Record<string, number> }
  | { kind: 'failed'; id: string; reason: FailureReason }
  | { kind: 'batch'; batch: number; moved: number; skipped: number; failed: number; total: number };

export interface ReencryptOptions {
  batchSize: number;
  /** Count the rows to move and change nothing. */
  dryRun?: boolean;
  onProgress?: (progress: ReencryptProgress) => void;
  /** Checked before each batch: stops cleanly between batches (a rerun continues). */
  signal?: AbortSignal;
}

export interface ReencryptResult {
  /** Rows not on the newest key when the run started. */
  total: number;
  moved: number;
  /** Rows changed by someone else between our read and our write (a rotation re-seals with the newest key). */
  skipped: number;
  failed: Array<{ id: string; reason: FailureReason }>;
  /** Rows on an older key when the run ended: failed ones, ones changed meanwhile, and any not reached. */
  remaining: number;
  stopped: boolean;
}

const Row = z.object({
  id: z.string(),
  organization_id: z.string(),
  password_ciphertext: z.string(),
  password_key_id: z.string(),
  credential_version: z.number().int().positive(),
});

const COUNT_BY_KEY = `SELECT password_key_id, count(*)::int AS n FROM syrve_connections
  WHERE password_key_id <> $1 GROUP BY password_key_id ORDER BY password_key_id`;

// Keyset pagination by id: each row is visited once per run, so a row that fails is not retried forever.
const NEXT_BATCH = `SELECT id, organization_id, password_ciphertext, password_key_id, credential_version
  FROM syrve_connections WHERE password_key_id <> $1 AND ($2::uuid IS NULL OR id > $2::uuid) ORDER BY id LIMIT $3`;

// One statement per batch, one round trip. Optimistic: a row rotated or re-encrypted since we read it no longer
// matches and is left alone (a rotation seals with the newest key its function knows; a rerun catches the rest).
const MOVE = `UPDATE syrve_connections AS c
  SET password_ciphertext = m.new_ciphertext, password_key_id = $1, updated_at = now()
  FROM unnest($2::uuid[], $3::text[], $4::text[], $5::text[], $6::int[])
    AS m (id, new_ciphertext, old_key_id, old_ciphertext, credential_version)
  WHERE c.id = m.id AND c.password_key_id = m.old_key_id AND c.password_ciphertext = m.old_ciphertext
    AND c.credential_version = m.credential_version
  RETURNING c.id`;

/**
 * Re-seals, under `keys[0]`, every `syrve_connections` password sealed with another key, opening each with
 * its own key and binding and sealing with the same binding. Safe to kill at any moment and to run twice at
 * once: each batch is one autocommitted UPDATE, conditional per row, and a rerun selects only rows still on an old key.
 */
export async function reencryptSecrets(
  client: ReencryptClient,
  keys: readonly SecretKey[],
  options: ReencryptOptions,
): Promise<ReencryptResult> {
  const newest = keys[0];
  if (newest === undefined) throw new SecretBoxError('no-keys');
  if (!Number.isSafeInteger(options.batchSize) || options.batchSize < 1) throw new RangeError('batchSize must be a positive integer');
  const report = options.onProgress ?? (() => undefined);

  const byKeyId = await countByKeyId(client, newest.kid);
  const total = Object.values(byKeyId).reduce((sum, n) => sum + n, 0);
  report({ kind: 'start', newestKeyId: newest.kid, total, byKeyId });
  const result: ReencryptResult = { total, moved: 0, skipped: 0, failed: [], remaining: total, stopped: false };
  if (options.dryRun === true) return result;

  let after: string | null = null;
  for (let batch = 1; ; batch++) {
    if (options.signal?.aborted === true) {
      result.stopped = true;
      break;
    }
    const { rows } = await client.query(NEXT_BATCH, [newest.kid, after, options.batchSize]);
    if (rows.length === 0) break;
    const resealed: Resealed[] = [];
    for (const raw of rows) {
      const outcome = await reseal(keys, raw);
      if (typeof outcome !== 'string') {
        resealed.push(outcome);
      } else {
        const failure = { id: String((raw as { id: unknown }).id), reason: outcome };
        result.failed.push(failure);
        report({ kind: 'failed', ...failure });
      }
    }
    if (resealed.length > 0) {
      const { rows: moved } = await client.query(MOVE, [
        newest.kid,
        resealed.map((r) => r.row.id),
        resealed.map((r) => r.ciphertext),
        resealed.map((r) => r.row.password_key_id),
        resealed.map((r) => r.row.password_ciphertext),
        resealed.map((r) => r.row.credential_version),
      ]);
      result.moved += moved.length;
      result.skipped += resealed.length - moved.length;
    }
    after = String((rows.at(-1) as { id: unknown }).id);
    report({ kind: 'batch', batch, moved: result.moved, skipped: result.skipped, failed: result.failed.length, total });
  }
  result.remaining = Object.values(await countByKeyId(client, newest.kid)).reduce((sum, n) => sum + n, 0);
  return result;
}

async function countByKeyId(client: ReencryptClient, newestKeyId: string): Promise<Record<string, number>> {
  const { rows } = await client.query(COUNT_BY_KEY, [newestKeyId]);
  const counts: Record<string, number> = {};
  for (const row of z.array(z.object({ password_key_id: z.string(), n: z.number().int() })).parse(rows)) {
    counts[row.password_key_id] = row.n;
  }
  return counts;
}

interface Resealed {
  row: z.infer<typeof Row>;
  ciphertext: string;
}

/** Opens a row's password with its own key and binding and seals it with the newest key and the same binding. */
async function reseal(keys: readonly SecretKey[], raw: unknown): Promise<Resealed | FailureReason> {
  const parsed = Row.safeParse(raw);
  if (!parsed.success) return 'bad-row';
  const row = parsed.data;
  const binding: SecretBinding = {
    purpose: 'syrve-password',
    organizationId: row.organization_id,
    connectionId: row.id,
    credentialVersion: row.credential_version,
  };
  try {
    const plaintext = await openSecret(keys, { keyId: row.password_key_id, ciphertext: row.password_ciphertext }, binding);
    return { row, ciphertext: (await sealSecret(keys, plaintext, binding)).ciphertext };
  } catch (error) {
    if (!(error instanceof SecretBoxError)) throw error;
    if (error.reason === 'unknown-key' || error.reason === 'does-not-open') return error.reason;
    // The binding comes from the row, so a binding the box refuses is a bad row; a bad key stops the run.
    if (error.reason === 'bad-binding') return 'bad-row';
    throw error;
  }
}
