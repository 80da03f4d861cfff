// The member function: an OrganizationAdmin lists the organisation's role assignments, changes one, removes a member.
import { defineFunction } from '../../lib/auth/define-function.ts';
import { members } from '../../lib/auth/members/index.ts';
import { authorizeOrgAdmin } from '../../lib/auth/org-access.ts';
import { errors } from '../../lib/http/app-error.ts';
import { changeMemberRoleRoute, listMembersRoute, removeMemberRoute } from './routes.ts';

export const membersFunction = defineFunction({ prefix: '/orgs/:orgId/members', auth: 'bearer' });

const noMember = () => errors.NOT_FOUND('no member with that id (and role at that scope) in this organisation');

membersFunction.openapi(listMembersRoute, async (c) => {
  const { orgId: organizationId } = c.req.valid('param');
  const { limit, cursor } = c.req.valid('query');
  const deps = c.get('deps');
  await authorizeOrgAdmin(deps.db, c.get('auth'), { organizationId });
  const page = await members.list(deps, { organizationId, limit, ...(cursor !== undefined ? { cursor } : {}) });
  if (!page.ok) throw errors.VALIDATION_FAILED('cursor: not a cursor this list handed out');
  return c.json({ members: page.members, nextCursor: page.nextCursor }, 200);
});

membersFunction.openapi(changeMemberRoleRoute, async (c) => {
  const { orgId: organizationId, userId } = c.req.valid('param');
  const body = c.req.valid('json');
  const deps = c.get('deps');
  const locationId = body.locationId ?? null;
  const admin = await authorizeOrgAdmin(deps.db, c.get('auth'), { organizationId, locationId });
  const outcome = await members.changeRole(deps, {
    organizationId,
    adminUserId: admin.userId,
    actorApiKeyId: c.get('auth').apiKey?.apiKeyId,
    memberUserId: userId,
    locationId,
    roleCode: body.roleCode,
    correlationId: c.get('correlationId'),
  });
  if (!outcome.ok) throw outcome.reason === 'last-admin' ? errors.LAST_ADMIN() : noMember();
  return c.json({ member: outcome.member }, 200);
});

membersFunction.openapi(removeMemberRoute, async (c) => {
  const { orgId: organizationId, userId } = c.req.valid('param');
  const deps = c.get('deps');
  const admin = await authorizeOrgAdmin(deps.db, c.get('auth'), { organizationId });
  const outcome = await members.remove(deps, {
    organizationId,
    adminUserId: admin.userId,
    actorApiKeyId: c.get('auth').apiKey?.apiKeyId,
    memberUserId: userId,
    correlationId: c.get('correlationId'),
  });
  if (!outcome.ok) throw outcome.reason === 'last-admin' ? errors.LAST_ADMIN() : noMember();
  return c.body(null, 204);
});
