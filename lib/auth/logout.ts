// Logout: PostgreSQL records the session as revoked (the truth), then the denylist entry makes it effective at once and
// the session's active context goes. Only a session of the token's own user: a token whose `sid` names another user's
// session ends itself alone (its jti), never that session.
import { conditionalAuditInsert } from '../pg/audit.ts';
import { dbCall } from '../pg/unavailable.ts';
import { parseRevocationSeq, revokeSessions, revokeToken, revocationSeqAfter } from '../runtime/revocation/index.ts';
import type { Deps } from '../deps.ts';
import type { Principal } from './claims.ts';
import { afterRevocation } from './sessions/after-revocation.ts';

export async function logout(deps: Deps, principal: Principal, correlationId: string): Promise<{ denylisted: boolean }> {
  const now = new Date(deps.clock.now());
  // Built before the call: an invalid audit event is a bug, not an unavailable database. The audit row names the user,
  // never the session id, and is written only when the session is the user's.
  const audit = conditionalAuditInsert(
    {
      action: 'session.revoked',
      actorUserId: principal.userId,
      organizationId: null,
      locationId: null,
      targetId: principal.userId,
      correlationId,
    },
    now,
    'EXISTS (SELECT 1 FROM mine)',
    4,
  );
  // One statement. A session PostgreSQL has no row for (an identity provider's) is inserted as the caller's, as before;
  // one that belongs to another user is left as it is (the conflict's WHERE refuses the update, so nothing returns).
  const rows = await dbCall('commit', 'auth.logout', (signal) =>
    deps.db.query<{ mine: boolean; revocation_seq: unknown }>(
      `WITH mine AS (
         INSERT INTO sessions (id, user_id, revoked_at) VALUES ($1, $2, $3)
         ON CONFLICT (id) DO UPDATE SET revoked_at = COALESCE(sessions.revoked_at, EXCLUDED.revoked_at)
          WHERE sessions.user_id = EXCLUDED.user_id
         RETURNING id
       ), audit AS (${audit.text})
       SELECT EXISTS (SELECT 1 FROM mine) AS mine, ${revocationSeqAfter(['mine'])} AS revocation_seq`,
      [principal.sessionId, principal.userId, now.toISOString(), ...audit.params],
      { signal },
    ),
  );
  const revocationSeq = parseRevocationSeq(rows[0]?.revocation_seq);
  if (rows[0]?.mine !== true) {
    deps.logger.warn('session_owner_mismatch', { operation: 'logout', userId: principal.userId, correlationId });
    // The refused upsert still took a clock value (its row was proposed before the conflict): nothing to write for it,
    // but recorded, so the denylist's point does not wait on it.
    await revokeSessions(deps.revocation, deps.keys, deps.logger, {
      userId: principal.userId,
      sessionIds: [],
      tokenExpiresAt: 0,
      sessionCoverSeconds: deps.config.accessTokenMaxLifetimeSeconds,
      nowMs: now.getTime(),
      correlationId,
      revocationSeq,
    });
    const { written } = await revokeToken(deps, {
      userId: principal.userId,
      jti: principal.jti,
      tokenExpiresAt: principal.expiresAt,
      nowMs: now.getTime(),
      correlationId,
    });
    return { denylisted: written };
  }
  const { denylistPending } = await afterRevocation(deps, {
    userId: principal.userId,
    sessionIds: [principal.sessionId],
    tokenExpiresAt: principal.expiresAt,
    nowMs: now.getTime(),
    correlationId,
    revocationSeq,
  });
  return { denylisted: denylistPending.length === 0 };
}
