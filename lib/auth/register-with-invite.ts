// auth.registerWithInvite: a newcomer with no account joins through an invitation that reached their mailbox: the
// account is created with the invite's email and their password, the role granted once, and a session opened. Counted
// by sign-in's throttles; every refusal that can be decided before the invite is consumed is decided first.
import { dbCall } from '../pg/unavailable.ts';
import { waitOn, type Deps } from '../deps.ts';
import { consumeForRegistration, findRegistrationTarget, finishRegistration } from '../runtime/invites/register-invite.ts';
import type { InviteRecord } from '../runtime/invites/invite-record.ts';
import type { InviteReceipt } from '../runtime/invites/receipt.ts';
import { throttle } from '../runtime/throttle/index.ts';
import { checkPasswordBreach } from './breached-password/check-password.ts';
import { hashPassword, verifyPassword } from './password.ts';
import { openSessionAtEpoch } from './sessions/open-session.ts';
import type { SessionTokens } from './sessions/session-tokens.ts';
import { canSignTokens } from './tokens/access-token.ts';

export interface RegisterInput {
  token: string;
  password: string;
  clientIp: string | undefined;
  userAgent: string | undefined;
  correlationId: string;
}

export type RegisterOutcome =
  | { ok: true; tokens: SessionTokens }
  /** Unknown, expired, cancelled, replaced or spent — or spent by a registration whose password this is not. */
  | { ok: false; reason: 'invalid' }
  /** The token was shown to the admin who created the invite (delivery 'none'): it may accept, never register. */
  | { ok: false; reason: 'not-delivered' }
  /** The email already has an account: sign in, then accept; the invite stays. */
  | { ok: false; reason: 'account-exists' }
  | { ok: false; reason: 'tenant-suspended' }
  | { ok: false; reason: 'rate-limited'; retryAfterSeconds: number }
  | { ok: false; reason: 'not-configured' }
  /** The new account's password is breached, or (fail-closed) could not be checked: the invite stays, nothing is written. */
  | { ok: false; reason: 'password-breached' | 'breach-check-unavailable' };

interface AccountRow {
  user_id: string | null;
  password_hash: string | null;
  /** users.credential_epoch as read beside the hash: a repeat's session opens only while it still holds. */
  credential_epoch: number;
  /** A confirmed TOTP factor: its sign-in asks for a code, which this route does not take. */
  mfa_enrolled: boolean;
  /** Still a member of the invite's organisation: a member removed since is not signed back in by a repeat. */
  has_role: boolean;
  suspended: boolean;
  /** Deleted (or unknown): gone, as a cancelled invite is. */
  gone: boolean;
}

const NO_ACCOUNT: AccountRow = {
  user_id: null,
  password_hash: null,
  credential_epoch: 0,
  mfa_enrolled: false,
  has_role: false,
  suspended: false,
  gone: true,
};
/** users.credential_epoch of a row just inserted (migrations/0015_credential_epoch.sql: DEFAULT 0, moved only by an UPDATE). */
const NEW_ACCOUNT_EPOCH = 0;

export async function registerWithInvite(deps: Deps, input: RegisterInput): Promise<RegisterOutcome> {
  if (!canSignTokens(deps.config.auth)) return { ok: false, reason: 'not-configured' };
  const [byIp, target] = await Promise.all([
    // Per address as every per-IP limiter counts it (ipSubject: an IPv6 caller per /64).
    throttle.hitIp(deps, { action: 'login-ip', clientIp: input.clientIp, correlationId: input.correlationId }),
    findRegistrationTarget(deps, input.token),
  ]);
  if (!byIp.allowed) return { ok: false, reason: 'rate-limited', retryAfterSeconds: byIp.retryAfterSeconds };
  if (target.kind === 'invalid') return { ok: false, reason: 'invalid' };
  // Refused before any lookup: an admin who saw the token must never choose a password for someone else's address.
  if (target.kind === 'open' && target.record.delivery !== 'email') return { ok: false, reason: 'not-delivered' };
  const { record } = target;
  const [byAccount, account] = await Promise.all([
    // As a login counts it: locked per (organisation, email, address), the email's count only a wait (lib/auth/sign-in.ts).
    throttle.hitSignIn(deps, {
      organizationId: record.organizationId,
      email: record.normalizedEmail,
      clientIp: input.clientIp,
      correlationId: input.correlationId,
    }),
    readAccount(deps, record),
  ]);
  if (!byAccount.allowed) return { ok: false, reason: 'rate-limited', retryAfterSeconds: byAccount.retryAfterSeconds };
  if (account.gone) return { ok: false, reason: 'invalid' };
  await waitOn(deps.clock, byAccount.delayMs);
  if (account.suspended) return { ok: false, reason: 'tenant-suspended' };

  if (target.kind === 'registered' && account.user_id === target.userId) {
    // The account exists already: this is a repeat (a lost reply), and only the password it was created with signs in.
    return signInRegistered(deps, input, record, target.userId, account);
  }
  if (account.user_id !== null) return { ok: false, reason: 'account-exists' };

  // Checked and derived before the invite is consumed (side by side: one waits on the network, the other on the CPU),
  // so a refused password, or a call that dies in the KDF, spends nothing.
  const [breach, passwordHash] = await Promise.all([
    checkPasswordBreach(deps, { password: input.password, correlationId: input.correlationId }),
    hashPassword(input.password),
  ]);
  if (!breach.ok) return breach;
  const consumed = await consumeForRegistration(deps, { token: input.token, correlationId: input.correlationId });
  if (!consumed.ok) return consumed;
  return finish(deps, input, consumed.receipt, consumed.record, passwordHash);
}

