// The options for navigator.credentials.create(), for a registration and an enrolment alike: a discoverable credential
// with user verification, no attestation, the user's own passkeys excluded, and the challenge the caller stored.
import type { AuthenticatorTransportFuture, PublicKeyCredentialCreationOptionsJSON } from '@simplewebauthn/server';
import { base64urlDecode, uuidToBytes } from '../../crypto/index.ts';
import { PASSKEY_CHALLENGE_TTL_SECONDS } from '../../keys/index.ts';
import { dbCall } from '../../pg/unavailable.ts';
import type { Deps } from '../../deps.ts';
import { webauthnServer } from './webauthn-library.ts';

interface AccountRow {
  email: string;
  credential_id: string | null;
  transports: string[] | null;
}

/** One read (the account and its passkeys), then `issueChallenge`; undefined for a user that does not exist. */
export async function creationOptions(
  deps: Deps,
  userId: string,
  issueChallenge: () => Promise<string>,
): Promise<PublicKeyCredentialCreationOptionsJSON | undefined> {
  const rows = await dbCall('read', 'auth.passkeys.account', (signal) =>
    deps.db.query<AccountRow>(
      `SELECT u.email, p.credential_id, p.transports
         FROM users u LEFT JOIN passkeys p ON p.user_id = u.id
        WHERE u.id = $1 ORDER BY p.created_at`,
      [userId],
      { signal },
    ),
  );
  if (rows[0] === undefined) return undefined;
  const challenge = await issueChallenge();
  const { rpId, rpName } = deps.config.passkeys;
  const { generateRegistrationOptions } = await webauthnServer();
  return generateRegistrationOptions({
    rpName,
    rpID: rpId,
    userName: rows[0].email,
    // The user handle an authenticator keeps and hands back at sign-in: the account id, no personal data.
    userID: uuidToBytes(userId),
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
}
