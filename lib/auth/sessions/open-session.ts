// Opens a session in PostgreSQL (the truth): the session row, its first refresh token's hash and the audit row, in one
// transaction; only then are tokens signed.
import { uuidv7 } from 'uuidv7';
import { auditStatement, type AuditEvent } from '../../pg/audit.ts';
import type { Statement } from '../../pg/db.ts';
import { errors } from '../../http/app-error.ts';
import { dbCall, sqlState } from '../../pg/unavailable.ts';
import type { Deps } from '../../deps.ts';
import { issueRefreshToken } from '../tokens/refresh-token.ts';
import { sessionTokens, type SessionTokens } from './session-tokens.ts';
import { sessionUserAgent } from './user-agent.ts';

/**
 * How a session was opened; `sessions.method` holds the same words (migrations/0012, 0021). `oidc+totp`: an OpenID
 * provider's sign-in finished with this deployment's TOTP factor (no password was typed). `passkey`: a WebAuthn assertion
 * with user verification (migrations/0025_passkeys.sql), a second factor in itself.
 */
export const SIGN_IN_METHODS = ['password', 'password+totp', 'oidc', 'oidc+totp', 'dev-link', 'passkey'] as const;
export type SignInMethod = (typeof SIGN_IN_METHODS)[number];

/** The SQLSTATE of migrations/0013_members.sql's sessions_refuse_suspended_organization. */
const SUSPENDED_ORGANIZATION = 'RS403';
/** The SQLSTATE of the same trigger for a deleted organisation (migrations/0022_organization_deletion.sql). */
const DELETED_ORGANIZATION = 'RS404';
/** The SQLSTATEs of migrations/0026_sign_in_policy.sql's session trigger: the method is not allowed; a second factor is required. */
const METHOD_NOT_ALLOWED = 'RS406';
const MFA_REQUIRED = 'RS407';
/** The SQLSTATE of migrations/0015_credential_epoch.sql's auth_require_credential_epoch. */
const CREDENTIALS_CHANGED = 'RS410';

export interface OpenSessionInput {
  userId: string;
  email: string;
  organizationId: string;
  /** How the user proved who they are, for the audit row and the session list. */
  method: SignInMethod;
  /**
   * The OpenID provider of an `oidc` or `oidc+totp` sign-in (its id in OIDC_PROVIDERS): which organisations accept the
   * session (a switch, the MFA step-up) depends on it (migrations/0021_session_switch.sql's auth_sign_in_accepted).
   */
  providerId?: string;
  /** The client's User-Agent header as received; stored cleaned and bounded (sessionUserAgent). */
  userAgent: string | undefined;
  correlationId: string;
  /** Audit events of the sign-in itself (auth.oidc_signed_in), committed in the same transaction as the session. */
  alsoAudit?: readonly AuditEvent[];
  /** Statements of the sign-in itself run first in that transaction (a recovery code spent): one that raises opens no session. */
  first?: readonly Statement[];
}

export function openSession(deps: Deps, input: OpenSessionInput): Promise<SessionTokens> {
  return open(deps, input, undefined) as Promise<SessionTokens>;
}

/**
 * A session for a sign-in that checked the password at `credentialEpoch` (users.credential_epoch): the same transaction,
 * led by auth_require_credential_epoch, so a password changed since (a reset between the password step and now, the MFA
 * step included) opens nothing: 'credentials-changed'. No extra round trip: the guard is one more statement of it.
 */
export async function openSessionAtEpoch(
  deps: Deps,
  input: OpenSessionInput & { credentialEpoch: number },
): Promise<SessionTokens | 'credentials-changed'> {
  return open(deps, input, input.credentialEpoch);
}

async function open(
  deps: Deps,
  input: OpenSessionInput,
  credentialEpoch: number | undefined,
): Promise<SessionTokens | 'credentials-changed'> {
  const nowMs = deps.clock.now();
  const now = new Date(nowMs);
  const sessionId = uuidv7();
  const expiresAtMs = nowMs + deps.config.signIn.sessionTtlSeconds * 1000;
  const refresh = await issueRefreshToken();
  const statements = [
    ...(credentialEpoch === undefined
      ? []
      : [{ text: 'SELECT auth_require_credential_epoch($1, $2)', params: [input.userId, credentialEpoch] }]),
    ...(input.first ?? []),
    {
      // last_seen_at starts at the opening: the idle timeout counts from there until the first refresh.
      text: `INSERT INTO sessions (id, user_id, organization_id, created_at, expires_at, last_seen_at, user_agent, method, provider_id)
             VALUES ($1, $2, $3, $4, $5, $4, $6, $7, $8)`,
      params: [
        sessionId,
        input.userId,
        input.organizationId,
        now.toISOString(),
        new Date(expiresAtMs).toISOString(),
        sessionUserAgent(input.userAgent),
        input.method,
        input.providerId ?? null,
      ],
    },
    {
      text: 'INSERT INTO refresh_tokens (token_hash, session_id, created_at) VALUES ($1, $2, $3)',
      params: [refresh.tokenHash, sessionId, now.toISOString()],
    },
    // The audit row names the user, never the session id.
    auditStatement(
      {
        action: 'session.created',
        actorUserId: input.userId,
        organizationId: input.organizationId,
        locationId: null,
        targetId: input.userId,
        correlationId: input.correlationId,
        details: { method: input.method },
      },
      now,
    ),
    ...(input.alsoAudit ?? []).map((event) => auditStatement(event, now)),
  ];
  const opened = await dbCall('commit', 'auth.session.open', (signal) => deps.db.transaction(statements, { signal })).catch(
    (error: unknown) => {
      if (credentialEpoch !== undefined && sqlState(error) === CREDENTIALS_CHANGED) return 'credentials-changed' as const;
      // The sessions insert refuses a suspended organisation (migrations/0013_members.sql): the same 403 whichever way
      // the user signed in, also when the suspension landed after the sign-in's own read of the state.
      if (sqlState(error) === SUSPENDED_ORGANIZATION) throw errors.TENANT_SUSPENDED();
      // The organisation's sign-in policy, checked by the insert itself: also a policy changed after the sign-in's read.
      if (sqlState(error) === METHOD_NOT_ALLOWED) throw errors.SIGN_IN_METHOD_NOT_ALLOWED();
      if (sqlState(error) === MFA_REQUIRED) throw errors.MFA_ENROLMENT_REQUIRED();
      // A deleted organisation is an unknown one: sign-in's answer for that (docs/design/tenants.md#deletion).
      throw sqlState(error) === DELETED_ORGANIZATION ? errors.INVALID_CREDENTIALS() : error;
    },
  );
  if (opened === 'credentials-changed') return opened;
  return sessionTokens(
    deps,
    { sessionId, userId: input.userId, email: input.email, organizationId: input.organizationId, expiresAtMs },
    refresh.token,
    nowMs,
  );
}
