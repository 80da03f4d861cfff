// The operator functions: suspend, reactivate, delete and forget the cache of any organisation; reset a user's MFA; see and
// lift a tenant's or a user's rate-limit block. Operators
// are not users of a tenant: their bearer secret is checked against OPERATOR_TOKEN_HASHES (lib/auth/operator.ts), and
// every action is audited.
import { defineFunction } from '../../lib/auth/define-function.ts';
import { errors } from '../../lib/http/app-error.ts';
import { tenants } from '../../lib/runtime/tenants/index.ts';
import { resetMfaByOperator } from '../../lib/auth/mfa/reset-mfa.ts';
import { deleteTenant } from '../../lib/auth/tenant-deletion/delete-tenant.ts';
import { liftBlock, viewBlock } from '../../lib/runtime/ratelimit/index.ts';
import {
  deleteTenantRoute,
  forgetTenantCacheRoute,
  liftTenantRateLimitRoute,
  liftUserRateLimitRoute,
  reactivateTenantRoute,
  resetUserMfaRoute,
  suspendTenantRoute,
  viewTenantRateLimitRoute,
  viewUserRateLimitRoute,
} from './routes.ts';

// no-store on every answer, refusals included.
export const opsFunction = defineFunction({ prefix: '/ops/tenants/:orgId', auth: 'operator', noStore: true });

const noTenant = () => errors.NOT_FOUND('no such organisation (or it is deleted)');

opsFunction.openapi(suspendTenantRoute, async (c) => {
  const organizationId = c.req.valid('param').orgId;
  const outcome = await tenants.setState(c.get('deps'), {
    organizationId,
    operatorId: c.get('operator').id,
    state: 'suspended',
    reason: c.req.valid('json').reason,
    correlationId: c.get('correlationId'),
  });
  if (!outcome.ok) throw noTenant();
  return c.json({ organizationId, state: outcome.state, previousState: outcome.previousState }, 200);
});

opsFunction.openapi(reactivateTenantRoute, async (c) => {
  const organizationId = c.req.valid('param').orgId;
  const outcome = await tenants.setState(c.get('deps'), {
    organizationId,
    operatorId: c.get('operator').id,
    state: 'active',
    correlationId: c.get('correlationId'),
  });
  if (!outcome.ok) throw noTenant();
  return c.json({ organizationId, state: outcome.state, previousState: outcome.previousState }, 200);
});

opsFunction.openapi(deleteTenantRoute, async (c) => {
  const organizationId = c.req.valid('param').orgId;
  const outcome = await deleteTenant(c.get('deps'), {
    organizationId,
    operatorId: c.get('operator').id,
    reason: c.req.valid('json').reason,
    correlationId: c.get('correlationId'),
  });
  if (!outcome.ok) throw errors.NOT_FOUND('no such organisation');
  const { previousState, ended, denylistPending } = outcome;
  return c.json({ organizationId, state: 'deleted' as const, previousState, ended, denylistPending }, 200);
});

opsFunction.openapi(forgetTenantCacheRoute, async (c) => {
  const organizationId = c.req.valid('param').orgId;
  const outcome = await tenants.forgetCache(c.get('deps'), {
    organizationId,
    operatorId: c.get('operator').id,
    correlationId: c.get('correlationId'),
  });
  if (!outcome.ok) throw noTenant();
  return c.json({ organizationId, landed: outcome.landed }, 200);
});

opsFunction.openapi(viewTenantRateLimitRoute, async (c) => {
  const organizationId = c.req.valid('param').orgId;
  const limits = await viewBlock(c.get('deps'), { kind: 'tenant', organizationId }, c.get('correlationId'));
  return c.json({ organizationId, limits }, 200);
});

opsFunction.openapi(liftTenantRateLimitRoute, async (c) => {
  const outcome = await liftBlock(c.get('deps'), {
    subject: { kind: 'tenant', organizationId: c.req.valid('param').orgId },
    operatorId: c.get('operator').id,
    correlationId: c.get('correlationId'),
  });
  if (!outcome.ok) throw noTenant();
  return c.json({ cleared: outcome.cleared }, 200);
});

// A user's account across tenants (the MFA reset); the same guard and no-store as the tenant routes.
export const opsUsersFunction = defineFunction({ prefix: '/ops/users/:userId', auth: 'operator', noStore: true });

opsUsersFunction.openapi(resetUserMfaRoute, async (c) => {
  const userId = c.req.valid('param').userId;
  const outcome = await resetMfaByOperator(c.get('deps'), {
    userId,
    operatorId: c.get('operator').id,
    correlationId: c.get('correlationId'),
  });
  if (!outcome.ok) throw errors.NOT_FOUND('this user has no MFA factor (or there is no such user)');
  return c.json({ userId, wasConfirmed: outcome.wasConfirmed, recoveryCodesLeft: outcome.recoveryCodesLeft }, 200);
});

opsUsersFunction.openapi(viewUserRateLimitRoute, async (c) => {
  const userId = c.req.valid('param').userId;
  const limits = await viewBlock(c.get('deps'), { kind: 'user', userId, ...c.req.valid('query') }, c.get('correlationId'));
  return c.json({ userId, limits }, 200);
});

opsUsersFunction.openapi(liftUserRateLimitRoute, async (c) => {
  const outcome = await liftBlock(c.get('deps'), {
    subject: { kind: 'user', userId: c.req.valid('param').userId, ...c.req.valid('json') },
    operatorId: c.get('operator').id,
    correlationId: c.get('correlationId'),
  });
  if (!outcome.ok) throw noTenant();
  return c.json({ cleared: outcome.cleared }, 200);
});
