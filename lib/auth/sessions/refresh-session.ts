// Refresh: the presented refresh token is spent and the next one stored, in one PostgreSQL statement; a spent token
// presented again is reuse — the whole session is revoked there and then, and its denylist entry written after.
import { uuidv7 } from 'uuidv7';
import { dbCall } from '../../pg/unavailable.ts';
import { revokeSession } from '../../runtime/revocation/index.ts';
import type { Deps } from '../../deps.ts';
import { issueRefreshToken, refreshTokenHash } from '../tokens/refresh-token.ts';
import { sessionTokens, type SessionTokens } from './session-tokens.ts';

export type RefreshOutcome =
  | { ok: true; tokens: SessionTokens }
  /** Unknown, malformed, spent (reuse: the session is now revoked), or its session ended: one answer for all. */
  | { ok: false; reason: 'invalid'; reused: boolean };

interface RotationRow {
  outcome: 'rotated' | 'reused' | 'ended' | 'unknown';
  session_id: string | null;
  user_id: string | null;
  organization_id: string | null;
  expires_at: Date | null;
  email: string | null;
}

export async function refreshSession(deps: Deps, input: { refreshToken: string; correlationId: string }): Promise<RefreshOutcome> {
  const oldHash = await refreshTokenHash(input.refreshToken);
  if (oldHash === undefined) return { ok: false, reason: 'invalid', reused: false };
  const next = await issueRefreshToken();
  const nowMs = deps.clock.now();
  const rows = await dbCall('commit', 'auth.session.refresh', (signal) =>
    deps.db.query<RotationRow>(
      `SELECT r.outcome, r.session_id, r.user_id, r.organization_id, r.expires_at, u.email
         FROM auth_rotate_refresh_token($1, $2, $3, $4, $5) r
         LEFT JOIN users u ON u.id = r.user_id`,
      [oldHash, next.tokenHash, new Date(nowMs).toISOString(), uuidv7(), input.correlationId],
      { signal },
    ),
  );
  const row = rows[0];
  if (row?.outcome === 'reused' && row.session_id !== null && row.user_id !== null) {
    // PostgreSQL revoked the session in the same statement; the denylist makes it effective for its live access tokens.
    await revokeSession(deps.revocation, deps.keys, deps.logger, {
      sessionId: row.session_id,
      userId: row.user_id,
      tokenExpiresAt: 0,
      sessionCoverSeconds: deps.config.accessTokenMaxLifetimeSeconds,
      nowMs,
      correlationId: input.correlationId,
    });
    deps.logger.warn('refresh_token_reused', { userId: row.user_id, correlationId: input.correlationId });
    return { ok: false, reason: 'invalid', reused: true };
  }
  if (
    row?.outcome !== 'rotated' ||
    row.session_id === null ||
    row.user_id === null ||
    row.organization_id === null ||
    row.expires_at === null ||
    row.email === null
  ) {
    return { ok: false, reason: 'invalid', reused: false };
  }
  const tokens = await sessionTokens(
    deps,
    {
      sessionId: row.session_id,
      userId: row.user_id,
      email: row.email,
      organizationId: row.organization_id,
      expiresAtMs: new Date(row.expires_at).getTime(),
    },
    next.token,
    nowMs,
  );
  return { ok: true, tokens };
}
