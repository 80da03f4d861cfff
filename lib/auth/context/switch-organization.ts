// PUT /auth/context to another organisation by a bound session: the switch. One PostgreSQL statement
// (auth_switch_session, migrations/0021_session_switch.sql) applies the target's sign-in rules and, when they hold, moves
// the session there compared-and-set against the token's organisation, spends its refresh token for a new one and audits
// session.switched in the target; then the context points at the target and the new tokens are signed.
import { uuidv7 } from 'uuidv7';
import type { Principal } from '../claims.ts';
import type { RoleCode } from '../../keys/index.ts';
import type { Deps } from '../../deps.ts';
import { errorKind } from '../../log/logger.ts';
import { dbCall } from '../../pg/unavailable.ts';
import { issueRefreshToken } from '../tokens/refresh-token.ts';
import { sessionTokens, type SessionTokens } from '../sessions/session-tokens.ts';
import type { ActiveContext } from './context-record.ts';
import { storeContext } from './set-context.ts';

export interface SwitchInput {
  /** The organisation the presenting token is bound to (its `org` claim). */
  fromOrganizationId: string;
  organizationId: string;
  locationId: string | null;
  correlationId: string;
}

export type SwitchOutcome =
  | { ok: true; context: ActiveContext; tokens: SessionTokens }
  /** No role there (at its level, or at the outlet asked for), or it is unknown or deleted: an outsider's answer. */
  | { ok: false; reason: 'no-role' }
  | { ok: false; reason: 'location-outside' }
  | { ok: false; reason: 'tenant-suspended' }
  /** The session's sign-in does not satisfy the target (an OpenID provider it does not list). */
  | { ok: false; reason: 'sign-in-required' }
  /** The session is no longer in the token's organisation: another switch won, or the token predates one. */
  | { ok: false; reason: 'session-moved' }
  | { ok: false; reason: 'session-revoked' }
  | { ok: false; reason: 'session-ended' };

interface SwitchRow {
  outcome: 'switched' | 'no-role' | 'location-outside' | 'suspended' | 'sign-in-required' | 'moved' | 'revoked' | 'ended';
  expires_at: Date | null;
  email: string | null;
  org_role: RoleCode | null;
  location_role: RoleCode | null;
}

const REFUSALS = {
  'no-role': 'no-role',
  'location-outside': 'location-outside',
  suspended: 'tenant-suspended',
  'sign-in-required': 'sign-in-required',
  moved: 'session-moved',
  revoked: 'session-revoked',
  ended: 'session-ended',
} as const;

/**
 * After the revocation check (the statement writes, so it never runs beside it). Nothing changes on a refusal: the
 * statement writes only on 'switched'. After its commit Redis failing does not fail the switch (the refresh token the
 * caller held is spent, so the new one must reach it): the context is a hint, logged as not written.
 */
export async function switchOrganization(deps: Deps, principal: Principal, input: SwitchInput): Promise<SwitchOutcome> {
  const refresh = await issueRefreshToken();
  const nowMs = deps.clock.now();
  const rows = await dbCall('commit', 'auth.session.switch', (signal) =>
    deps.db.query<SwitchRow>(
      'SELECT * FROM auth_switch_session($1, $2, $3, $4, $5, $6, $7, $8, $9)',
      [
        principal.sessionId,
        principal.userId,
        input.fromOrganizationId,
        input.organizationId,
        input.locationId,
        refresh.tokenHash,
        new Date(nowMs).toISOString(),
        uuidv7(),
        input.correlationId,
      ],
      { signal },
    ),
  );
  const row = rows[0];
  if (row === undefined) throw new Error('session switch: the statement returned no row');
  if (row.outcome !== 'switched') return { ok: false, reason: REFUSALS[row.outcome] };
  if (row.expires_at === null || row.email === null) throw new Error('session switch: a switched row without its session');
  const expiresAtMs = new Date(row.expires_at).getTime();
  // At an outlet, the role held there wins as the hint, as for a context set within the organisation.
  const roleCode = input.locationId === null ? row.org_role : (row.location_role ?? row.org_role);
  if (roleCode === null) throw new Error('session switch: switched without a role');
  const context: ActiveContext = {
    userId: principal.userId,
    organizationId: input.organizationId,
    locationId: input.locationId,
    roleCode,
    setAtUtc: new Date(nowMs).toISOString(),
    correlationId: input.correlationId,
  };
  const ttlSeconds = Math.max(1, Math.min(deps.config.signIn.sessionTtlSeconds, Math.floor((expiresAtMs - nowMs) / 1000)));
  const [tokens] = await Promise.all([
    sessionTokens(
      deps,
      { sessionId: principal.sessionId, userId: principal.userId, email: row.email, organizationId: input.organizationId, expiresAtMs },
      refresh.token,
      nowMs,
    ),
    storeContext(deps, principal, context, ttlSeconds, nowMs).catch((error: unknown) => {
      deps.logger.warn('context_write_failed', {
        userId: principal.userId,
        organizationId: input.organizationId,
        correlationId: input.correlationId,
        errorKind: errorKind(error),
      });
    }),
  ]);
  return { ok: true, context, tokens };
}
