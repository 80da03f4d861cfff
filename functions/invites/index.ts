// The invitation function: create, list, history, cancel and resend (OrganizationAdmin of the organisation), accept (the
// invited user) and register (a newcomer the invitation reached by email).
import { defineFunction } from '../../lib/auth/define-function.ts';
import { mayReadMembers } from '../../lib/auth/members/may-read-members.ts';
import { authorizeOrgAdmin } from '../../lib/auth/org-access.ts';
import { registerWithInvite } from '../../lib/auth/register-with-invite.ts';
import { errors } from '../../lib/http/app-error.ts';
import { invites } from '../../lib/runtime/invites/index.ts';
import {
  acceptInviteRoute,
  cancelInviteRoute,
  createInviteRoute,
  inviteHistoryRoute,
  invitePageRoute,
  listInvitesRoute,
  registerInviteRoute,
  resendInviteRoute,
} from './routes.ts';
import { invitePage } from './page.ts';

export const invitesFunction = defineFunction({ prefix: '/orgs/:orgId/invites', auth: 'bearer' });
/** Accepting is the invited user's, who holds no role in the organisation yet; registering needs no account at all. */
export const inviteAcceptanceFunction = defineFunction({ prefix: '/invites', auth: 'bearer' });

invitesFunction.openapi(createInviteRoute, async (c) => {
  const { orgId } = c.req.valid('param');
  const body = c.req.valid('json');
  const deps = c.get('deps');
  const locationId = body.locationId ?? null;
  const principal = await authorizeOrgAdmin(deps.db, c.get('auth'), { organizationId: orgId, locationId });
  // Refused before anything is written: an emailed invite nobody can send is not created at all.
  const unavailable = body.delivery === 'email' ? invites.emailDeliveryUnavailable(deps) : undefined;
  if (unavailable !== undefined) throw errors.NOT_CONFIGURED(unavailable);
  // Read beside the create, so the message costs no round trip after it; never rejects, so a refused create may drop it.
  const organizationName = body.delivery === 'email' ? invites.organizationName(deps, orgId) : undefined;
  const outcome = await invites.create(deps, {
    organizationId: orgId,
    locationId,
    email: body.email,
    roleCode: body.roleCode,
    createdByUserId: principal.userId,
    actorApiKeyId: c.get('auth').apiKey?.apiKeyId,
    correlationId: c.get('correlationId'),
    delivery: body.delivery,
  });
  if (!outcome.ok) {
    if (outcome.reason === 'rate-limited') throw errors.RATE_LIMITED(outcome.retryAfterSeconds);
    throw errors.INVITE_LIMIT_REACHED(outcome.maxActive);
  }
  if (body.delivery === 'none') return c.json({ invite: outcome.invite, token: outcome.token }, 201);
  // Awaited (within its deadline) so the answer says whether it went; a failed send leaves the invite standing.
  const delivery = await invites.deliver(deps, outcome.record, outcome.token, c.get('correlationId'), organizationName);
  return c.json({ invite: outcome.invite, delivery }, 201);
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
  const auth = c.get('auth');
  await authorizeOrgAdmin(deps.db, auth, { organizationId });
  // Actors are named to whoever may list the members anyway.
  const withEmails = mayReadMembers(auth);
  const page = await invites.history(deps, { organizationId, limit, withEmails, ...(cursor !== undefined ? { cursor } : {}) });
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
    actorApiKeyId: c.get('auth').apiKey?.apiKeyId,
    correlationId: c.get('correlationId'),
  });
  if (!outcome.ok) throw errors.NOT_FOUND();
  return c.body(null, 204);
});

invitesFunction.openapi(resendInviteRoute, async (c) => {
  const { orgId, inviteId } = c.req.valid('param');
  const deps = c.get('deps');
  const principal = await authorizeOrgAdmin(deps.db, c.get('auth'), { organizationId: orgId });
  // A resend always emails (an invite created with delivery "none" becomes an email one): checked before the swap.
  const unavailable = invites.emailDeliveryUnavailable(deps);
  if (unavailable !== undefined) throw errors.NOT_CONFIGURED(unavailable);
  const organizationName = invites.organizationName(deps, orgId);
  const outcome = await invites.resend(deps, {
    organizationId: orgId,
    inviteId,
    actorUserId: principal.userId,
    actorApiKeyId: c.get('auth').apiKey?.apiKeyId,
    correlationId: c.get('correlationId'),
  });
  if (!outcome.ok) {
    if (outcome.reason === 'rate-limited') throw errors.RATE_LIMITED(outcome.retryAfterSeconds);
    throw errors.NOT_FOUND();
  }
  const delivery = await invites.deliver(deps, outcome.record, outcome.token, c.get('correlationId'), organizationName);
  return c.json({ invite: outcome.invite, delivery }, 200);
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
    if (outcome.reason === 'tenant-suspended') throw errors.TENANT_SUSPENDED();
    if (outcome.reason === 'rate-limited') throw errors.RATE_LIMITED(outcome.retryAfterSeconds);
    throw errors.INVITE_INVALID();
  }
  return c.json({ organizationId: outcome.organizationId, locationId: outcome.locationId, roleCode: outcome.roleCode }, 200);
});

inviteAcceptanceFunction.openapi(registerInviteRoute, async (c) => {
  const { token, password } = c.req.valid('json');
  const outcome = await registerWithInvite(c.get('deps'), {
    token,
    password,
    clientIp: c.get('clientIp'),
    userAgent: c.req.header('user-agent'),
    correlationId: c.get('correlationId'),
  });
  if (!outcome.ok) {
    if (outcome.reason === 'rate-limited') throw errors.RATE_LIMITED(outcome.retryAfterSeconds);
    if (outcome.reason === 'not-delivered') throw errors.INVITE_NOT_DELIVERED();
    if (outcome.reason === 'account-exists') throw errors.ACCOUNT_EXISTS();
    if (outcome.reason === 'tenant-suspended') throw errors.TENANT_SUSPENDED();
    if (outcome.reason === 'not-configured') throw errors.NOT_CONFIGURED('sign-in (AUTH_SIGNING_KEYS)');
    if (outcome.reason === 'password-breached') throw errors.PASSWORD_BREACHED();
    if (outcome.reason === 'breach-check-unavailable') throw errors.BREACH_CHECK_UNAVAILABLE();
    throw errors.INVITE_INVALID();
  }
  return c.json({ status: 'signed-in' as const, ...outcome.tokens }, 201);
});

// The invite page: public (its visitor has no session yet) and uncached; the CSP allows its one script by hash, and
// referrer-policy no-referrer comes with every answer (lib/http/security-headers.ts).
inviteAcceptanceFunction.openapi(invitePageRoute, async (c) => {
  const page = await invitePage();
  c.header('content-security-policy', page.contentSecurityPolicy);
  c.header('x-content-type-options', 'nosniff');
  c.header('x-frame-options', 'DENY');
  return c.html(page.html, 200);
});
