// Moves every secret of one sealed column to the newest SECRETS_KEYS key, batch by batch; the core of
// `npm run secrets:reencrypt`, which runs it for every column of SEALED_COLUMNS.
import * as z from 'zod';
import type { SecretKey } from '../lib/config/secrets-keys.ts';
import { openSecret, sealSecret, SecretBoxError } from '../lib/crypto/index.ts';
import type { SealedColumn, SealedRow } from './reencrypt/sealed-column.ts';
import { SYRVE_PASSWORDS } from './reencrypt/syrve-passwords.ts';
import { SIGNING_KEYS } from './reencrypt/signing-keys.ts';
import { TOTP_SECRETS } from './reencrypt/totp-secrets.ts';
import { WEBHOOK_PREVIOUS_SECRETS, WEBHOOK_SECRETS } from './reencrypt/webhook-secrets.ts';

/** Every sealed column, in the order the command moves them (a webhook secret a rotation moves to the previous columns mid-run is still ahead). */
export const SEALED_COLUMNS: readonly SealedColumn[] = [
  SYRVE_PASSWORDS,
  TOTP_SECRETS,
  SIGNING_KEYS,
  WEBHOOK_SECRETS,
  WEBHOOK_PREVIOUS_SECRETS,
];

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

/**
 * Re-seals, under `keys[0]`, every secret of `column` (default: the Syrve passwords) sealed with another key, opening
 * each with its own key and binding and sealing with the same binding. Safe to kill at any moment and to run twice at
 * once: each batch is one autocommitted UPDATE, conditional per row, and a rerun selects only rows still on an old key.
 */
export async function reencryptSecrets(
  client: ReencryptClient,
  keys: readonly SecretKey[],
  options: ReencryptOptions,
  column: SealedColumn = SYRVE_PASSWORDS,
): Promise<ReencryptResult> {
  const newest = keys[0];
  if (newest === undefined) throw new SecretBoxError('no-keys');
  if (!Number.isSafeInteger(options.batchSize) || options.batchSize < 1) throw new RangeError('batchSize must be a positive integer');
  const report = options.onProgress ?? (() => undefined);

  const byKeyId = await countByKeyId(client, column, newest.kid);
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
    const { rows } = await client.query(column.nextBatch, [newest.kid, after, options.batchSize]);
    if (rows.length === 0) break;
    const resealed: Resealed[] = [];
    for (const raw of rows) {
      const outcome = await reseal(keys, column, raw);
      if (typeof outcome !== 'string') {
        resealed.push(outcome);
      } else {
        const failure = { id: String((raw as { id: unknown }).id), reason: outcome };
        result.failed.push(failure);
        report({ kind: 'failed', ...failure });
      }
    }
    if (resealed.length > 0) {
      const readRows = resealed.map((r) => r.row);
      const { rows: moved } = await client.query(column.move, [
        newest.kid,
        readRows.map((row) => row.id),
        resealed.map((r) => r.ciphertext),
        readRows.map((row) => row.key_id),
        readRows.map((row) => row.ciphertext),
        ...(column.extraParams?.(readRows) ?? []),
      ]);
      result.moved += moved.length;
      result.skipped += resealed.length - moved.length;
    }
    after = String((rows.at(-1) as { id: unknown }).id);
    report({ kind: 'batch', batch, moved: result.moved, skipped: result.skipped, failed: result.failed.length, total });
  }
  result.remaining = Object.values(await countByKeyId(client, column, newest.kid)).reduce((sum, n) => sum + n, 0);
  return result;
}

async function countByKeyId(client: ReencryptClient, column: SealedColumn, newestKeyId: string): Promise<Record<string, number>> {
  const { rows } = await client.query(column.countByKey, [newestKeyId]);
  const counts: Record<string, number> = {};
  for (const row of z.array(z.object({ key_id: z.string(), n: z.number().int() })).parse(rows)) {
    counts[row.key_id] = row.n;
  }
  return counts;
}

interface Resealed {
  row: SealedRow;
  ciphertext: string;
}

/** Opens a row's secret with its own key and binding and seals it with the newest key and the same binding. */
async function reseal(keys: readonly SecretKey[], column: SealedColumn, raw: unknown): Promise<Resealed | FailureReason> {
  const parsed = column.row.safeParse(raw);
  if (!parsed.success) return 'bad-row';
  const row = parsed.data;
  const binding = column.binding(row);
  try {
    const plaintext = await openSecret(keys, { keyId: row.key_id, ciphertext: row.ciphertext }, binding);
    return { row, ciphertext: (await sealSecret(keys, plaintext, binding)).ciphertext };
  } catch (error) {
    if (!(error instanceof SecretBoxError)) throw error;
    if (error.reason === 'unknown-key' || error.reason === 'does-not-open') return error.reason;
    // The binding comes from the row, so a binding the box refuses is a bad row; a bad key stops the run.
    if (error.reason === 'bad-binding') return 'bad-row';
    throw error;
  }
}
