// The revocation clock's value a revoking transaction took (migrations/0024): the statement that revokes returns it, and
// the denylist write records it on the revocation store once its entries landed (lib/runtime/revocation/denylist-state.ts).

/**
 * SQL expression: the value this transaction took, read once the data-modifying CTEs named have run (each is counted
 * first, so the setting is read after their triggers). Text, '' or null when the transaction revoked nothing.
 */
export function revocationSeqAfter(ctes: readonly string[]): string {
  const ran = ctes.map((cte, index) => `(SELECT count(*) FROM ${cte}) AS ran_${index}`).join(', ');
  return `(SELECT current_setting('runstate.revocation_seq', true) FROM ${ran})`;
}

/** The same, for a statement whose own rows (RETURNING) or whose function's rows come after the revocation. */
export const REVOCATION_SEQ_NOW = `current_setting('runstate.revocation_seq', true)`;

/** The value as the driver returns it; null when the transaction revoked nothing. */
export function parseRevocationSeq(value: unknown): number | null {
  const seq = typeof value === 'string' && /^[0-9]{1,15}$/.test(value) ? Number(value) : typeof value === 'number' ? value : NaN;
  return Number.isSafeInteger(seq) && seq > 0 ? seq : null;
}
