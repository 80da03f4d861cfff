// Sign out everywhere: every open session of the caller, and the presenting one, revoked in PostgreSQL with one audit
// row in one statement; then the denylist for all of them in one pipeline.
import { countedAuditInsert } from '../../pg/audit.ts';
import { dbCall } from '../../pg/unavailable.ts';
import { parseRevocationSeq, revocationSeqAfter, revokeToken } from '../../runtime/revocation/index.ts';
import type { Deps } from '../../deps.ts';
import type { Principal } from '../claims.ts';
import { afterRevocation } from './after-revocation.ts';

export interface SessionsRevoked {
  ok: true;
  /** Sessions this call ended (an already revoked or ended one is not counted again). */
  revoked: number;
  /** Sessions whose denylist entry did not land: their tokens pass until the denylist repair writes them. */
  denylistPending: string[];
}

export async function revokeAllSessions(deps: Deps, principal: Principal, correlationId: string): Promise<SessionsRevoked> {
  const nowMs = deps.clock.now();
  const now = new Date(nowMs);
  // The audit row names the user and the count, never a session id.
  const audit = countedAuditInsert(
    {
      action: 'session.revoked_all',
      actorUserId: principal.userId,
      organizationId: null,
      locationId: null,
      targetId: principal.userId,
      correlationId,
    },
    now,
    { detail: 'revokedCount', sql: '(SELECT count(*) FROM revoked) + (SELECT count(*) FROM presenting)' },
    4,
  );
  // One statement, so the count in the audit row is exactly what it revoked. The presenting session is inserted when
  // PostgreSQL has no row for it (an external identity provider's session), as logout does; an ended session (past
  // expires_at) has no live token and is left as it is. `own` answers whether the presenting session is the caller's:
  // a token whose sid names another user's session must not put that session on the denylist.
  const rows = await dbCall('commit', 'auth.sessions.revokeAll', (signal) =>
    deps.db.query<{ id: string; kind: 'revoked' | 'presenting' | 'own' | 'clock' }>(
      `WITH revoked AS (
         UPDATE sessions SET revoked_at = $3
          WHERE user_id = $1 AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > $3)
         RETURNING id
       ), presenting AS (
         INSERT INTO sessions (id, user_id, revoked_at)
         SELECT $2::uuid, $1::uuid, $3::timestamptz WHERE NOT EXISTS (SELECT 1 FROM sessions WHERE id = $2::uuid)
         ON CONFLICT (id) DO NOTHING
         RETURNING id
       ), audit AS (${audit.text})
       SELECT id::text, 'revoked' AS kind FROM revoked
       UNION ALL SELECT id::text, 'presenting' FROM presenting
       UNION ALL SELECT id::text, 'own' FROM sessions WHERE id = $2::uuid AND user_id = $1::uuid
       UNION ALL SELECT ${revocationSeqAfter(['revoked', 'presenting'])}, 'clock'`,
      [principal.userId, principal.sessionId, now.toISOString(), ...audit.params],
      { signal },
    ),
  );
  const ended = rows.filter((row) => row.kind === 'revoked' || row.kind === 'presenting').map((row) => row.id);
  const revocationSeq = parseRevocationSeq(rows.find((row) => row.kind === 'clock')?.id);
  const presentingIsOwn = rows.some((row) => (row.kind === 'presenting' || row.kind === 'own') && row.id === principal.sessionId);
  if (!presentingIsOwn) {
    // The token itself stops working (its jti); the session it names is another user's, and stays as it is.
    deps.logger.warn('session_owner_mismatch', { operation: 'revoke-all', userId: principal.userId, correlationId });
    await revokeToken(deps, {
      userId: principal.userId,
      jti: principal.jti,
      tokenExpiresAt: principal.expiresAt,
      nowMs,
      correlationId,
    });
  }
  // The presenting session goes on the denylist even when PostgreSQL had revoked it before: its entry may be the lost one.
  const { denylistPending } = await afterRevocation(deps, {
    userId: principal.userId,
    sessionIds: presentingIsOwn ? [...ended, principal.sessionId] : ended,
    tokenExpiresAt: principal.expiresAt,
    nowMs,
    correlationId,
    revocationSeq,
  });
  return { ok: true, revoked: ended.length, denylistPending };
}
