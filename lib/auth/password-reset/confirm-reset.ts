// auth.passwordReset.confirm: the new password is checked against the breached-password list while the link is only
// read, the token is consumed once, then PostgreSQL sets the password (only at the credential epoch the link was issued
// at) and revokes every open session of the user in one transaction, and the denylist makes the revocations effective at once.
import { auditStatement } from '../../pg/audit.ts';
import { dbCall, sqlState } from '../../pg/unavailable.ts';
import { singleUse } from '../../runtime/single-use/index.ts';
import { throttle } from '../../runtime/throttle/index.ts';
import type { Deps } from '../../deps.ts';
import { hashPassword } from '../password.ts';
import { checkPasswordBreach } from '../breached-password/check-password.ts';
import { parseRevocationSeq, REVOCATION_SEQ_NOW } from '../../runtime/revocation/index.ts';
import { afterRevocation } from '../sessions/after-revocation.ts';
import { resetSchema } from './reset-token.ts';

/** The SQLSTATE of migrations/0015_credential_epoch.sql's auth_set_password_at_epoch. */
const CREDENTIALS_CHANGED = 'RS410';

export type ConfirmResetOutcome =
  | { ok: true; revokedCount: number; denylistPending: string[] }
  /** Unknown, used, expired, malformed, or issued before a later password change: one answer. */
  | { ok: false; reason: 'invalid' }
  | { ok: false; reason: 'rate-limited'; retryAfterSeconds: number }
  /** The link is still good: nothing was consumed or written. */
  | { ok: false; reason: 'password-breached' | 'breach-check-unavailable' };

export async function confirmReset(
  deps: Deps,
  input: { token: string; newPassword: string; clientIp: string | undefined; correlationId: string },
): Promise<ConfirmResetOutcome> {
  // Counted before the consume, and not beside it: a refusal after the consume would spend the link it refuses.
  const byIp = await throttle.hitIp(deps, {
    action: 'password-reset-confirm-ip',
    clientIp: input.clientIp,
    correlationId: input.correlationId,
  });
  if (!byIp.allowed) return { ok: false, reason: 'rate-limited', retryAfterSeconds: byIp.retryAfterSeconds };
  const breach = await checkWhileUnspent(deps, input);
  if (!breach.ok) return breach;
  // Consumed before the derivation: a guessed token costs one Redis round trip, never a 100 000-iteration KDF.
  const consumed = await singleUse.consume(deps, 'password-reset', resetSchema, input.token);
  if (!consumed.ok) return { ok: false, reason: 'invalid' };
  const passwordHash = await hashPassword(input.newPassword);
  const { userId, organizationId, credentialEpoch } = consumed.value;
  const now = new Date(deps.clock.now());
  let results: Record<string, unknown>[][];
  try {
    results = await dbCall('commit', 'auth.passwordReset.confirm', (signal) =>
      deps.db.transaction(
        [
          // Raises RS410 when the password changed since the link was issued (another link, a racing confirm): the
          // whole transaction rolls back. The trigger of migrations/0015 moves the epoch on, which ends every other
          // link and MFA challenge of the user.
          { text: 'SELECT auth_set_password_at_epoch($1, $2, $3)', params: [userId, passwordHash, credentialEpoch] },
          // A statement of its own, after the lock the first took: it sees a session a racing sign-in committed meanwhile.
          {
            text: `UPDATE sessions SET revoked_at = $2 WHERE user_id = $1 AND revoked_at IS NULL
                   RETURNING id, ${REVOCATION_SEQ_NOW} AS revocation_seq`,
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
  } catch (error) {
    if (sqlState(error) === CREDENTIALS_CHANGED) return { ok: false, reason: 'invalid' };
    throw error;
  }
  const sessionIds = (results[1] ?? []).map((row) => String(row.id));
  // No token was presented: every entry covers the longest access-token lifetime, as an admin's revoke does.
  const { denylistPending } = await afterRevocation(deps, {
    userId,
    sessionIds,
    tokenExpiresAt: 0,
    nowMs: now.getTime(),
    correlationId: input.correlationId,
    revocationSeq: parseRevocationSeq(results[1]?.[0]?.revocation_seq),
  });
  return { ok: true, revokedCount: sessionIds.length, denylistPending };
}

/**
 * The breached-password check runs before the consume, so its refusal (or a fail-closed 503) leaves the link usable
 * for a better password. Only a link that exists is checked: the read is one Redis round trip, as the consume is, so
 * a guessed token still costs no KDF and never an outbound call. With the check off, nothing is read.
 */
async function checkWhileUnspent(
  deps: Deps,
  input: { token: string; newPassword: string; correlationId: string },
): Promise<{ ok: true } | Extract<ConfirmResetOutcome, { ok: false }>> {
  if (deps.config.passwordBreach.mode === 'off') return { ok: true };
  if ((await singleUse.peek(deps, 'password-reset', resetSchema, input.token)) === undefined) return { ok: false, reason: 'invalid' };
  return checkPasswordBreach(deps, { password: input.newPassword, correlationId: input.correlationId });
}
