// mfa.enrol: after the step-up (the password, or a recent sign-in without one), a fresh TOTP secret, sealed into a
// pending user_mfa row with its audit row; the secret is shown once.
import { base32Encode, randomBytes, sealSecret, TOTP_STEP_SECONDS } from '../../crypto/index.ts';
import { auditStatement } from '../../pg/audit.ts';
import { dbCall, sqlState } from '../../pg/unavailable.ts';
import type { Deps } from '../../deps.ts';
import { totpBinding } from './factor.ts';
import { stepUp, type StepUpRefusal } from './step-up.ts';

/** 160 bits, the HMAC-SHA1 block the RFC 4226 secret size recommends. */
const SECRET_BYTES = 20;
/** The name authenticator apps show beside the account. */
const ISSUER = 'runstate';

export type EnrolOutcome =
  | { ok: true; secret: string; otpauthUri: string }
  | { ok: false; reason: 'already-enrolled' }
  | { ok: false; reason: 'not-configured' }
  /** 'unknown-user' among them: a token whose user this database does not know (an external identity provider's). */
  | StepUpRefusal;

export interface EnrolInput {
  userId: string;
  sessionId: string;
  password: string | undefined;
  correlationId: string;
}

/**
 * A repeat before confirmation replaces the pending secret (the old one never confirms); a confirmed factor is
 * refused, not replaced. The step-up comes first: a stolen access token alone cannot put a factor of its own on an
 * account without one (which would lock the owner out at the next sign-in).
 */
export async function enrolMfa(deps: Deps, input: EnrolInput): Promise<EnrolOutcome> {
  if (deps.config.secretsKeys.length === 0) return { ok: false, reason: 'not-configured' };
  const proof = await stepUp(deps, input);
  if (!proof.ok) return proof;
  return startTotpEnrolment(deps, input);
}

/**
 * The enrolment itself, for a caller that proved it may enrol: after the step-up above, or holding the enrolment token a
 * sign-in policy hands out (lib/auth/sign-in-policy/enrol-totp.ts).
 */
export async function startTotpEnrolment(
  deps: Deps,
  input: { userId: string; correlationId: string },
): Promise<
  { ok: true; secret: string; otpauthUri: string } | { ok: false; reason: 'already-enrolled' | 'unknown-user' | 'not-configured' }
> {
  if (deps.config.secretsKeys.length === 0) return { ok: false, reason: 'not-configured' };
  const nowMs = deps.clock.now();
  const now = new Date(nowMs);
  const secret = base32Encode(randomBytes(SECRET_BYTES));
  const sealed = await sealSecret(deps.config.secretsKeys, secret, totpBinding(input.userId, nowMs));
  const statements = [
    {
      text: 'SELECT mfa_enrol($1, $2, $3, $4) AS email',
      params: [input.userId, sealed.ciphertext, sealed.keyId, now.toISOString()],
    },
    auditStatement(
      {
        action: 'mfa.enrolled',
        actorUserId: input.userId,
        organizationId: null,
        locationId: null,
        targetId: input.userId,
        correlationId: input.correlationId,
        details: { factor: 'totp' },
      },
      now,
    ),
  ];
  let email: unknown;
  try {
    const results = await dbCall('commit', 'auth.mfa.enrol', (signal) => deps.db.transaction(statements, { signal }));
    email = results[0]?.[0]?.email;
  } catch (error) {
    if (sqlState(error) === 'RS409') return { ok: false, reason: 'already-enrolled' };
    if (sqlState(error) === 'RS404') return { ok: false, reason: 'unknown-user' };
    throw error;
  }
  const account = typeof email === 'string' ? email : input.userId;
  const label = `${encodeURIComponent(ISSUER)}:${encodeURIComponent(account)}`;
  const query = new URLSearchParams({ secret, issuer: ISSUER, algorithm: 'SHA1', digits: '6', period: String(TOTP_STEP_SECONDS) });
  return { ok: true, secret, otpauthUri: `otpauth://totp/${label}?${query.toString()}` };
}
