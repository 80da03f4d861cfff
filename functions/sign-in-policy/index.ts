// The sign-in policy function: an OrganizationAdmin reads and replaces the organisation's sign-in policy.
import { defineFunction } from '../../lib/auth/define-function.ts';
import { authorizeOrgAdmin } from '../../lib/auth/org-access.ts';
import { readSignInPolicy } from '../../lib/auth/sign-in-policy/read-policy.ts';
import { setSignInPolicy } from '../../lib/auth/sign-in-policy/set-policy.ts';
import { errors } from '../../lib/http/app-error.ts';
import { getPolicyRoute, putPolicyRoute } from './routes.ts';

export const signInPolicyFunction = defineFunction({ prefix: '/orgs/:orgId/sign-in-policy', auth: 'bearer' });

signInPolicyFunction.openapi(getPolicyRoute, async (c) => {
  const { orgId: organizationId } = c.req.valid('param');
  const deps = c.get('deps');
  await authorizeOrgAdmin(deps.db, c.get('auth'), { organizationId });
  const policy = await readSignInPolicy(deps, organizationId);
  // Deleted between the role check and the read: as for every route of a deleted organisation.
  if (policy === undefined) throw errors.FORBIDDEN();
  return c.json(policy, 200);
});

signInPolicyFunction.openapi(putPolicyRoute, async (c) => {
  const { orgId: organizationId } = c.req.valid('param');
  const policy = c.req.valid('json');
  const deps = c.get('deps');
  const admin = await authorizeOrgAdmin(deps.db, c.get('auth'), { organizationId });
  const outcome = await setSignInPolicy(deps, { organizationId, adminUserId: admin.userId, policy, correlationId: c.get('correlationId') });
  if (!outcome.ok) throw outcome.reason === 'lockout' ? errors.SIGN_IN_POLICY_LOCKOUT() : errors.FORBIDDEN();
  return c.json(outcome.policy, 200);
});
