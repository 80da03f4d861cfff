// signInPolicy.enrolTotp: the holder of an enrolment token starts a TOTP enrolment; the token stands in for the
// step-up (it was given for a first step that proved the account), and stays good until the factor is confirmed.
import type { Deps } from '../../deps.ts';
import { startTotpEnrolment } from '../mfa/enrol-mfa.ts';
import { peekEnrolment } from './peek-enrolment.ts';

export type EnrolWithTokenOutcome =
  { ok: true; secret: string; otpauthUri: string } | { ok: false; reason: 'invalid' | 'already-enrolled' | 'not-configured' };

export async function enrolTotpWithToken(
  deps: Deps,
  input: { enrolmentToken: string; correlationId: string },
): Promise<EnrolWithTokenOutcome> {
  const record = await peekEnrolment(deps, input.enrolmentToken);
  if (record === undefined) return { ok: false, reason: 'invalid' };
  const outcome = await startTotpEnrolment(deps, { userId: record.userId, correlationId: input.correlationId });
  // A user deleted since the sign-in is a token that no longer stands for anyone.
  if (!outcome.ok) return { ok: false, reason: outcome.reason === 'unknown-user' ? 'invalid' : outcome.reason };
  return outcome;
}
