// passkeys.authenticationOptions: for anyone on an organisation's sign-in page, the options for
// navigator.credentials.get(): no allowCredentials (discoverable credentials: nothing says whether an account exists),
// user verification required, and a challenge bound to that organisation for 5 minutes. Nothing is read in PostgreSQL.
import type { PublicKeyCredentialRequestOptionsJSON } from '@simplewebauthn/server';
import { base64urlDecode } from '../../crypto/index.ts';
import { PASSKEY_CHALLENGE_TTL_SECONDS } from '../../keys/index.ts';
import type { Deps } from '../../deps.ts';
import { issueAuthenticationChallenge } from './issue-challenge.ts';
import { webauthnServer } from './webauthn-library.ts';

export type AuthenticationOptionsOutcome =
  { ok: true; options: PublicKeyCredentialRequestOptionsJSON } | { ok: false; reason: 'rate-limited'; retryAfterSeconds: number };

/**
 * Whether the organisation exists is not checked here: an unknown one gets options like any other (its challenge can
 * sign nobody in), so the answer says nothing about which organisations exist, and a public call costs no PostgreSQL.
 */
export async function authenticationOptions(
  deps: Deps,
  input: { organizationId: string; clientIp: string | undefined; correlationId: string },
): Promise<AuthenticationOptionsOutcome> {
  const issued = await issueAuthenticationChallenge(deps, input);
  if (!issued.ok) return issued;
  const { generateAuthenticationOptions } = await webauthnServer();
  const options = await generateAuthenticationOptions({
    rpID: deps.config.passkeys.rpId,
    challenge: base64urlDecode(issued.challenge),
    timeout: PASSKEY_CHALLENGE_TTL_SECONDS * 1000,
    userVerification: 'required',
  });
  return { ok: true, options };
}
