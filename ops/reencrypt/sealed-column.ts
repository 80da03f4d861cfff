// What `secrets:reencrypt` needs to know of one sealed column: how to find its rows, the binding each was sealed
// under, and the one conditional UPDATE that moves a batch. Each file beside this one describes one or two.
import type * as z from 'zod';
import type { SecretBinding } from '../../lib/crypto/index.ts';

/** A row as the batch query returns it: its id, the key id it names and its ciphertext, plus what its binding needs. */
export interface SealedRow {
  id: string;
  key_id: string;
  ciphertext: string;
}

export interface SealedColumn<Row extends SealedRow = SealedRow> {
  /** How reports name these rows: `Syrve passwords`, `TOTP secrets`. */
  label: string;
  /** `SELECT key_id, n` per key id other than $1. */
  countByKey: string;
  /** Rows not on key $1, ids after $2 (or from the first when null), in id order, at most $3. */
  nextBatch: string;
  /**
   * One statement for a batch: $1 the newest key id, $2 ids, $3 new ciphertexts, $4 old key ids, $5 old ciphertexts,
   * then `extraParams`; it changes a row only while it still holds what was read, and returns the ids it changed.
   */
  move: string;
  row: z.ZodType<Row>;
  /** What an operator does about a row that failed (printed after the summary when rows remain). */
  whenFailed: string;
  binding(row: Row): SecretBinding;
  /** Per-row values the UPDATE also compares (a Syrve row's credential version), as arrays after $5. */
  extraParams?(rows: readonly Row[]): unknown[][];
}
