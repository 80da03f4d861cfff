// auth.verifyMfa: the second step of an MFA login. The cheap refusals come first (the token's form, then Redis: the
// per-address counter beside a read of the challenge), then PostgreSQL gives the factor, the code gives a step, one
// script decides, and only then is the session opened, at the credential epoch the password step read.
import { matchTotp, totpStep } from '../../crypto/index.ts';
import { mfa, readChallengeToken, TOTP_DRIFT_STEPS } from './index.ts';
import type { Deps } from '../../deps.ts';
import { openSessionAtEpoch } from '../sessions/open-session.ts';
import type { SessionTokens } from '../sessions/session-tokens.ts';
import { readTotpFactor } from './factor.ts';
import { peekChallenge } from './peek-challenge.ts';
import { secondStepMethod } from './second-step-method.ts';

export type VerifyMfaOutcome =
  | { ok: true; tokens: SessionTokens }
  /** Unknown, expired, spent or exhausted challenge, another token's, a wrong or replayed code, a password changed
   * since the challenge was issued: one answer. */
  | { ok: false; reason: 'invalid' }
  | { ok: false; reason: 'rate-limited'; retryAfterSeconds: number };

/**
 * Fails closed: PostgreSQL or Redis unreachable is a 503 and no session (the per-address counter alone fails open). The
 * challenge is spent before the session is opened, so a PostgreSQL failure at that point costs a new sign-in, never a
 * session without its challenge.
 */
export async function verifyMfa(
  deps: Deps,
  input: { challengeToken: string; code: string; clientIp: string | undefined; userAgent: string | undefined; correlationId: string },
): Promise<VerifyMfaOutcome> {
  const target = readChallengeToken(input.challengeToken);
  if (target === undefined) return { ok: false, reason: 'invalid' };
  // The per-address counter and the challenge's read in one request: a forged or stale token ends here, with no
  // PostgreSQL round trip and no secret opened for it.
  const { byIp, challenge } = await peekChallenge(deps, {
    token: input.challengeToken,
    ...target,
    action: 'mfa-verify-ip',
    clientIp: input.clientIp,
    correlationId: input.correlationId,
  });
  if (!byIp.allowed) return { ok: false, reason: 'rate-limited', retryAfterSeconds: byIp.retryAfterSeconds };
  if (challenge === undefined) return { ok: false, reason: 'invalid' };
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
  // The epoch the answered challenge carries (not the peeked copy): a password change since refuses the session.
  const tokens = await openSessionAtEpoch(deps, {
    userId: target.userId,
    email: answer.sessionState.email,
    organizationId: answer.sessionState.organizationId,
    ...secondStepMethod(answer.sessionState),
    userAgent: input.userAgent,
    correlationId: input.correlationId,
    credentialEpoch: answer.challenge.credentialEpoch,
  });
  if (tokens === 'credentials-changed') return { ok: false, reason: 'invalid' };
  return { ok: true, tokens };
}
