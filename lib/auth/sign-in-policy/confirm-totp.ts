// signInPolicy.confirmTotp: the first code of the factor an enrolment token started confirms it and opens the session
// the token stands for, in one transaction: no session without the factor, no factor confirmed without the session.
import { matchTotp } from '../../crypto/index.ts';
import { sqlState } from '../../pg/unavailable.ts';
import type { Deps } from '../../deps.ts';
import { confirmStatements } from '../mfa/confirm-mfa.ts';
import { readTotpFactor } from '../mfa/factor.ts';
import { replayGuardTtlMs, TOTP_DRIFT_STEPS } from '../mfa/policy.ts';
import { openSessionAtEpoch } from '../sessions/open-session.ts';
import type { SessionTokens } from '../sessions/session-tokens.ts';
import { consumeEnrolment } from './consume-enrolment.ts';
import { enrolledSessionMethod } from './enrolled-session.ts';
import { peekEnrolment } from './peek-enrolment.ts';

export type ConfirmWithTokenOutcome =
  | { ok: true; tokens: SessionTokens; recoveryCodes: string[] }
  /** The token is malformed, unknown, expired or spent; or the password changed since the sign-in. */
  | { ok: false; reason: 'invalid' }
  | { ok: false; reason: 'no-pending' | 'already-enrolled' | 'wrong-code' };

/**
 * Cheap refusals first: the token is read (one Redis read) before the factor is (PostgreSQL, the secret box). A wrong
 * code changes nothing: the secret is the token holder's own, so guessing it wins nothing the token does not already
 * give, and the token's 10 minutes bound the tries. A right one goes to one script that spends the token and burns the
 * code's step together; only then the transaction: the credential epoch the first step was checked at, the factor
 * confirmed with its recovery codes, the session (whose insert checks the organisation's policy again). A 503 after the
 * script leaves the token spent and nothing confirmed: the user signs in again and enrols afresh.
 */
export async function confirmTotpWithToken(
  deps: Deps,
  input: { enrolmentToken: string; code: string; userAgent: string | undefined; correlationId: string },
): Promise<ConfirmWithTokenOutcome> {
  const peeked = await peekEnrolment(deps, input.enrolmentToken);
  if (peeked === undefined) return { ok: false, reason: 'invalid' };
  const factor = await readTotpFactor(deps, peeked.userId);
  if (factor === undefined) return { ok: false, reason: 'no-pending' };
  if (factor.confirmed) return { ok: false, reason: 'already-enrolled' };
  const nowMs = deps.clock.now();
  const step = await matchTotp(factor.secret, input.code, nowMs, { drift: TOTP_DRIFT_STEPS });
  if (step === undefined) return { ok: false, reason: 'wrong-code' };
  const consumed = await consumeEnrolment(deps, {
    token: input.enrolmentToken,
    totpStep: { step, ttlMs: replayGuardTtlMs(step, nowMs) },
  });
  if (!consumed.ok) return { ok: false, reason: consumed.reason === 'step-used' ? 'wrong-code' : 'invalid' };
  const record = consumed.record;
  const { statements, recoveryCodes } = await confirmStatements(deps, {
    userId: record.userId,
    ciphertext: factor.ciphertext,
    correlationId: input.correlationId,
    now: new Date(nowMs),
  });
  try {
    const tokens = await openSessionAtEpoch(deps, {
      userId: record.userId,
      email: record.email,
      organizationId: record.organizationId,
      ...enrolledSessionMethod(record, 'totp'),
      userAgent: input.userAgent,
      correlationId: input.correlationId,
      credentialEpoch: record.credentialEpoch,
      first: statements,
    });
    if (tokens === 'credentials-changed') return { ok: false, reason: 'invalid' };
    return { ok: true, tokens, recoveryCodes };
  } catch (error) {
    // mfa_confirm's refusals (migrations/0009_mfa.sql): confirmed meanwhile, or re-enrolled since the read.
    if (sqlState(error) === 'RS409') return { ok: false, reason: 'already-enrolled' };
    if (sqlState(error) === 'RS404') return { ok: false, reason: 'wrong-code' };
    throw error;
  }
}
