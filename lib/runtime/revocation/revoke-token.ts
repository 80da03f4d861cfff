// One access token revoked alone (its jti), for a token that must stop working while its session is not the presenter's
// to end: its `sid` names another user's session (lib/auth/logout.ts, lib/auth/sessions/revoke-all.ts). PostgreSQL records
// it first (revoked_tokens, migrations/0019), as sessions' revoked_at is recorded first: the denylist entry is a copy the
// repair can write again, and the check asks PostgreSQL while the denylist is not whole.
import { uuidv7 } from 'uuidv7';
import { dbCall } from '../../pg/unavailable.ts';
import type { Deps } from '../../deps.ts';
import { forgetWhole } from './denylist-state.ts';
import { parseRevocationSeq, revocationSeqAfter } from './revocation-seq.ts';
import { writeRevocation } from './write-revocation.ts';
import { jtiDigest } from './jti-digest.ts';

export interface TokenRevocation {
  /** Whose token it is: the row and the log line name the user, never the token or its jti. */
  userId: string;
  jti: string;
  /** Unix seconds when the token expires: the entry and the row live until then (registry row revokedJti). */
  tokenExpiresAt: number;
  nowMs: number;
  correlationId: string;
}

/**
 * The row (idempotent: a repeat keeps the first), then `SET <revoked-jti key> 1 EX (exp − now)` and the state's point
 * moved to the revocation, in one script (lib/runtime/revocation/write-revocation.ts).
 * PostgreSQL unavailable throws (the caller answers 503 and nothing is revoked yet; a retry does it). A failed denylist
 * write is logged (`revocation_write_failed`), forgets that the denylist is whole and is not thrown: the row stands, and
 * the check refuses the token from it until the repair has written the entry again.
 */
export async function revokeToken(deps: Deps, revocation: TokenRevocation): Promise<{ written: boolean }> {
  const ttlSeconds = Math.max(1, revocation.tokenExpiresAt - Math.floor(revocation.nowMs / 1000));
  const digest = await jtiDigest(revocation.jti);
  const rows = await dbCall('commit', 'revocation.revokeToken', (signal) =>
    deps.db.query<{ revocation_seq: unknown }>(
      `WITH inserted AS (
         INSERT INTO revoked_tokens (id, jti_sha256, user_id, revoked_at, expires_at)
         VALUES ($1, $2, $3, $4, to_timestamp($5)) ON CONFLICT (jti_sha256) DO NOTHING
         RETURNING id
       )
       SELECT ${revocationSeqAfter(['inserted'])} AS revocation_seq`,
      [uuidv7(), digest, revocation.userId, new Date(revocation.nowMs).toISOString(), revocation.tokenExpiresAt],
      { signal },
    ),
  );
  const revocationSeq = parseRevocationSeq(rows[0]?.revocation_seq);
  const written = await writeRevocation(deps.revocation, deps.keys, {
    entries: [deps.keys.revokedJti(digest)],
    ttlSeconds,
    revocationSeq,
  });
  if (!written) {
    // The token is refused through its row until the repair has written the entry again.
    await forgetWhole(deps.revocation, deps.keys);
    deps.logger.error('revocation_write_failed', {
      userId: revocation.userId,
      correlationId: revocation.correlationId,
      failedCount: 1,
      sessionCount: 0,
      exposureSeconds: ttlSeconds,
    });
  }
  return { written };
}
