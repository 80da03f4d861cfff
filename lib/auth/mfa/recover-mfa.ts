// auth.recoverMfa: the second step of an MFA sign-in answered with a recovery code instead of a TOTP code. The same
// challenge and counters as verify; the code is spent in the transaction that opens the session, so it signs in once.
import { computedAuditInsert } from '../../pg/audit.ts';
import { dbCall, sqlState } from '../../pg/unavailable.ts';
import type { Deps } from '../../deps.ts';
import { openSessionAtEpoch } from '../sessions/open-session.ts';
import { answerChallengeWithRecoveryCode } from './answer-recovery.ts';
import { readChallengeToken } from './challenge-token.ts';
import { peekChallenge } from './peek-challenge.ts';
import { secondStepMethod } from './second-step-method.ts';
import { normalizeRecoveryCode, recoveryCodeHash } from './recovery-codes.ts';
import type { VerifyMfaOutcome } from './verify-mfa.ts';

/** The SQLSTATE of mfa_spend_recovery_code (migrations/0014_mfa_recovery.sql): the code is unknown or already used. */
const CODE_SPENT = 'RS410';

/**
 * PostgreSQL is asked first whether the code is one of the user's unused ones (a read), the script decides as verify's
 * does (a wrong code costs a try of the challenge and a failure of the user), and only a consumed challenge goes on to
 * the transaction: mfa_spend_recovery_code (a conditional UPDATE … WHERE used_at IS NULL), its audit row and the
 * session. Of two sign-ins racing with one code (two challenges), both may pass the read and the script; one UPDATE
 * wins, the other raises and rolls its session back. Fails closed like verify: a 503 never leaves a session, and a
 * code is spent only together with the session it opened.
 */
export async function recoverMfa(
  deps: Deps,
  input: {
    challengeToken: string;
    recoveryCode: string;
    clientIp: string | undefined;
    userAgent: string | undefined;
    correlationId: string;
  },
): Promise<VerifyMfaOutcome> {
  const target = readChallengeToken(input.challengeToken);
  if (target === undefined) return { ok: false, reason: 'invalid' };
  // As verify: the per-address counter and the challenge's read in one request, so a forged or stale token costs no
  // PostgreSQL read and no code hash.
  const { byIp, challenge } = await peekChallenge(deps, {
    token: input.challengeToken,
    ...target,
    action: 'mfa-recover-ip',
    clientIp: input.clientIp,
    correlationId: input.correlationId,
  });
  if (!byIp.allowed) return { ok: false, reason: 'rate-limited', retryAfterSeconds: byIp.retryAfterSeconds };
  if (challenge === undefined) return { ok: false, reason: 'invalid' };
  const normalized = normalizeRecoveryCode(input.recoveryCode);
  const codeHash = normalized === undefined ? undefined : await recoveryCodeHash(deps.config.indexHashKey, target.userId, normalized);
  // A malformed code is a wrong code: it counts like one, without a query.
  const codeMatched =
    codeHash !== undefined &&
    (
      await dbCall('read', 'auth.mfa.recover.code', (signal) =>
        deps.db.query<{ found: boolean }>(
          `SELECT EXISTS (SELECT 1 FROM user_mfa_recovery_codes c JOIN user_mfa m ON m.user_id = c.user_id
                           WHERE c.user_id = $1 AND c.code_hash = $2 AND c.used_at IS NULL AND m.confirmed_at IS NOT NULL) AS found`,
          [target.userId, codeHash],
          { signal },
        ),
      )
    )[0]?.found === true;
  const answer = await answerChallengeWithRecoveryCode(deps, { token: input.challengeToken, ...target, codeMatched });
  if (!answer.ok) {
    if (answer.reason === 'locked') return { ok: false, reason: 'rate-limited', retryAfterSeconds: answer.retryAfterSeconds };
    return { ok: false, reason: 'invalid' };
  }
  const now = new Date(deps.clock.now());
  // How many unused codes remain once this one is spent, counted by PostgreSQL after the spend; never the code.
  const audit = computedAuditInsert(
    {
      action: 'mfa.recovery_code_used',
      actorUserId: target.userId,
      organizationId: answer.sessionState.organizationId,
      locationId: null,
      targetId: target.userId,
      correlationId: input.correlationId,
    },
    now,
    { computed: { recoveryCodesLeft: 'SELECT count(*) FROM user_mfa_recovery_codes WHERE user_id = $1 AND used_at IS NULL' } },
    2,
  );
  try {
    // The epoch the answered challenge carries: a password changed since the password step opens no session.
    const tokens = await openSessionAtEpoch(deps, {
      userId: target.userId,
      email: answer.sessionState.email,
      organizationId: answer.sessionState.organizationId,
      // The second factor of this sign-in; the audit row beside the session says it was a recovery code.
      ...secondStepMethod(answer.sessionState),
      userAgent: input.userAgent,
      correlationId: input.correlationId,
      credentialEpoch: answer.challenge.credentialEpoch,
      first: [
        { text: 'SELECT mfa_spend_recovery_code($1, $2, $3)', params: [target.userId, codeHash, now.toISOString()] },
        { text: audit.text, params: [target.userId, ...audit.params] },
      ],
    });
    if (tokens === 'credentials-changed') return { ok: false, reason: 'invalid' };
    return { ok: true, tokens };
  } catch (error) {
    if (sqlState(error) === CODE_SPENT) return { ok: false, reason: 'invalid' };
    throw error;
  }
}
