// The checks both verifies make on a response once its challenge is consumed, in the order that gives each refusal its
// own answer: the challenge's binding, then the client data's type and origin, then the authenticator's RP ID and flags.
import type { PasskeyChallenge } from '../../keys/index.ts';
import type { Deps } from '../../deps.ts';
import {
  isOurRpId,
  readAuthenticatorData,
  type AuthenticationResponse,
  type ClientData,
  type RegistrationResponse,
} from './ceremony-response.ts';

/** Why a ceremony's response is refused before any account is looked at; each is a code of its own (docs/api.md). */
export type CeremonyRefusal =
  /** Not a response this service can read (clientDataJSON, authenticatorData), of the wrong ceremony type, or without user verification. */
  | 'response-invalid'
  /** The challenge is unknown, expired or already used: a replay lands here. */
  | 'challenge-invalid'
  /** The challenge is live but was issued for another ceremony, organisation or user. */
  | 'challenge-mismatch'
  /** Made on an origin PASSKEY_ORIGINS does not list, or scoped to another RP ID. */
  | 'origin-mismatch';

/** What the consumed challenge must say for this verify to go on. */
export type ExpectedBinding =
  | { ceremony: 'registration'; userId: string; organizationId: string | null }
  | { ceremony: 'enrolment'; userId: string; organizationId: string; enrolmentId: string }
  | { ceremony: 'authentication'; organizationId: string };

export async function checkCeremony(
  deps: Deps,
  challenge: PasskeyChallenge,
  expected: ExpectedBinding,
  clientData: ClientData,
  response: RegistrationResponse | AuthenticationResponse,
): Promise<CeremonyRefusal | undefined> {
  if (challenge.ceremony !== expected.ceremony || challenge.organizationId !== expected.organizationId) return 'challenge-mismatch';
  if (challenge.ceremony === 'registration' && expected.ceremony === 'registration' && challenge.userId !== expected.userId)
    return 'challenge-mismatch';
  if (
    challenge.ceremony === 'enrolment' &&
    expected.ceremony === 'enrolment' &&
    (challenge.userId !== expected.userId || challenge.enrolmentId !== expected.enrolmentId)
  )
    return 'challenge-mismatch';
  if (clientData.type !== (expected.ceremony === 'authentication' ? 'webauthn.get' : 'webauthn.create')) return 'response-invalid';
  const { rpId, origins } = deps.config.passkeys;
  if (!origins.includes(clientData.origin)) return 'origin-mismatch';
  const authenticator = await readAuthenticatorData(response);
  if (authenticator === undefined) return 'response-invalid';
  if (!(await isOurRpId(authenticator.rpIdHash, rpId))) return 'origin-mismatch';
  // Presence and verification (a PIN, a fingerprint): without both the passkey is not a second factor in itself.
  if (!authenticator.userPresent || !authenticator.userVerified) return 'response-invalid';
  return undefined;
}
