// DELETE /auth/sessions/{sessionId}: the caller ends one of their own sessions, as logout ends the presenting one —
// PostgreSQL first (revoked_at and the audit row, one statement), then the denylist and the active context.
import { conditionalAuditInsert } from '../../pg/audit.ts';
import { dbCall } from '../../pg/unavailable.ts';
import type { Deps } from '../../deps.ts';
import type { Principal } from '../claims.ts';
import { parseRevocationSeq, revocationSeqAfter } from '../../runtime/revocation/index.ts';
import { afterRevocation } from './after-revocation.ts';

/** 'not-found' is one answer for a session id that is unknown and for one of another user: nothing tells them apart. */
export type EndSessionOutcome = { ok: true } | { ok: false; reason: 'not-found' };

export async function endOwnSession(
  deps: Deps,
  principal: Principal,
  sessionId: string,
  correlationId: string,
): Promise<EndSessionOutcome> {
  const nowMs = deps.clock.now();
  const now = new Date(nowMs);
  // The audit row names the user, never the session id; written only when this call revoked it.
  const audit = conditionalAuditInsert(
    {
      action: 'session.revoked',
      actorUserId: principal.userId,
      organizationId: null,
      locationId: null,
      targetId: principal.userId,
      correlationId,
      details: { via: 'session-list' },
    },
    now,
    'EXISTS (SELECT 1 FROM revoked)',
    4,
  );
  // The user's id is in the WHERE of both the update and the lookup: another user's session is never touched and
  // reads exactly as an unknown id does. One already ended is found and not revoked again (a repeat answers alike).
  const rows = await dbCall('commit', 'auth.sessions.end', (signal) =>
    deps.db.query<{ found: boolean; revocation_seq: unknown }>(
      `WITH revoked AS (
         UPDATE sessions SET revoked_at = $3
          WHERE id = $1 AND user_id = $2 AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > $3)
         RETURNING id
       ), audit AS (${audit.text})
       SELECT EXISTS (SELECT 1 FROM sessions WHERE id = $1 AND user_id = $2) AS found,
              ${revocationSeqAfter(['revoked'])} AS revocation_seq`,
      [sessionId, principal.userId, now.toISOString(), ...audit.params],
      { signal },
    ),
  );
  if (rows[0]?.found !== true) return { ok: false, reason: 'not-found' };
  // Written again for one revoked earlier too: its entry may be the lost one. Its refresh tokens are dead already:
  // the refresh refuses every token of a revoked session (migrations/0012).
  // A write that fails is logged by it and written by the denylist repair; the answer is 204 all the same, as logout's.
  await afterRevocation(deps, {
    userId: principal.userId,
    sessionIds: [sessionId],
    tokenExpiresAt: sessionId === principal.sessionId ? principal.expiresAt : 0,
    nowMs,
    correlationId,
    revocationSeq: parseRevocationSeq(rows[0]?.revocation_seq),
  });
  return { ok: true };
}
