// The sessions function: the session list (own, or a member's for an admin), ending one session, sign out everywhere,
// an admin's revoke of a member's sessions, the active context and the memberships it is chosen from.
import { defineFunction } from '../../lib/auth/define-function.ts';
import { listMemberships } from '../../lib/auth/memberships.ts';
import { authorizeOrgAdmin } from '../../lib/auth/org-access.ts';
import { endOwnSession } from '../../lib/auth/sessions/end-session.ts';
import { listMemberSessions, listOwnSessions } from '../../lib/auth/sessions/list-sessions.ts';
import { revokeAllSessions } from '../../lib/auth/sessions/revoke-all.ts';
import { revokeMemberSessions } from '../../lib/auth/sessions/revoke-member-sessions.ts';
import { errors } from '../../lib/http/app-error.ts';
import { activeContext } from '../../lib/auth/context/index.ts';
import type { SetContextOutcome } from '../../lib/auth/context/set-context.ts';
import type { SwitchOutcome } from '../../lib/auth/context/switch-organization.ts';
import {
  endSessionRoute,
  listSessionsRoute,
  memberSessionsRoute,
  membershipsRoute,
  readContextRoute,
  resetContextRoute,
  revokeAllRoute,
  revokeMemberRoute,
  setContextRoute,
} from './routes.ts';

export const sessionsFunction = defineFunction({ prefix: '/auth', auth: 'bearer' });
/** An admin's view and revoke of a member's sessions live with the organisation's members. */
export const memberSessionsFunction = defineFunction({ prefix: '/orgs/:orgId/members', auth: 'bearer' });

sessionsFunction.openapi(listSessionsRoute, async (c) => {
  return c.json({ sessions: await listOwnSessions(c.get('deps'), c.get('auth')) }, 200);
});

sessionsFunction.openapi(endSessionRoute, async (c) => {
  const { sessionId } = c.req.valid('param');
  const principal = await c.get('auth').principal();
  const outcome = await endOwnSession(c.get('deps'), principal, sessionId, c.get('correlationId'));
  if (!outcome.ok) throw errors.NOT_FOUND('no session of yours with that id');
  return c.body(null, 204);
});

sessionsFunction.openapi(revokeAllRoute, async (c) => {
  const outcome = await revokeAllSessions(c.get('deps'), await c.get('auth').principal(), c.get('correlationId'));
  return c.json({ revoked: outcome.revoked, denylistPending: outcome.denylistPending }, 200);
});

memberSessionsFunction.openapi(memberSessionsRoute, async (c) => {
  const { orgId: organizationId, userId } = c.req.valid('param');
  const deps = c.get('deps');
  await authorizeOrgAdmin(deps.db, c.get('auth'), { organizationId });
  const outcome = await listMemberSessions(deps, { organizationId, memberUserId: userId });
  if (!outcome.ok) throw errors.NOT_FOUND('no member with that id in this organisation');
  return c.json({ sessions: outcome.sessions }, 200);
});

memberSessionsFunction.openapi(revokeMemberRoute, async (c) => {
  const { orgId: organizationId, userId } = c.req.valid('param');
  const deps = c.get('deps');
  const admin = await authorizeOrgAdmin(deps.db, c.get('auth'), { organizationId });
  const outcome = await revokeMemberSessions(deps, {
    organizationId,
    adminUserId: admin.userId,
    actorApiKeyId: c.get('auth').apiKey?.apiKeyId,
    memberUserId: userId,
    correlationId: c.get('correlationId'),
  });
  if (!outcome.ok) throw errors.NOT_FOUND('no member with that id in this organisation');
  return c.json({ revoked: outcome.revoked, denylistPending: outcome.denylistPending }, 200);
});

/** The refusals of a context change, within the organisation or a switch to another, as answers. */
function contextRefusal(reason: Exclude<SetContextOutcome | SwitchOutcome, { ok: true }>['reason']) {
  switch (reason) {
    case 'location-outside':
      return errors.VALIDATION_FAILED('locationId: not a location of this organisation');
    case 'no-role':
      return errors.FORBIDDEN('no role in this organisation at its level or at this location');
    case 'tenant-suspended':
      return errors.TENANT_SUSPENDED();
    case 'sign-in-required':
      return errors.SIGN_IN_REQUIRED();
    case 'session-moved':
      return errors.FORBIDDEN("this token's session has moved to another organisation; use the tokens of that switch");
    case 'session-revoked':
      return errors.TOKEN_REVOKED();
    case 'session-ended':
      return errors.UNAUTHENTICATED('the session has ended; sign in again');
  }
}

sessionsFunction.openapi(setContextRoute, async (c) => {
  const body = c.req.valid('json');
  const deps = c.get('deps');
  const auth = c.get('auth');
  const input = { organizationId: body.organizationId, locationId: body.locationId ?? null, correlationId: c.get('correlationId') };
  // A session bound to one organisation choosing another switches (docs/design/sign-in.md#switching-organisation);
  // an unbound token (an identity provider's) keeps choosing any organisation where the user holds a role.
  const from = auth.claimedOrganizationId;
  if (from !== undefined && from !== input.organizationId) {
    const switched = await activeContext.switchOrganization(deps, await auth.principal(), { ...input, fromOrganizationId: from });
    if (!switched.ok) throw contextRefusal(switched.reason);
    return c.json({ context: switched.context, session: { status: 'signed-in' as const, ...switched.tokens } }, 200);
  }
  const outcome = await activeContext.set(deps, auth, input);
  if (!outcome.ok) throw contextRefusal(outcome.reason);
  return c.json({ context: outcome.context }, 200);
});

sessionsFunction.openapi(readContextRoute, async (c) => {
  const outcome = await activeContext.read(c.get('deps'), c.get('auth'));
  if (!outcome.ok) throw errors.NOT_FOUND('no active context for this session');
  return c.json({ context: outcome.context }, 200);
});

sessionsFunction.openapi(resetContextRoute, async (c) => {
  await activeContext.reset(c.get('deps'), await c.get('auth').principal());
  return c.body(null, 204);
});

sessionsFunction.openapi(membershipsRoute, async (c) => {
  return c.json({ memberships: await listMemberships(c.get('deps'), c.get('auth')) }, 200);
});
