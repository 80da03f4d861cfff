// signInPolicy.confirmPasskey: the passkey an enrolment token's options created is registered and opens the session the
// token stands for, in one transaction: no session without the passkey, no passkey stored without the session.
import type { Deps } from '../../deps.ts';
import { sqlState } from '../../pg/unavailable.ts';
import type { CeremonyRefusal } from '../passkeys/ceremony-checks.ts';
import type { RegistrationResponse } from '../passkeys/ceremony-response.ts';
import { attestedCredential, PASSKEY_EXISTS_STATE, registrationStatements } from '../passkeys/verify-registration.ts';
import { openSessionAtEpoch } from '../sessions/open-session.ts';
import type { SessionTokens } from '../sessions/session-tokens.ts';
import { consumeEnrolment } from './consume-enrolment.ts';
import { enrolledSessionMethod } from './enrolled-session.ts';
import { peekEnrolment } from './peek-enrolment.ts';

export type ConfirmPasskeyOutcome =
  | { ok: true; tokens: SessionTokens }
  /** The token is malformed, unknown, expired or spent; or the password changed since the sign-in. */
  | { ok: false; reason: 'invalid' }
  | { ok: false; reason: CeremonyRefusal }
  /** The credential is already registered (the token is spent: the user signs in again). */
  | { ok: false; reason: 'exists' };

/**
 * TOTP's rule (confirm-totp.ts): cheap refusals first, the token read (one Redis read) before anything else, so a forged
 * one costs no challenge and no PostgreSQL. A refused response (its challenge is consumed whatever the answer, as at
 * every verify) changes nothing else: the token stays good for fresh options, the 10 minutes bounding the tries. An
 * attested one goes to the script that spends the token (signInPolicy.consumeEnrolment, without a step), and only then
 * the transaction: the credential epoch, the passkey with passkey.registered, the session (whose insert checks the
 * organisation's policy again). A 503 after the script leaves the token spent and nothing stored: sign in again.
 */
export async function confirmPasskeyWithToken(
  deps: Deps,
  input: {
    enrolmentToken: string;
    response: RegistrationResponse;
    name: string | undefined;
    userAgent: string | undefined;
    correlationId: string;
  },
): Promise<ConfirmPasskeyOutcome> {
  const peeked = await peekEnrolment(deps, input.enrolmentToken);
  if (peeked === undefined) return { ok: false, reason: 'invalid' };
  const attested = await attestedCredential(deps, input.response, {
    ceremony: 'enrolment',
    userId: peeked.userId,
    organizationId: peeked.organizationId,
    enrolmentId: peeked.enrolmentId,
  });
  if (!attested.ok) return attested;
  const consumed = await consumeEnrolment(deps, { token: input.enrolmentToken });
  if (!consumed.ok) return { ok: false, reason: 'invalid' };
  const record = consumed.record;
  try {
    const tokens = await openSessionAtEpoch(deps, {
      userId: record.userId,
      email: record.email,
      organizationId: record.organizationId,
      ...enrolledSessionMethod(record, 'passkey'),
      userAgent: input.userAgent,
      correlationId: input.correlationId,
      credentialEpoch: record.credentialEpoch,
      first: registrationStatements({
        userId: record.userId,
        credential: attested.credential,
        response: input.response,
        name: input.name,
        correlationId: input.correlationId,
        now: new Date(deps.clock.now()),
      }),
    });
    return tokens === 'credentials-changed' ? { ok: false, reason: 'invalid' } : { ok: true, tokens };
  } catch (error) {
    if (sqlState(error) === PASSKEY_EXISTS_STATE) return { ok: false, reason: 'exists' };
    throw error;
  }
}
