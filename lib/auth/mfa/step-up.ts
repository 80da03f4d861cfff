// mfa.stepUp: what a signed-in user proves before changing their MFA (enrol, remove, replace recovery codes): the
// password (or, without one, a sign-in of the last 10 minutes that every organisation of the user accepts) and, where a
// factor exists, a current code of it. A bearer token alone proves neither, so one stolen from a live session cannot
// take the account's second factor over.
import { matchTotp } from '../../crypto/index.ts';
import { dbCall } from '../../pg/unavailable.ts';
import { throttle } from '../../runtime/throttle/index.ts';
import type { Deps } from '../../deps.ts';
import { verifyPassword } from '../password.ts';
import { burnTotpStep } from './burn-step.ts';
import { readTotpFactor, type TotpFactor } from './factor.ts';
import { TOTP_DRIFT_STEPS } from './policy.ts';
import { normalizeRecoveryCode, recoveryCodeHash } from './recovery-codes.ts';

/** How recent a session's sign-in must be to stand in for the password of an account without one (an OIDC user's). */
export const RECENT_SIGN_IN_SECONDS = 600;

/** The second-factor part of a proof: a code of the authenticator app or, for removal, an unused recovery code. */
export type FactorProof = { code: string } | { recoveryCode: string };

export interface StepUpInput {
  userId: string;
  /** The presenting token's session (`sid`): its sign-in time is what a passwordless account is judged by. */
  sessionId: string;
  password: string | undefined;
  /** Omitted for enrolment (no confirmed factor yet); otherwise the confirmed factor must accept it. */
  factorProof?: FactorProof;
  correlationId: string;
}

export type StepUpOutcome =
  /** The confirmed factor (when a factor proof was asked for), opened: removal names its row by the ciphertext. */
  | { ok: true; factor: TotpFactor | undefined }
  /** A wrong or missing password, a wrong, malformed or used code: one answer, whichever part was wrong. */
  | { ok: false; reason: 'refused' }
  /** No password on the account and the session's sign-in is older than RECENT_SIGN_IN_SECONDS (or unknown). */
  | { ok: false; reason: 'sign-in-too-old' }
  /**
   * No password on the account, and an organisation where the user holds a role does not accept the session's sign-in
   * (an OpenID provider it does not list): the factor is the account's, in every organisation, so is its proof.
   */
  | { ok: false; reason: 'sign-in-not-accepted' }
  | { ok: false; reason: 'unknown-user' }
  /** The proof of the account held, but there is no confirmed factor to prove a code of. */
  | { ok: false; reason: 'no-factor' }
  | { ok: false; reason: 'rate-limited'; retryAfterSeconds: number };

export type StepUpRefusal = Exclude<StepUpOutcome, { ok: true }>;

interface AccountRow {
  password_hash: string | null;
  signed_in_at: Date | null;
  accepted_everywhere: boolean | null;
}

/**
 * Counted first (mfa-reauth, per user, every attempt, before the KDF: failing open like the login throttles), the
 * account read beside it. The password is checked before the code, so a wrong password burns no code; a code that
 * matched is burned (mfa.burnTotpStep), so the same code cannot sign in or prove again.
 */
export async function stepUp(deps: Deps, input: StepUpInput): Promise<StepUpOutcome> {
  const nowMs = deps.clock.now();
  const [hit, rows, factor] = await Promise.all([
    throttle.hit(deps, {
      action: 'mfa-reauth',
      scope: { kind: 'user', id: input.userId },
      subject: input.userId,
      correlationId: input.correlationId,
    }),
    dbCall('read', 'auth.mfa.stepUp.account', (signal) =>
      deps.db.query<AccountRow>(
        // A session with a method was opened by a sign-in of this service (migrations/0012); an identity provider's row
        // (method NULL, inserted by logout or revoke-all) has no sign-in time to go by. An MFA change holds in every
        // organisation of the account, so the sign-in standing in for the password must be one every organisation where
        // the user holds a role accepts (auth_sign_in_accepted, migrations/0021_session_switch.sql); deleted ones are gone.
        `SELECT u.password_hash, s.created_at AS signed_in_at,
                NOT EXISTS (SELECT 1 FROM role_assignments ra JOIN organizations o ON o.id = ra.organization_id
                             WHERE ra.user_id = u.id AND o.state <> 'deleted'
                               AND NOT auth_sign_in_accepted(s.method, s.provider_id, ra.organization_id)) AS accepted_everywhere
           FROM users u
           LEFT JOIN sessions s ON s.id = $2 AND s.user_id = u.id AND s.revoked_at IS NULL AND s.method IS NOT NULL
                AND (s.expires_at IS NULL OR s.expires_at > $3)
          WHERE u.id = $1`,
        [input.userId, input.sessionId, new Date(nowMs).toISOString()],
        { signal },
      ),
    ),
    input.factorProof === undefined ? Promise.resolve(undefined) : readTotpFactor(deps, input.userId),
  ]);
  if (!hit.allowed) return { ok: false, reason: 'rate-limited', retryAfterSeconds: hit.retryAfterSeconds };
  const account = rows[0];
  if (account === undefined) return { ok: false, reason: 'unknown-user' };
  if (account.password_hash !== null) {
    if (!(await verifyPassword(input.password ?? '', account.password_hash))) return { ok: false, reason: 'refused' };
  } else {
    const signedInAtMs = account.signed_in_at === null ? undefined : new Date(account.signed_in_at).getTime();
    if (signedInAtMs === undefined || nowMs - signedInAtMs > RECENT_SIGN_IN_SECONDS * 1000) return { ok: false, reason: 'sign-in-too-old' };
    if (account.accepted_everywhere !== true) return { ok: false, reason: 'sign-in-not-accepted' };
  }
  if (input.factorProof === undefined) return { ok: true, factor: undefined };
  if (factor?.confirmed !== true) return { ok: false, reason: 'no-factor' };
  const proven = await proveFactor(deps, input.userId, factor, input.factorProof, nowMs);
  return proven ? { ok: true, factor } : { ok: false, reason: 'refused' };
}

async function proveFactor(deps: Deps, userId: string, factor: TotpFactor, proof: FactorProof, nowMs: number): Promise<boolean> {
  if ('code' in proof) {
    const step = await matchTotp(factor.secret, proof.code, nowMs, { drift: TOTP_DRIFT_STEPS });
    return step !== undefined && (await burnTotpStep(deps, { userId, step }));
  }
  const normalized = normalizeRecoveryCode(proof.recoveryCode);
  if (normalized === undefined) return false;
  const hash = await recoveryCodeHash(deps.config.indexHashKey, userId, normalized);
  const rows = await dbCall('read', 'auth.mfa.stepUp.recoveryCode', (signal) =>
    deps.db.query<{ found: boolean }>(
      'SELECT EXISTS (SELECT 1 FROM user_mfa_recovery_codes WHERE user_id = $1 AND code_hash = $2 AND used_at IS NULL) AS found',
      [userId, hash],
      { signal },
    ),
  );
  return rows[0]?.found === true;
}
