// The proof a passkey change (registration, removal) asks for: MFA's step-up (lib/auth/mfa/step-up.ts), i.e. the
// password (or, without one, a recent sign-in every organisation of the user accepts) and, when the account has a
// confirmed TOTP factor, a current code of it: a passkey signs in in the factor's place, so adding one must not be
// easier than passing the factor.
import type { Deps } from '../../deps.ts';
import { readTotpFactor } from '../mfa/factor.ts';
import { stepUp, type StepUpOutcome } from '../mfa/step-up.ts';

export interface PasskeyStepUpInput {
  userId: string;
  sessionId: string;
  password: string | undefined;
  /** A current TOTP code; asked for only when the account has a confirmed factor. */
  code: string | undefined;
  correlationId: string;
}

export async function passkeyStepUp(deps: Deps, input: PasskeyStepUpInput): Promise<StepUpOutcome> {
  const factor = await readTotpFactor(deps, input.userId);
  const proof = await stepUp(deps, {
    userId: input.userId,
    sessionId: input.sessionId,
    password: input.password,
    ...(factor?.confirmed === true ? { factorProof: { code: input.code ?? '' } } : {}),
    correlationId: input.correlationId,
  });
  // The factor removed between the two reads: the code proved nothing, the one answer of a wrong proof.
  return !proof.ok && proof.reason === 'no-factor' ? { ok: false, reason: 'refused' } : proof;
}
