// passkeys.verifyRegistration: the signed-in user's answer to their registration options. The challenge the response
// names is consumed first (one script, whatever follows), then checked against this user and session, then the
// attestation verified by @simplewebauthn/server; the public key is stored with its audit row in one transaction.
// The enrolment by token (lib/auth/sign-in-policy/confirm-passkey.ts) runs the same checks and statements.
import type { WebAuthnCredential } from '@simplewebauthn/server';
import { uuidv7 } from 'uuidv7';
import { base64urlEncode } from '../../crypto/index.ts';
import { auditStatement } from '../../pg/audit.ts';
import type { Statement } from '../../pg/db.ts';
import { dbCall, sqlState } from '../../pg/unavailable.ts';
import type { Deps } from '../../deps.ts';
import { checkCeremony, type CeremonyRefusal, type ExpectedBinding } from './ceremony-checks.ts';
import { readClientData, type RegistrationResponse } from './ceremony-response.ts';
import { consumeRegistrationChallenge } from './consume-challenge.ts';
import { webauthnServer } from './webauthn-library.ts';
import { PASSKEY_VIEW_COLUMNS, passkeyView, type PasskeyView, type PasskeyViewRow } from './passkey-view.ts';

/** What a passkey is called until its owner renames it. */
export const DEFAULT_PASSKEY_NAME = 'Passkey';

export type VerifyRegistrationOutcome =
  | { ok: true; passkey: PasskeyView }
  | { ok: false; reason: CeremonyRefusal }
  /** This credential is already registered (to this account or another: which is not said). */
  | { ok: false; reason: 'exists' };

export interface VerifyRegistrationInput {
  userId: string;
  /** The presenting session's organisation (undefined for an unbound token): the challenge must have been issued there. */
  organizationId: string | undefined;
  response: RegistrationResponse;
  name: string | undefined;
  correlationId: string;
}

/** 23505: the credential id's UNIQUE (migrations/0025_passkeys.sql). */
export const PASSKEY_EXISTS_STATE = '23505';

export async function verifyRegistration(deps: Deps, input: VerifyRegistrationInput): Promise<VerifyRegistrationOutcome> {
  const attested = await attestedCredential(deps, input.response, {
    ceremony: 'registration',
    userId: input.userId,
    organizationId: input.organizationId ?? null,
  });
  if (!attested.ok) return attested;
  const statements = registrationStatements({ ...input, credential: attested.credential, now: new Date(deps.clock.now()) });
  try {
    const results = await dbCall('commit', 'auth.passkeys.register', (signal) => deps.db.transaction(statements, { signal }));
    return { ok: true, passkey: passkeyView(results[0]![0] as unknown as PasskeyViewRow) };
  } catch (error) {
    if (sqlState(error) === PASSKEY_EXISTS_STATE) return { ok: false, reason: 'exists' };
    throw error;
  }
}

/**
 * The credential a registration response proves, for the challenge it names bound as `expected`: the challenge is
 * consumed (one script) before anything else is checked, so it answers exactly one verify whatever the answer.
 */
export async function attestedCredential(
  deps: Deps,
  response: RegistrationResponse,
  expected: Exclude<ExpectedBinding, { ceremony: 'authentication' }>,
): Promise<{ ok: true; credential: WebAuthnCredential } | { ok: false; reason: CeremonyRefusal }> {
  const clientData = readClientData(response.response.clientDataJSON);
  if (clientData === undefined) return { ok: false, reason: 'response-invalid' };
  const consumed = await consumeRegistrationChallenge(deps, clientData.challenge);
  if (consumed.kind !== 'consumed') return { ok: false, reason: 'challenge-invalid' };
  const refusal = await checkCeremony(deps, consumed.challenge, expected, clientData, response);
  if (refusal !== undefined) return { ok: false, reason: refusal };
  const { rpId, origins } = deps.config.passkeys;
  const { verifyRegistrationResponse } = await webauthnServer();
  try {
    const verification = await verifyRegistrationResponse({
      response,
      expectedChallenge: clientData.challenge,
      expectedOrigin: [...origins],
      expectedRPID: rpId,
      requireUserVerification: true,
    });
    if (verification.verified) return { ok: true, credential: verification.registrationInfo.credential };
  } catch {
    // The library's messages repeat the challenge and origin it was given: never logged, never answered.
  }
  return { ok: false, reason: 'response-invalid' };
}

/** The passkey's row (RETURNING its view) and its passkey.registered audit row. */
export function registrationStatements(input: {
  userId: string;
  credential: WebAuthnCredential;
  response: RegistrationResponse;
  name: string | undefined;
  correlationId: string;
  now: Date;
}): Statement[] {
  const passkeyId = uuidv7();
  return [
    {
      text: `INSERT INTO passkeys (id, user_id, credential_id, public_key, sign_count, transports, name, created_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING ${PASSKEY_VIEW_COLUMNS}`,
      params: [
        passkeyId,
        input.userId,
        input.credential.id,
        base64urlEncode(input.credential.publicKey),
        input.credential.counter,
        input.response.response.transports ?? [],
        input.name ?? DEFAULT_PASSKEY_NAME,
        input.now.toISOString(),
      ],
    },
    // Account-wide, like the MFA factor: no organisation. The credential id is public, but its row id is enough.
    auditStatement(
      {
        action: 'passkey.registered',
        actorUserId: input.userId,
        organizationId: null,
        locationId: null,
        targetId: input.userId,
        correlationId: input.correlationId,
        details: { passkeyId },
      },
      input.now,
    ),
  ];
}
