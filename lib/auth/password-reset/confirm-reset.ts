// auth.passwordReset.confirm: the token is consumed once, then PostgreSQL sets the password and revokes every open
// session of the user in one transaction, and the denylist makes the revocations effective at once.
import { auditStatement } from '../../pg/audit.ts';
import { dbCall } from '../../pg/unavailable.ts';
import { singleUse } from '../../runtime/single-use/index.ts';
import type { Deps } from '../../deps.ts';
import { hashPassword } from '../password.ts';
import { afterRevocation } from '../sessions/after-revocation.ts';
import { resetSchema } from './reset-token.ts';

export type ConfirmResetOutcome =
  | { ok: true; revokedCount: number; denylistPending: string[] }
  /** Unknown, used, expired or malformed: one answer. */
  | { ok: false; reason: 'invalid' };

export async function confirmReset(
  deps: Deps,
  input: { token: string; newPassword: string; correlationId: string },
): Promise<ConfirmResetOutcome> {
  // Consumed before the derivation: a guessed token costs one Redis round trip, never a 100 000-iteration KDF.
  const consumed = await singleUse.consume(deps, 'password-reset', resetSchema, input.token);
  if (!consumed.ok) return { ok: false, reason: 'invalid' };
  const passwordHash = await hashPassword(input.newPassword);
  const { userId, organizationId } = consumed.value;
  const now = new Date(deps.clock.now());
  const results = await dbCall('commit', 'auth.passwordReset.confirm', (signal) =>
    deps.db.transaction(
      [
        { text: 'UPDATE users SET password_hash = $2 WHERE id = $1', params: [userId, passwordHash] },
        {
          text: 'UPDATE sessions SET revoked_at = $2 WHERE user_id = $1 AND revoked_at IS NULL RETURNING id',
          params: [userId, now.toISOString()],
        },
        auditStatement(
          {
            action: 'auth.password_reset',
            actorUserId: userId,
            organizationId,
            locationId: null,
            targetId: userId,
            correlationId: input.correlationId,
          },
          now,
        ),
      ],
      { signal },
    ),
  );
  const sessionIds = (results[1] ?? []).map((row) => String(row.id));
  // No token was presented: every entry covers the longest access-token lifetime, as an admin's revoke does.
  const { denylistPending } = await afterRevocation(deps, {
    userId,
    sessionIds,
    tokenExpiresAt: 0,
    nowMs: now.getTime(),
    correlationId: input.correlationId,
  });
  return { ok: true, revokedCount: sessionIds.length, denylistPending };
}