async function finish(
  deps: Deps,
  input: RegisterInput,
  receipt: InviteReceipt,
  record: InviteRecord,
  passwordHash: string,
): Promise<RegisterOutcome> {
  const recorded = await finishRegistration(deps, { receipt, record, passwordHash });
  // The account this request created: its first epoch (a password change since, however quick, opens nothing).
  if (recorded.ok) return open(deps, input, record, receipt.actorUserId, NEW_ACCOUNT_EPOCH);
  if (recorded.reason === 'email-belongs-to-another-user') return { ok: false, reason: 'account-exists' };
  // Suspended after step 2's read (the grant checks the state under the organisation's lock): the invite was given back.
  if (recorded.reason === 'tenant-suspended') return { ok: false, reason: 'tenant-suspended' };
  if (recorded.reason === 'finished' && recorded.finished.outcome === 'accepted' && recorded.finished.actorUserId === receipt.actorUserId) {
    // A racing registration with the same token created the account first: its password decides.
    const stored = await readAccount(deps, record);
    return signInRegistered(deps, input, record, receipt.actorUserId, stored.user_id === receipt.actorUserId ? stored : NO_ACCOUNT);
  }
  // Cancelled first, a role conflict the invite was given back for, or void (its creator no longer an admin there, its
  // organisation deleted: cancelled now).
  return { ok: false, reason: 'invalid' };
}

/**
 * A repeat within the receipt's hour is a sign-in by password, and held to what POST /auth/login holds one to: an
 * account that has confirmed a TOTP factor since is sent to sign in (where the code is asked for), never given a
 * session for the password alone; an account no longer a member of the organisation (removed since) is refused, as
 * sign-in refuses it; and the session opens only at the credential epoch read beside the hash.
 */
async function signInRegistered(
  deps: Deps,
  input: RegisterInput,
  record: InviteRecord,
  userId: string,
  account: AccountRow,
): Promise<RegisterOutcome> {
  if (!(await verifyPassword(input.password, account.password_hash))) return { ok: false, reason: 'invalid' };
  if (account.mfa_enrolled) return { ok: false, reason: 'account-exists' };
  if (!account.has_role) return { ok: false, reason: 'invalid' };
  return open(deps, input, record, userId, account.credential_epoch);
}

async function open(
  deps: Deps,
  input: RegisterInput,
  record: InviteRecord,
  userId: string,
  credentialEpoch: number,
): Promise<RegisterOutcome> {
  const tokens = await openSessionAtEpoch(deps, {
    userId,
    email: record.normalizedEmail,
    organizationId: record.organizationId,
    method: 'password',
    userAgent: input.userAgent,
    correlationId: input.correlationId,
    credentialEpoch,
  });
  return tokens === 'credentials-changed' ? { ok: false, reason: 'invalid' } : { ok: true, tokens };
}

/**
 * The account holding the invite's email, if any, what a repeat's sign-in checks, and whether its organisation is
 * suspended or gone (deleted): one read. The grant checks the state again under the organisation's lock
 * (migrations/0023_invite_grant_guards.sql); this read refuses before the KDF and before anything is consumed, and
 * keeps a repeat from signing in to a deleted organisation.
 */
async function readAccount(deps: Deps, record: InviteRecord): Promise<AccountRow> {
  const rows = await dbCall('read', 'auth.register.account', (signal) =>
    deps.db.query<AccountRow>(
      `SELECT u.id AS user_id, u.password_hash, coalesce(u.credential_epoch, 0) AS credential_epoch,
              EXISTS (SELECT 1 FROM user_mfa m WHERE m.user_id = u.id AND m.confirmed_at IS NOT NULL) AS mfa_enrolled,
              EXISTS (SELECT 1 FROM role_assignments r WHERE r.user_id = u.id AND r.organization_id = $2) AS has_role,
              EXISTS (SELECT 1 FROM organizations o WHERE o.id = $2 AND o.state = 'suspended') AS suspended,
              NOT EXISTS (SELECT 1 FROM organizations o WHERE o.id = $2 AND o.state <> 'deleted') AS gone
         FROM (SELECT 1) AS one LEFT JOIN users u ON u.email = $1`,
      [record.normalizedEmail, record.organizationId],
      { signal },
    ),
  );
  return rows[0] ?? NO_ACCOUNT;
}
