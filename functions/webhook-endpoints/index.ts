// The webhook endpoint function: an OrganizationAdmin adds, lists, changes and deletes the endpoints the organisation's events go to, rotates their secrets, and sees and retries their deliveries.
import { defineFunction } from '../../lib/auth/define-function.ts';
import { authorizeOrgAdmin } from '../../lib/auth/org-access.ts';
import { webhookEndpoints } from '../../lib/events/index.ts';
import { MAX_ENDPOINTS_PER_ORGANIZATION } from '../../lib/events/endpoint.ts';
import { errors } from '../../lib/http/app-error.ts';
import {
  createEndpointRoute,
  deleteEndpointRoute,
  listDeliveriesRoute,
  listEndpointsRoute,
  readEndpointRoute,
  retryDeliveryRoute,
  rotateSecretRoute,
  updateEndpointRoute,
} from './routes.ts';

export const webhookEndpointsFunction = defineFunction({ prefix: '/orgs/:orgId/webhook-endpoints', auth: 'bearer' });

const noEndpoint = () => errors.NOT_FOUND('no such webhook endpoint in this organisation');
const urlRefused = (outcome: { reason: 'bad-url' | 'forbidden-url'; problem: string }) =>
  outcome.reason === 'bad-url' ? errors.VALIDATION_FAILED(`url: ${outcome.problem}`) : errors.WEBHOOK_URL_FORBIDDEN(outcome.problem);
const secretsNotConfigured = () => errors.NOT_CONFIGURED('webhook signing secrets (SECRETS_KEYS)');

webhookEndpointsFunction.openapi(createEndpointRoute, async (c) => {
  const { orgId: organizationId } = c.req.valid('param');
  const body = c.req.valid('json');
  const deps = c.get('deps');
  const admin = await authorizeOrgAdmin(deps.db, c.get('auth'), { organizationId });
  const outcome = await webhookEndpoints.create(deps, {
    organizationId,
    url: body.url,
    events: body.events,
    description: body.description ?? null,
    actorUserId: admin.userId,
    correlationId: c.get('correlationId'),
  });
  if (!outcome.ok) {
    if (outcome.reason === 'limit') throw errors.WEBHOOK_ENDPOINT_LIMIT(MAX_ENDPOINTS_PER_ORGANIZATION);
    if (outcome.reason === 'not-configured') throw secretsNotConfigured();
    throw urlRefused(outcome);
  }
  return c.json({ endpoint: outcome.endpoint, secret: outcome.secret }, 201);
});

webhookEndpointsFunction.openapi(listEndpointsRoute, async (c) => {
  const { orgId: organizationId } = c.req.valid('param');
  const deps = c.get('deps');
  await authorizeOrgAdmin(deps.db, c.get('auth'), { organizationId });
  return c.json({ endpoints: await webhookEndpoints.list(deps, organizationId) }, 200);
});

webhookEndpointsFunction.openapi(readEndpointRoute, async (c) => {
  const { orgId: organizationId, endpointId } = c.req.valid('param');
  const deps = c.get('deps');
  await authorizeOrgAdmin(deps.db, c.get('auth'), { organizationId });
  const endpoint = await webhookEndpoints.read(deps, { organizationId, endpointId });
  if (endpoint === undefined) throw noEndpoint();
  return c.json({ endpoint }, 200);
});

webhookEndpointsFunction.openapi(updateEndpointRoute, async (c) => {
  const { orgId: organizationId, endpointId } = c.req.valid('param');
  const body = c.req.valid('json');
  const deps = c.get('deps');
  const admin = await authorizeOrgAdmin(deps.db, c.get('auth'), { organizationId });
  const outcome = await webhookEndpoints.update(deps, {
    organizationId,
    endpointId,
    change: {
      ...(body.url !== undefined ? { url: body.url } : {}),
      ...(body.events !== undefined ? { events: body.events } : {}),
      ...(body.description !== undefined ? { description: body.description } : {}),
      ...(body.state !== undefined ? { state: body.state } : {}),
    },
    actorUserId: admin.userId,
    correlationId: c.get('correlationId'),
  });
  if (!outcome.ok) throw outcome.reason === 'not-found' ? noEndpoint() : urlRefused(outcome);
  return c.json({ endpoint: outcome.endpoint }, 200);
});

webhookEndpointsFunction.openapi(deleteEndpointRoute, async (c) => {
  const { orgId: organizationId, endpointId } = c.req.valid('param');
  const deps = c.get('deps');
  const admin = await authorizeOrgAdmin(deps.db, c.get('auth'), { organizationId });
  const deleted = await webhookEndpoints.remove(deps, {
    organizationId,
    endpointId,
    actorUserId: admin.userId,
    correlationId: c.get('correlationId'),
  });
  if (!deleted) throw noEndpoint();
  return c.body(null, 204);
});

webhookEndpointsFunction.openapi(rotateSecretRoute, async (c) => {
  const { orgId: organizationId, endpointId } = c.req.valid('param');
  const deps = c.get('deps');
  const admin = await authorizeOrgAdmin(deps.db, c.get('auth'), { organizationId });
  const outcome = await webhookEndpoints.rotateSecret(deps, {
    organizationId,
    endpointId,
    actorUserId: admin.userId,
    correlationId: c.get('correlationId'),
  });
  if (!outcome.ok) {
    if (outcome.reason === 'not-found') throw noEndpoint();
    if (outcome.reason === 'not-configured') throw secretsNotConfigured();
    // Three rotations of one endpoint lost to others at once: a bug or an abuse, not a state to report.
    throw new Error('webhook secret rotation kept losing to concurrent rotations');
  }
  return c.json({ secret: outcome.secret }, 200);
});

webhookEndpointsFunction.openapi(listDeliveriesRoute, async (c) => {
  const { orgId: organizationId, endpointId } = c.req.valid('param');
  const { limit, cursor } = c.req.valid('query');
  const deps = c.get('deps');
  await authorizeOrgAdmin(deps.db, c.get('auth'), { organizationId });
  const page = await webhookEndpoints.deliveries(deps, { organizationId, endpointId, limit, ...(cursor !== undefined ? { cursor } : {}) });
  if (!page.ok) throw page.reason === 'not-found' ? noEndpoint() : errors.VALIDATION_FAILED('cursor: not a cursor this list handed out');
  return c.json({ deliveries: page.deliveries, nextCursor: page.nextCursor }, 200);
});

webhookEndpointsFunction.openapi(retryDeliveryRoute, async (c) => {
  const { orgId: organizationId, endpointId, deliveryId } = c.req.valid('param');
  const deps = c.get('deps');
  const admin = await authorizeOrgAdmin(deps.db, c.get('auth'), { organizationId });
  const outcome = await webhookEndpoints.retry(deps, {
    organizationId,
    endpointId,
    deliveryId,
    actorUserId: admin.userId,
    correlationId: c.get('correlationId'),
  });
  if (!outcome.ok) {
    if (outcome.reason === 'succeeded') throw errors.WEBHOOK_DELIVERY_SUCCEEDED();
    if (outcome.reason === 'endpoint-disabled') throw errors.WEBHOOK_ENDPOINT_DISABLED();
    throw errors.NOT_FOUND('no such delivery of this webhook endpoint in this organisation');
  }
  return c.body(null, 202);
});
