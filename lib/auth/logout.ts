// Logout: PostgreSQL records the session as revoked (the truth), then the denylist entry makes it effective at once and
// the session's active context goes.
import { auditStatement } from '../pg/audit.ts';
import { dbCall } from '../pg/unavailable.ts';
import type { Deps } from '../deps.ts';
import type { Principal } from './claims.ts';
import { afterRevocation } from './sessions/after-revocation.ts';

export async function logout(deps: Deps, principal: Principal, correlationId: string): Promise<{ denylisted: boolean }> {
  const now = new Date(deps.clock.now());
  // Built before the call: an invalid audit event is a bug, not an unavailable database.
  const statements = [
    {
      text: `INSERT INTO sessions (id, user_id, revoked_at) VALUES ($1, $2, $3)
             ON CONFLICT (id) DO UPDATE SET revoked_at = COALESCE(sessions.revoked_at, EXCLUDED.revoked_at)`,
      params: [principal.sessionId, principal.userId, now.toISOString()],
    },
    // The audit row names the user, never the session id.
    auditStatement(
      {
        action: 'session.revoked',
        actorUserId: principal.userId,
        organizationId: null,
        locationId: null,
        targetId: principal.userId,
        correlationId,
      },
      now,
    ),
  ];
  await dbCall('commit', 'auth.logout', (signal) => deps.db.transaction(statements, { signal }));
  const { denylistPending } = await afterRevocation(deps, {
    userId: principal.userId,
    sessionIds: [principal.sessionId],
    tokenExpiresAt: principal.expiresAt,
    nowMs: now.getTime(),
    correlationId,
  });
  return { denylisted: denylistPending.length === 0 };
}
