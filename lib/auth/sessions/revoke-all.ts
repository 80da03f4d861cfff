// Sign out everywhere: every open session of the caller, and the presenting one, revoked in PostgreSQL with one audit
// row in one statement; then the denylist for all of them in one pipeline.
import { countedAuditInsert } from '../../pg/audit.ts';
import { dbCall } from '../../pg/unavailable.ts';
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
  // expires_at) has no live token and is left as it is.
  const rows = await dbCall('commit', 'auth.sessions.revokeAll', (signal) =>
    deps.db.query<{ id: string }>(
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
       SELECT id FROM revoked UNION ALL SELECT id FROM presenting`,
      [principal.userId, principal.sessionId, now.toISOString(), ...audit.params],
      { signal },
    ),
  );
  const ended = rows.map((row) => row.id);
  // The presenting session goes on the denylist even when PostgreSQL had revoked it before: its entry may be the lost one.
  const { denylistPending } = await afterRevocation(deps, {
    userId: principal.userId,
    sessionIds: [...ended, principal.sessionId],
    tokenExpiresAt: principal.expiresAt,
    nowMs,
    correlationId,
  });
  return { ok: true, revoked: ended.length, denylistPending };
}
