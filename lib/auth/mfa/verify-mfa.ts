// auth.verifyMfa: the second step of an MFA login. PostgreSQL gives the factor, the code gives a step, one script decides,
// and only then is the session opened, exactly as a password login opens it.
import { matchTotp, totpStep } from '../../crypto/index.ts';
import { mfa, readChallengeToken, TOTP_DRIFT_STEPS } from './index.ts';
import type { Deps } from '../../deps.ts';
import { openSession } from '../sessions/open-session.ts';
import type { SessionTokens } from '../sessions/session-tokens.ts';
import { readTotpFactor } from './factor.ts';

export type VerifyMfaOutcome =
  | { ok: true; tokens: SessionTokens }
  /** Unknown, expired, spent or exhausted challenge, another token's, a wrong or replayed code: one answer. */
  | { ok: false; reason: 'invalid' }
  | { ok: false; reason: 'rate-limited'; retryAfterSeconds: number };

/**
 * Fails closed: PostgreSQL or Redis unreachable is a 503 and no session. The challenge is spent before the session is
 * opened, so a PostgreSQL failure at that point costs a new sign-in, never a session without its challenge.
 */
export async function verifyMfa(
  deps: Deps,
  input: { challengeToken: string; code: string; userAgent: string | undefined; correlationId: string },
): Promise<VerifyMfaOutcome> {
  const target = readChallengeToken(input.challengeToken);
  if (target === undefined) return { ok: false, reason: 'invalid' };
  const factor = await readTotpFactor(deps, target.userId);
  const nowMs = deps.clock.now();
  // No confirmed factor: no code can match, and the attempt counts like a wrong code.
  const matchedStep =
    factor?.confirmed === true ? await matchTotp(factor.secret, input.code, nowMs, { drift: TOTP_DRIFT_STEPS }) : undefined;
  const answer = await mfa.answerChallenge(deps, {
    token: input.challengeToken,
    ...target,
    matchedStep,
    currentStep: totpStep(nowMs),
  });
  if (!answer.ok) {
    if (answer.reason === 'locked') return { ok: false, reason: 'rate-limited', retryAfterSeconds: answer.retryAfterSeconds };
    return { ok: false, reason: 'invalid' };
  }
  const tokens = await openSession(deps, {
    userId: target.userId,
    email: answer.sessionState.email,
    organizationId: answer.sessionState.organizationId,
    method: 'password+totp',
    userAgent: input.userAgent,
    correlationId: input.correlationId,
  });
  return { ok: true, tokens };
}
