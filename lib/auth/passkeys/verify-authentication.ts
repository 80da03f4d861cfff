// passkeys.verifyAuthentication: a passkey sign-in. The cheap refusals come first: the response's form (nothing read),
// then one script that counts the address and consumes the challenge it names (a forged or replayed response ends
// there, with no PostgreSQL), the challenge's binding, origin, RP ID and flags; then one read gives the credential with
// its account's standing in the organisation, the signature is verified, and the session opens with the counter's
// advance in its transaction.
import { base64urlDecode, base64urlEncode, uuidToBytes } from '../../crypto/index.ts';
import { writeAudit } from '../../pg/audit.ts';
import { dbCall, sqlState } from '../../pg/unavailable.ts';
import type { Deps } from '../../deps.ts';
import { openSession } from '../sessions/open-session.ts';
import { canSignTokens } from '../tokens/access-token.ts';
import type { SessionTokens } from '../sessions/session-tokens.ts';
import { checkCeremony, type CeremonyRefusal } from './ceremony-checks.ts';
import { readClientData, type AuthenticationResponse } from './ceremony-response.ts';
import { consumeAuthenticationChallenge } from './consume-challenge.ts';
import { webauthnServer } from './webauthn-library.ts';

export type VerifyAuthenticationOutcome =
  | { ok: true; tokens: SessionTokens }
  | { ok: false; reason: CeremonyRefusal }
  /**
   * No such credential, a signature that does not verify, a user handle that is not the credential's account, or an
   * account with no role in the organisation (a removed member, another organisation's user): one answer.
   */
  | { ok: false; reason: 'not-accepted' }
  /** The signature counter did not go above the stored one: a cloned authenticator (audited). */
  | { ok: false; reason: 'counter-regressed' }
  /** Everything held, but the organisation is suspended: told only to someone who proved the credential. */
  | { ok: false; reason: 'tenant-suspended' }
  | { ok: false; reason: 'rate-limited'; retryAfterSeconds: number }
  | { ok: false; reason: 'not-configured' };

export interface VerifyAuthenticationInput {
  organizationId: string;
  response: AuthenticationResponse;
  clientIp: string | undefined;
  userAgent: string | undefined;
  correlationId: string;
}

interface CredentialRow {
  id: string;
  user_id: string;
  email: string;
  public_key: string;
  /** int8 comes back as text. */
  sign_count: string;
  transports: string[];
  member: boolean;
  tenant_suspended: boolean;
}

/** The SQLSTATEs of migrations/0025_passkeys.sql's passkey_record_use. */
const COUNTER_NOT_ADVANCED = 'RS412';
const PASSKEY_GONE = 'RS404';

