// PUT /auth/context within the session's organisation (or by an unbound token): the role is checked in PostgreSQL
// (beside the revocation check), then the context is stored with the session's remaining life as its TTL, and listed in
// the user's index of contexts in the same script. A bound session changing organisation is a switch (switch-organization.ts).
import type { Authentication } from '../authentication.ts';
import type { RoleCode } from '../../keys/index.ts';
import type { Deps } from '../../deps.ts';
import { dbCall } from '../../pg/unavailable.ts';
import { defineScript, encodeJson, runScript } from '../../redis/index.ts';
import { activeContextSchema, contextKey, type ActiveContext } from './context-record.ts';

/**
 * KEYS[1] the session's context (activeContext), KEYS[2] the user's index of contexts (activeContextIndex); one user, one
 * hash tag, one slot.
 * ARGV[1] the context (JSON), ARGV[2] its TTL in seconds, ARGV[3] the session id, ARGV[4] now (unix seconds)
 * Stores the context and lists its session, scored by when the context expires, pruning members already past theirs;
 * the index lives at least as long as this context. Run twice, it leaves the same state.
 */
export const SET_ACTIVE_CONTEXT = defineScript({
  name: 'context.set',
  keys: ['context', 'index'],
  args: ['context', 'ttlSeconds', 'sessionId', 'now'],
  source: `
local context_key = KEYS[1]
local index_key = KEYS[2]
local context = ARGV[1]
local ttl_seconds = tonumber(ARGV[2])
local session_id = ARGV[3]
local now = tonumber(ARGV[4])
redis.call('SET', context_key, context, 'EX', ttl_seconds)
redis.call('ZREMRANGEBYSCORE', index_key, '-inf', now)
redis.call('ZADD', index_key, now + ttl_seconds, session_id)
if redis.call('TTL', index_key) < ttl_seconds then
  redis.call('EXPIRE', index_key, ttl_seconds)
end
return 1
`,
});

export interface SetContextInput {
  organizationId: string;
  locationId: string | null;
  correlationId: string;
}

export type SetContextOutcome =
  | { ok: true; context: ActiveContext; ttlSeconds: number }
  /** No role in the organisation at its level, nor at the location asked for. */
  | { ok: false; reason: 'no-role' }
  /** A role there, but the organisation is suspended (docs/design/tenants.md#suspension). */
  | { ok: false; reason: 'tenant-suspended' }
  | { ok: false; reason: 'location-outside' }
  /**
   * A bound token whose session row is no longer in the organisation it names: a switch moved the session since the
   * token was signed (the tokens that switch answered act there now).
   */
  | { ok: false; reason: 'session-moved' }
  /** PostgreSQL holds the session as revoked (its denylist entry may be lost and not yet repaired), or it has ended. */
  | { ok: false; reason: 'session-revoked' }
  | { ok: false; reason: 'session-ended' };

interface ScopeRow {
  org_role: RoleCode | null;
  location_role: RoleCode | null;
  location_ok: boolean;
  tenant_suspended: boolean;
  session_expires_at: Date | null;
  session_organization_id: string | null;
  session_revoked: boolean;
}

