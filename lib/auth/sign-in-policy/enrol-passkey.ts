// signInPolicy.enrolPasskey: the holder of an enrolment token asks for passkey registration options; the token stands in
// for the step-up, as for TOTP (enrol-totp.ts), and stays good until a verify spends it. The challenge is an
// 'enrolment' ceremony's, bound to the token's record: the bearer registration and the sign-in refuse it, and its verify
// refuses theirs.
import type { PublicKeyCredentialCreationOptionsJSON } from '@simplewebauthn/server';
import type { Deps } from '../../deps.ts';
import { creationOptions } from '../passkeys/creation-options.ts';
import { issueEnrolmentChallenge } from '../passkeys/issue-challenge.ts';
import { peekEnrolment } from './peek-enrolment.ts';
import { readSignInPolicy } from './read-policy.ts';

export type EnrolPasskeyOutcome =
  | { ok: true; options: PublicKeyCredentialCreationOptionsJSON }
  /** The token is malformed, unknown, expired or spent; or its user or organisation is gone. */
  | { ok: false; reason: 'invalid' }
  /** The organisation's policy does not allow passkeys: the session could never open with one, so no ceremony starts. */
  | { ok: false; reason: 'method-not-allowed' };

export async function passkeyEnrolmentOptions(
  deps: Deps,
  input: { enrolmentToken: string; correlationId: string },
): Promise<EnrolPasskeyOutcome> {
  const record = await peekEnrolment(deps, input.enrolmentToken);
  if (record === undefined) return { ok: false, reason: 'invalid' };
  const policy = await readSignInPolicy(deps, record.organizationId);
  if (policy === undefined) return { ok: false, reason: 'invalid' };
  if (!policy.allowedMethods.includes('passkey')) return { ok: false, reason: 'method-not-allowed' };
  const options = await creationOptions(deps, record.userId, () =>
    issueEnrolmentChallenge(deps, {
      userId: record.userId,
      organizationId: record.organizationId,
      enrolmentId: record.enrolmentId,
      correlationId: input.correlationId,
    }),
  );
  return options === undefined ? { ok: false, reason: 'invalid' } : { ok: true, options };
}
