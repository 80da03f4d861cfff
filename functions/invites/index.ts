// The invitation function: create, list, history and cancel (OrganizationAdmin of the organisation) and accept (the invited user).
import { defineFunction } from '../../lib/auth/define-function.ts';
import { authorizeOrgAdmin } from '../../lib/auth/org-access.ts';
import { errors } from '../../lib/http/app-error.ts';
import { invites } from '../../lib/runtime/invites/index.ts';
import { acceptInviteRoute, cancelInviteRoute, createInviteRoute, inviteHistoryRoute, listInvitesRoute } from './routes.ts';

export const invitesFunction = defineFunction({ prefix: '/orgs/:orgId/invites', auth: 'bearer' });
/** Accepting is the invited user's, who holds no role in the organisation yet. */
export const inviteAcceptanceFunction = defineFunction({ prefix: '/invites', auth: 'bearer' });

invitesFunction.openapi(createInviteRoute, async (c) => {
  const { orgId } = c.req.valid('param');
  const body = c.req.valid('json');
  const deps = c.get('deps');
  const locationId = body.locationId ?? null;
  const principal = await authorizeOrgAdmin(deps.db, c.get('auth'), { organizationId: orgId, locationId });
  const outcome = await invites.create(deps, {
    organizationId: orgId,
    locationId,
    email: body.email,
    roleCode: body.roleCode,
    createdByUserId: principal.userId,
    correlationId: c.get('correlationId'),
  });
  if (!outcome.ok) {
    if (outcome.reason === 'rate-limited') throw errors.RATE_LIMITED(outcome.retryAfterSeconds);
    throw errors.INVITE_LIMIT_REACHED(outcome.maxActive);
  }
  return c.json({ invite: outcome.invite, token: outcome.token }, 201);
});

invitesFunction.openapi(listInvitesRoute, async (c) => {
  const { orgId } = c.req.valid('param');
  const { email, limit, cursor } = c.req.valid('query');
  const deps = c.get('deps');
  await authorizeOrgAdmin(deps.db, c.get('auth'), { organizationId: orgId });
  const page = await invites.list(deps, {
    organizationId: orgId,
    limit,
    ...(email !== undefined ? { email } : {}),
    ...(cursor !== undefined ? { cursor } : {}),
  });
  if (!page.ok) throw errors.VALIDATION_FAILED('cursor: not a cursor this list handed out');
  return c.json({ invites: page.invites, nextCursor: page.nextCursor }, 200);
});

invitesFunction.openapi(inviteHistoryRoute, async (c) => {
  const organizationId = c.req.valid('param').orgId;
  const { limit, cursor } = c.req.valid('query');
  const deps = c.get('deps');
  await authorizeOrgAdmin(deps.db, c.get('auth'), { organizationId });
  const page = await invites.history(deps, { organizationId, limit, ...(cursor !== undefined ? { cursor } : {}) });
  if (!page.ok) throw errors.VALIDATION_FAILED('cursor: not a cursor this history handed out');
  return c.json({ events: page.events, nextCursor: page.nextCursor }, 200);
});

invitesFunction.openapi(cancelInviteRoute, async (c) => {
  const { orgId, inviteId } = c.req.valid('param');
  const deps = c.get('deps');
  const principal = await authorizeOrgAdmin(deps.db, c.get('auth'), { organizationId: orgId });
  const outcome = await invites.cancel(deps, {
    organizationId: orgId,
    inviteId,
    actorUserId: principal.userId,
    correlationId: c.get('correlationId'),
  });
  if (!outcome.ok) throw errors.NOT_FOUND();
  return c.body(null, 204);
});

inviteAcceptanceFunction.openapi(acceptInviteRoute, async (c) => {
  const { token } = c.req.valid('json');
  const principal = await c.get('auth').principal();
  if (principal.verifiedEmail === undefined) throw errors.FORBIDDEN('accepting an invitation needs a verified email claim');
  const outcome = await invites.accept(c.get('deps'), {
    token,
    userId: principal.userId,
    verifiedEmail: principal.verifiedEmail,
    correlationId: c.get('correlationId'),
  });
  if (!outcome.ok) {
    if (outcome.reason === 'wrong-recipient') throw errors.FORBIDDEN('this invitation is addressed to another email');
    if (outcome.reason === 'email-belongs-to-another-user') throw errors.FORBIDDEN('this email belongs to another account');
    if (outcome.reason === 'role-conflict') throw errors.ROLE_CONFLICT(outcome.heldRole);
    if (outcome.reason === 'rate-limited') throw errors.RATE_LIMITED(outcome.retryAfterSeconds);
    throw errors.INVITE_INVALID();
  }
  return c.json({ organizationId: outcome.organizationId, locationId: outcome.locationId, roleCode: outcome.roleCode }, 200);
});