export async function setActiveContext(deps: Deps, auth: Authentication, input: SetContextInput): Promise<SetContextOutcome> {
  // A read only, so it runs beside the revocation check (docs/design/revocation.md#reads-beside-the-revocation-check).
  const scope = readScope(deps, { userId: auth.claimedUserId, sessionId: auth.claimedSessionId, ...input });
  scope.catch(() => undefined);
  const principal = await auth.principal();
  const row = await scope;
  if (row.session_revoked) return { ok: false, reason: 'session-revoked' };
  // A bound token acts only while its session is where it says (lib/auth/org-access.ts holds the same for /orgs routes).
  if (auth.claimedOrganizationId !== undefined && row.session_organization_id !== auth.claimedOrganizationId) {
    return { ok: false, reason: 'session-moved' };
  }
  if (!row.location_ok) return { ok: false, reason: 'location-outside' };
  // At an outlet, the role held there wins over the organisation-wide one as the hint: it is the narrower scope.
  const roleCode = input.locationId === null ? row.org_role : (row.location_role ?? row.org_role);
  if (roleCode === null) return { ok: false, reason: 'no-role' };
  // Told only to a member: an outsider gets no-role above, whatever the state.
  if (row.tenant_suspended) return { ok: false, reason: 'tenant-suspended' };

  const nowMs = deps.clock.now();
  // Sign-in's own sessions end at sessions.expires_at; a session of an external identity provider has no end here, so
  // the presenting token's end stands in for it (a later token of the session sets the context again).
  const endMs = row.session_expires_at !== null ? new Date(row.session_expires_at).getTime() : principal.expiresAt * 1000;
  const ttlSeconds = Math.min(deps.config.signIn.sessionTtlSeconds, Math.floor((endMs - nowMs) / 1000));
  if (ttlSeconds < 1) return { ok: false, reason: 'session-ended' };

  const context: ActiveContext = {
    userId: principal.userId,
    organizationId: input.organizationId,
    locationId: input.locationId,
    roleCode,
    setAtUtc: new Date(nowMs).toISOString(),
    correlationId: input.correlationId,
  };
  await storeContext(deps, principal, context, ttlSeconds, nowMs);
  return { ok: true, context, ttlSeconds };
}

/** One script: the context with its TTL, and its session listed in the user's index. Throws when Redis fails. */
export async function storeContext(
  deps: Deps,
  session: { userId: string; sessionId: string },
  context: ActiveContext,
  ttlSeconds: number,
  nowMs: number,
): Promise<void> {
  // No retry: a retried SET landing after the caller's own DELETE would bring a reset context back.
  await runScript(deps.redis.atMostOnce, SET_ACTIVE_CONTEXT, {
    keys: { context: contextKey(deps, session), index: deps.keys.activeContextIndex(session.userId) },
    args: { context: encodeJson(activeContextSchema, context), ttlSeconds, sessionId: session.sessionId, now: Math.floor(nowMs / 1000) },
  });
}

/** One query: the roles at the organisation and at the outlet, that the outlet belongs to it, its state, and the session's end. */
async function readScope(
  deps: Deps,
  input: { userId: string; sessionId: string; organizationId: string; locationId: string | null },
): Promise<ScopeRow> {
  const rows = await dbCall('read', 'context.scope', (signal) =>
    deps.db.query<ScopeRow>(
      `SELECT
         (SELECT role_code FROM role_assignments
           WHERE user_id = $1 AND organization_id = $2 AND location_id IS NULL AND NOT EXISTS (
                 SELECT 1 FROM organizations WHERE id = $2 AND state = 'deleted')) AS org_role,
         (SELECT role_code FROM role_assignments
           WHERE user_id = $1 AND organization_id = $2 AND location_id = $3::uuid AND NOT EXISTS (
                 SELECT 1 FROM organizations WHERE id = $2 AND state = 'deleted')) AS location_role,
         ($3::uuid IS NULL OR EXISTS (SELECT 1 FROM locations WHERE id = $3::uuid AND organization_id = $2)) AS location_ok,
         EXISTS (SELECT 1 FROM organizations WHERE id = $2 AND state = 'suspended') AS tenant_suspended,
         (SELECT expires_at FROM sessions WHERE id = $4 AND user_id = $1) AS session_expires_at,
         (SELECT organization_id FROM sessions WHERE id = $4 AND user_id = $1) AS session_organization_id,
         EXISTS (SELECT 1 FROM sessions WHERE id = $4 AND revoked_at IS NOT NULL) AS session_revoked`,
      [input.userId, input.organizationId, input.locationId, input.sessionId],
      { signal },
    ),
  );
  const row = rows[0];
  if (row === undefined) throw new Error('context scope: the query returned no row');
  return row;
}
