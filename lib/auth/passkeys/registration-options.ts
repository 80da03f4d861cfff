// passkeys.registrationOptions: after the step-up, the options for navigator.credentials.create(): a discoverable
// credential with user verification, no attestation, the user's own passkeys excluded, and a challenge bound to this
// user and session's organisation for 5 minutes.
import type { AuthenticatorTransportFuture, PublicKeyCredentialCreationOptionsJSON } from '@simplewebauthn/server';
import { base64urlDecode, uuidToBytes } from '../../crypto/index.ts';
import { PASSKEY_CHALLENGE_TTL_SECONDS } from '../../keys/index.ts';
import { dbCall } from '../../pg/unavailable.ts';
import type { Deps } from '../../deps.ts';
import type { StepUpRefusal } from '../mfa/step-up.ts';
import { issueRegistrationChallenge } from './issue-challenge.ts';
import { passkeyStepUp, type PasskeyStepUpInput } from './step-up.ts';
import { webauthnServer } from './webauthn-library.ts';

export type RegistrationOptionsOutcome = { ok: true; options: PublicKeyCredentialCreationOptionsJSON } | StepUpRefusal;

interface AccountRow {
  email: string;
  credential_id: string | null;
  transports: string[] | null;
}

export async function registrationOptions(
  deps: Deps,
  input: PasskeyStepUpInput & { organizationId: string | undefined },
): Promise<RegistrationOptionsOutcome> {
  const proof = await passkeyStepUp(deps, input);
  if (!proof.ok) return proof;
  const rows = await dbCall('read', 'auth.passkeys.account', (signal) =>
    deps.db.query<AccountRow>(
      `SELECT u.email, p.credential_id, p.transports
         FROM users u LEFT JOIN passkeys p ON p.user_id = u.id
        WHERE u.id = $1 ORDER BY p.created_at`,
      [input.userId],
      { signal },
    ),
  );
  if (rows[0] === undefined) return { ok: false, reason: 'unknown-user' };
  const challenge = await issueRegistrationChallenge(deps, {
    userId: input.userId,
    organizationId: input.organizationId ?? null,
    correlationId: input.correlationId,
  });
  const { rpId, rpName } = deps.config.passkeys;
  const { generateRegistrationOptions } = await webauthnServer();
  const options = await generateRegistrationOptions({
    rpName,
    rpID: rpId,
    userName: rows[0].email,
    // The user handle an authenticator keeps and hands back at sign-in: the account id, no personal data.
    userID: uuidToBytes(input.userId),
    // Bytes: a string would be taken as UTF-8 text, and the options' challenge would no longer be the one stored.
    challenge: base64urlDecode(challenge),
    timeout: PASSKEY_CHALLENGE_TTL_SECONDS * 1000,
    attestationType: 'none',
    // The authenticator refuses a second credential of this account on the same device.
    excludeCredentials: rows.flatMap((row) =>
      row.credential_id === null ? [] : [{ id: row.credential_id, transports: (row.transports ?? []) as AuthenticatorTransportFuture[] }],
    ),
    // Discoverable, so sign-in names no account first; verified, so the passkey is a second factor in itself.
    authenticatorSelection: { residentKey: 'required', userVerification: 'required' },
  });
  return { ok: true, options };
}