/** Fails closed: Redis or PostgreSQL not answering is a 503 and no session; the challenge is spent either way. */
export async function verifyAuthentication(deps: Deps, input: VerifyAuthenticationInput): Promise<VerifyAuthenticationOutcome> {
  if (!canSignTokens(deps.config.auth)) return { ok: false, reason: 'not-configured' };
  const clientData = readClientData(input.response.response.clientDataJSON);
  if (clientData === undefined) return { ok: false, reason: 'response-invalid' };
  const consumed = await consumeAuthenticationChallenge(deps, { challenge: clientData.challenge, clientIp: input.clientIp });
  if (consumed.kind === 'rate-limited') return { ok: false, reason: 'rate-limited', retryAfterSeconds: consumed.retryAfterSeconds };
  if (consumed.kind === 'none') return { ok: false, reason: 'challenge-invalid' };
  const refusal = await checkCeremony(
    deps,
    consumed.challenge,
    { ceremony: 'authentication', organizationId: input.organizationId },
    clientData,
    input.response,
  );
  if (refusal !== undefined) return { ok: false, reason: refusal };
  const credential = await readCredential(deps, input.response.id, input.organizationId);
  // Nothing of the organisation's is touched for a credential whose account holds no role there.
  if (credential === undefined || !credential.member) return { ok: false, reason: 'not-accepted' };
  const userHandle = input.response.response.userHandle;
  if (userHandle !== undefined && userHandle !== base64urlEncode(uuidToBytes(credential.user_id)))
    return { ok: false, reason: 'not-accepted' };
  const storedCounter = Number(credential.sign_count);
  const { verifyAuthenticationResponse } = await webauthnServer();
  let presentedCounter: number | undefined;
  try {
    // The stored counter is not given to the library (0): it would refuse a regression before checking the signature,
    // and only a signed regression says the authenticator was cloned.
    const verification = await verifyAuthenticationResponse({
      response: input.response,
      expectedChallenge: clientData.challenge,
      expectedOrigin: [...deps.config.passkeys.origins],
      expectedRPID: deps.config.passkeys.rpId,
      credential: { id: input.response.id, publicKey: base64urlDecode(credential.public_key), counter: 0 },
      requireUserVerification: true,
    });
    presentedCounter = verification.verified ? verification.authenticationInfo.newCounter : undefined;
  } catch {
    // The library's messages repeat the challenge and origin: never logged, never answered.
    return { ok: false, reason: 'response-invalid' };
  }
  if (presentedCounter === undefined) return { ok: false, reason: 'not-accepted' };
  if (credential.tenant_suspended) return { ok: false, reason: 'tenant-suspended' };
  if (!counterAdvanced(storedCounter, presentedCounter)) return counterRegressed(deps, input, credential, storedCounter, presentedCounter);
  const nowMs = deps.clock.now();
  try {
    const tokens = await openSession(deps, {
      userId: credential.user_id,
      email: credential.email,
      organizationId: input.organizationId,
      method: 'passkey',
      userAgent: input.userAgent,
      correlationId: input.correlationId,
      // In the session's transaction: of two sign-ins with one cloned credential, only the counter committed first goes on.
      first: [{ text: 'SELECT passkey_record_use($1, $2, $3)', params: [credential.id, presentedCounter, new Date(nowMs).toISOString()] }],
    });
    return { ok: true, tokens };
  } catch (error) {
    if (sqlState(error) === COUNTER_NOT_ADVANCED) return counterRegressed(deps, input, credential, storedCounter, presentedCounter);
    if (sqlState(error) === PASSKEY_GONE) return { ok: false, reason: 'not-accepted' };
    throw error;
  }
}

/** WebAuthn §6.1.1: an authenticator that keeps no counter sends 0 every time; one that does must go above the last. */
function counterAdvanced(stored: number, presented: number): boolean {
  return presented > stored || (presented === 0 && stored === 0);
}

/**
 * One row for the credential: its account, key and counter, whether the account holds a role in the organisation (not
 * deleted), and whether the organisation is suspended; undefined for an unknown credential.
 */
async function readCredential(deps: Deps, credentialId: string, organizationId: string): Promise<CredentialRow | undefined> {
  const rows = await dbCall('read', 'auth.passkeys.credential', (signal) =>
    deps.db.query<CredentialRow>(
      `SELECT p.id, p.user_id, u.email, p.public_key, p.sign_count, p.transports,
              EXISTS (SELECT 1 FROM role_assignments r JOIN organizations o ON o.id = r.organization_id
                       WHERE r.user_id = p.user_id AND r.organization_id = $2 AND o.state <> 'deleted') AS member,
              EXISTS (SELECT 1 FROM organizations o WHERE o.id = $2 AND o.state = 'suspended') AS tenant_suspended
         FROM passkeys p JOIN users u ON u.id = p.user_id
        WHERE p.credential_id = $1`,
      [credentialId, organizationId],
      { signal },
    ),
  );
  return rows[0];
}

/** A signed assertion whose counter went backwards: the credential's private key exists twice. Audited, logged, refused. */
async function counterRegressed(
  deps: Deps,
  input: VerifyAuthenticationInput,
  credential: CredentialRow,
  storedCounter: number,
  presentedCounter: number,
): Promise<VerifyAuthenticationOutcome> {
  deps.logger.warn('passkey_counter_regressed', {
    userId: credential.user_id,
    passkeyId: credential.id,
    correlationId: input.correlationId,
  });
  await dbCall('commit', 'auth.passkeys.counterRegressed', (signal) =>
    writeAudit(
      deps.db,
      {
        action: 'passkey.counter_regressed',
        actorUserId: credential.user_id,
        organizationId: input.organizationId,
        locationId: null,
        targetId: credential.user_id,
        correlationId: input.correlationId,
        details: { passkeyId: credential.id, storedCounter, presentedCounter },
      },
      new Date(deps.clock.now()),
      { signal },
    ),
  );
  return { ok: false, reason: 'counter-regressed' };
}
