// passkeys.registrationOptions: after the step-up, the options for navigator.credentials.create() (creation-options.ts)
// with a challenge bound to this user and session's organisation for 5 minutes.
import type { PublicKeyCredentialCreationOptionsJSON } from '@simplewebauthn/server';
import type { Deps } from '../../deps.ts';
import type { StepUpRefusal } from '../mfa/step-up.ts';
import { creationOptions } from './creation-options.ts';
import { issueRegistrationChallenge } from './issue-challenge.ts';
import { passkeyStepUp, type PasskeyStepUpInput } from './step-up.ts';

export type RegistrationOptionsOutcome = { ok: true; options: PublicKeyCredentialCreationOptionsJSON } | StepUpRefusal;

export async function registrationOptions(
  deps: Deps,
  input: PasskeyStepUpInput & { organizationId: string | undefined },
): Promise<RegistrationOptionsOutcome> {
  const proof = await passkeyStepUp(deps, input);
  if (!proof.ok) return proof;
  const options = await creationOptions(deps, input.userId, () =>
    issueRegistrationChallenge(deps, {
      userId: input.userId,
      organizationId: input.organizationId ?? null,
      correlationId: input.correlationId,
    }),
  );
  return options === undefined ? { ok: false, reason: 'unknown-user' } : { ok: true, options };
}
