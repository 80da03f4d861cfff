// The operator function: suspend, reactivate and forget the cache of any organisation. Operators are not users of a
// tenant: their bearer secret is checked against OPERATOR_TOKEN_HASHES (lib/auth/operator.ts), and every action is audited.
import { defineFunction } from '../../lib/auth/define-function.ts';
import { errors } from '../../lib/http/app-error.ts';
import { tenants } from '../../lib/runtime/tenants/index.ts';
import { forgetTenantCacheRoute, reactivateTenantRoute, suspendTenantRoute } from './routes.ts';

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
