// auth.signIn: email and password within an organisation. The throttles count first (fail open), the KDF runs for
// known and unknown users alike, and every refusal of the credentials is one answer.
import { normalizeEmail } from '../keys/index.ts';
import { dbCall } from '../pg/unavailable.ts';
import { throttle } from '../runtime/throttle/index.ts';
import { waitOn, type Deps } from '../deps.ts';
import { verifyPassword } from './password.ts';
import { openSessionAtEpoch } from './sessions/open-session.ts';
import { policyFromRow, policyVerdict } from './sign-in-policy/policy.ts';
import type { SessionTokens } from './sessions/session-tokens.ts';
import { canSignTokens } from './tokens/access-token.ts';

export interface SignInInput {
  organizationId: string;
  email: string;
  password: string;
  /** The caller's address as the runtime's edge reports it, counted as ipSubject gives it (lib/runtime/throttle/ip-subject.ts). */
  clientIp: string | undefined;
  /** The client's User-Agent header, recorded with the session. */
  userAgent: string | undefined;
  correlationId: string;
}

/** A password-verified user, before a session exists (the MFA step continues from here). */
export interface VerifiedUser {
  userId: string;
  email: string;
  organizationId: string;
  mfaEnrolled: boolean;
  /** The credential epoch the password was checked at (migrations/0015): the MFA challenge carries it to the session. */
  credentialEpoch: number;
}

export type SignInOutcome =
  | { ok: true; kind: 'signed-in'; tokens: SessionTokens }
  | { ok: true; kind: 'mfa-required'; user: VerifiedUser }
  /** The organisation requires a second factor and the user has none: the next step enrols one (an enrolment token). */
  | { ok: true; kind: 'mfa-enrolment-required'; user: VerifiedUser }
  /** Unknown email, no role in the organisation (or it is deleted), no password set or a wrong one: one answer, similar time. */
  | { ok: false; reason: 'invalid-credentials' }
  | { ok: false; reason: 'rate-limited'; retryAfterSeconds: number }
  /** Right credentials, but the organisation is suspended: told only to someone who proved the password. */
  | { ok: false; reason: 'tenant-suspended' }
  /** Right credentials, but the organisation's sign-in policy does not allow a password: told only to its holder. */
  | { ok: false; reason: 'method-not-allowed' }
  | { ok: false; reason: 'not-configured' };

interface UserRow {
  id: string;
  email: string;
  password_hash: string | null;
  credential_epoch: number;
  mfa_enrolled: boolean;
  tenant_suspended: boolean;
  sign_in_require_mfa: boolean | null;
  sign_in_methods: string[] | null;
}

export async function signIn(deps: Deps, input: SignInInput): Promise<SignInOutcome> {
  if (!canSignTokens(deps.config.auth)) return { ok: false, reason: 'not-configured' };
  const email = normalizeEmail(input.email);
  // Counted before the KDF, so a throttled caller costs no derivation; the lookup runs beside the counters. The lock is
  // per (organisation, email, address); the email's own count only sets a wait, so a stranger's guesses never refuse
  // the person's right password from their own address (docs/design/sign-in.md#login-throttles).
  const [byAccount, byIp, rows] = await Promise.all([
    throttle.hitSignIn(deps, {
      organizationId: input.organizationId,
      email,
      clientIp: input.clientIp,
      correlationId: input.correlationId,
    }),
    throttle.hitIp(deps, { action: 'login-ip', clientIp: input.clientIp, correlationId: input.correlationId }),
    dbCall('read', 'auth.signIn.user', (signal) =>
      deps.db.query<UserRow>(
        `SELECT u.id, u.email, u.password_hash, u.credential_epoch, EXISTS (
                  SELECT 1 FROM user_mfa m WHERE m.user_id = u.id AND m.confirmed_at IS NOT NULL) AS mfa_enrolled,
                EXISTS (SELECT 1 FROM organizations o WHERE o.id = $2 AND o.state = 'suspended') AS tenant_suspended,
                org.sign_in_require_mfa, org.sign_in_methods
           FROM users u
           LEFT JOIN organizations org ON org.id = $2
          WHERE u.email = $1
            AND EXISTS (SELECT 1 FROM role_assignments r WHERE r.user_id = u.id AND r.organization_id = $2)
            AND NOT EXISTS (SELECT 1 FROM organizations o WHERE o.id = $2 AND o.state = 'deleted')`,
        [email, input.organizationId],
        { signal },
      ),
    ),
  ]);
  const refusal = [byAccount, byIp].find((outcome) => !outcome.allowed);
  if (refusal !== undefined && !refusal.allowed) return { ok: false, reason: 'rate-limited', retryAfterSeconds: refusal.retryAfterSeconds };
  // Past the email's allowance, a timer before the derivation (bounded by SIGN_IN_DELAY.maxMs); no CPU while it runs.
  if (byAccount.allowed) await waitOn(deps.clock, byAccount.delayMs);
  const user = rows[0];
  // verifyPassword derives against a decoy when there is no hash, so an unknown user takes as long as a wrong password.
  const matches = await verifyPassword(input.password, user?.password_hash);
  if (user === undefined || !matches) return { ok: false, reason: 'invalid-credentials' };
  // Before any challenge or session: a suspended organisation signs nobody in (the session insert refuses it too, for a
  // suspension landing after this read; docs/design/tenants.md#suspension).
  if (user.tenant_suspended) return { ok: false, reason: 'tenant-suspended' };
  // The organisation's policy rides in the same read (docs/design/sign-in-policy.md); the session's insert checks it
  // again, so a policy changed after this read still holds.
  const verdict = policyVerdict(policyFromRow(user), 'password', user.mfa_enrolled);
  if (verdict === 'method-not-allowed') return { ok: false, reason: 'method-not-allowed' };
  const verified: VerifiedUser = {
    userId: user.id,
    email: user.email,
    organizationId: input.organizationId,
    mfaEnrolled: user.mfa_enrolled,
    credentialEpoch: user.credential_epoch,
  };
  if (verified.mfaEnrolled) return { ok: true, kind: 'mfa-required', user: verified };
  if (verdict === 'mfa-enrolment-required') return { ok: true, kind: 'mfa-enrolment-required', user: verified };
  // The password was checked at this epoch: a reset committed since (between the read and here) opens no session.
  const tokens = await openSessionAtEpoch(deps, {
    userId: user.id,
    email: user.email,
    organizationId: input.organizationId,
    method: 'password',
    userAgent: input.userAgent,
    correlationId: input.correlationId,
    credentialEpoch: user.credential_epoch,
  });
  if (tokens === 'credentials-changed') return { ok: false, reason: 'invalid-credentials' };
  return { ok: true, kind: 'signed-in', tokens };
}
