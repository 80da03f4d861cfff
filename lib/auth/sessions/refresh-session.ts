// Refresh: the presented refresh token is spent and its successor stored, in one PostgreSQL statement. A spent token
// presented again is a retry when it comes within the grace and its successor is still unused (answered with that same
// successor), and reuse otherwise — the whole session is revoked there and then, and its denylist entry written after.
import { uuidv7 } from 'uuidv7';
import { dbCall } from '../../pg/unavailable.ts';
import { parseRevocationSeq, REVOCATION_SEQ_NOW, revokeSession } from '../../runtime/revocation/index.ts';
import { throttle } from '../../runtime/throttle/index.ts';
import type { Deps } from '../../deps.ts';
import { refreshTokenHash, successorRefreshToken } from '../tokens/refresh-token.ts';
import { sessionTokens, type SessionTokens } from './session-tokens.ts';

export type RefreshOutcome =
  | { ok: true; tokens: SessionTokens }
  /** Unknown, malformed, spent (reuse: the session is now revoked), idle (now revoked) or ended: one answer for all. */
  | { ok: false; reason: 'invalid' }
  /** The session's organisation is suspended: nothing was spent, the session stays, and the same token works once it is reactivated. */
  | { ok: false; reason: 'suspended' }
  /** The caller's address is over refresh-ip: nothing was spent. */
  | { ok: false; reason: 'rate-limited'; retryAfterSeconds: number };

interface RefreshRow {
  outcome: 'rotated' | 'retried' | 'suspended' | 'reused' | 'idle' | 'ended' | 'unknown';
  session_id: string | null;
  user_id: string | null;
  organization_id: string | null;
  expires_at: Date | null;
  email: string | null;
  revocation_seq: unknown;
}

export async function refreshSession(
  deps: Deps,
  input: { refreshToken: string; clientIp: string | undefined; correlationId: string },
): Promise<RefreshOutcome> {
  // The token's form first (a malformed one costs nothing), then the per-address counter before PostgreSQL: the
  // statement spends the token, so the counter must decide before it, not beside it. The successor's HMAC, local work,
  // runs while the counter's round trip is out.
  const presentedHash = await refreshTokenHash(input.refreshToken);
  if (presentedHash === undefined) return { ok: false, reason: 'invalid' };
  // The same presented token always derives the same successor: a retry finds its hash stored, a first use stores it.
  const [byIp, successor] = await Promise.all([
    throttle.hitIp(deps, { action: 'refresh-ip', clientIp: input.clientIp, correlationId: input.correlationId }),
    successorRefreshToken(deps.config.indexHashKey, input.refreshToken),
  ]);
  if (!byIp.allowed) return { ok: false, reason: 'rate-limited', retryAfterSeconds: byIp.retryAfterSeconds };
  const nowMs = deps.clock.now();
  const { sessionIdleTimeoutSeconds, refreshRetryGraceSeconds } = deps.config.signIn;
  const rows = await dbCall('commit', 'auth.session.refresh', (signal) =>
    deps.db.query<RefreshRow>(
      // The clock's setting is read per row of the function, which has run to its end by then (a set-returning plpgsql
      // function materialises its rows): a reuse or an idle end took its value there.
      `SELECT r.outcome, r.session_id, r.user_id, r.organization_id, r.expires_at, u.email,
              ${REVOCATION_SEQ_NOW} AS revocation_seq
         FROM auth_refresh_session($1, $2, $3, $4, $5, $6, $7) r
         LEFT JOIN users u ON u.id = r.user_id`,
      [
        presentedHash,
        successor.tokenHash,
        new Date(nowMs).toISOString(),
        sessionIdleTimeoutSeconds,
        refreshRetryGraceSeconds,
        uuidv7(),
        input.correlationId,
      ],
      { signal },
    ),
  );
  const row = rows[0];
  if ((row?.outcome === 'reused' || row?.outcome === 'idle') && row.session_id !== null && row.user_id !== null) {
    // PostgreSQL revoked the session in the same statement; the denylist makes it effective for its live access tokens.
    await revokeSession(deps.revocation, deps.keys, deps.logger, {
      sessionId: row.session_id,
      userId: row.user_id,
      tokenExpiresAt: 0,
      sessionCoverSeconds: deps.config.accessTokenMaxLifetimeSeconds,
      nowMs,
      correlationId: input.correlationId,
      revocationSeq: parseRevocationSeq(row.revocation_seq),
    });
    if (row.outcome === 'reused') deps.logger.warn('refresh_token_reused', { userId: row.user_id, correlationId: input.correlationId });
    else deps.logger.info('session_idle_ended', { userId: row.user_id, correlationId: input.correlationId });
    return { ok: false, reason: 'invalid' };
  }
  if (row?.outcome === 'suspended') return { ok: false, reason: 'suspended' };
  if (
    (row?.outcome !== 'rotated' && row?.outcome !== 'retried') ||
    row.session_id === null ||
    row.user_id === null ||
    row.organization_id === null ||
    row.expires_at === null ||
    row.email === null
  ) {
    return { ok: false, reason: 'invalid' };
  }
  // A retry is answered like the refresh whose reply was lost: the same successor, a fresh access token.
  if (row.outcome === 'retried') deps.logger.info('refresh_retried', { userId: row.user_id, correlationId: input.correlationId });
  const tokens = await sessionTokens(
    deps,
    {
      sessionId: row.session_id,
      userId: row.user_id,
      email: row.email,
      organizationId: row.organization_id,
      expiresAtMs: new Date(row.expires_at).getTime(),
    },
    successor.token,
    nowMs,
  );
  return { ok: true, tokens };
}
