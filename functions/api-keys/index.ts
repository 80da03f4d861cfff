// The API key function: an OrganizationAdmin makes, lists, reads, changes, revokes and rolls the organisation's keys.
import { apiKeys } from '../../lib/auth/api-keys/index.ts';
import { defineFunction } from '../../lib/auth/define-function.ts';
import { authorizeOrgAdmin } from '../../lib/auth/org-access.ts';
import { errors } from '../../lib/http/app-error.ts';
import { createApiKeyRoute, getApiKeyRoute, listApiKeysRoute, revokeApiKeyRoute, rollApiKeyRoute, updateApiKeyRoute } from './routes.ts';

// No route here declares a scope: a key never makes, rolls or revokes keys (docs/design/api-keys.md#scopes).
export const apiKeysFunction = defineFunction({ prefix: '/orgs/:orgId/api-keys', auth: 'bearer', noStore: true });

const noKey = () => errors.NOT_FOUND('no such API key in this organisation');

apiKeysFunction.openapi(createApiKeyRoute, async (c) => {
  const { orgId: organizationId } = c.req.valid('param');
  const body = c.req.valid('json');
  const deps = c.get('deps');
  const admin = await authorizeOrgAdmin(deps.db, c.get('auth'), { organizationId });
  const outcome = await apiKeys.create(deps, {
    organizationId,
    adminUserId: admin.userId,
    name: body.name,
    scopes: body.scopes,
    expiresAtMs: body.expiresAt === undefined ? undefined : Date.parse(body.expiresAt),
    rateLimitPerMinute: body.rateLimitPerMinute,
    correlationId: c.get('correlationId'),
  });
  if (!outcome.ok)
    throw outcome.reason === 'expiry-past' ? errors.VALIDATION_FAILED('expiresAt: must be in the future') : errors.FORBIDDEN();
  return c.json({ apiKey: outcome.apiKey, key: outcome.key }, 201);
});

apiKeysFunction.openapi(listApiKeysRoute, async (c) => {
  const { orgId: organizationId } = c.req.valid('param');
  const { limit, cursor } = c.req.valid('query');
  const deps = c.get('deps');
  await authorizeOrgAdmin(deps.db, c.get('auth'), { organizationId });
  const page = await apiKeys.list(deps, { organizationId, limit, ...(cursor !== undefined ? { cursor } : {}) });
  if (!page.ok) throw errors.VALIDATION_FAILED('cursor: not a cursor this list handed out');
  return c.json({ apiKeys: page.apiKeys, nextCursor: page.nextCursor }, 200);
});

apiKeysFunction.openapi(getApiKeyRoute, async (c) => {
  const { orgId: organizationId, apiKeyId } = c.req.valid('param');
  const deps = c.get('deps');
  await authorizeOrgAdmin(deps.db, c.get('auth'), { organizationId });
  const apiKey = await apiKeys.read(deps, { organizationId, apiKeyId });
  if (apiKey === undefined) throw noKey();
  return c.json({ apiKey }, 200);
});

apiKeysFunction.openapi(updateApiKeyRoute, async (c) => {
  const { orgId: organizationId, apiKeyId } = c.req.valid('param');
  const body = c.req.valid('json');
  const deps = c.get('deps');
  const admin = await authorizeOrgAdmin(deps.db, c.get('auth'), { organizationId });
  const outcome = await apiKeys.update(deps, {
    organizationId,
    apiKeyId,
    adminUserId: admin.userId,
    name: body.name,
    scopes: body.scopes,
    correlationId: c.get('correlationId'),
  });
  if (!outcome.ok) throw noKey();
  return c.json({ apiKey: outcome.apiKey }, 200);
});

apiKeysFunction.openapi(revokeApiKeyRoute, async (c) => {
  const { orgId: organizationId, apiKeyId } = c.req.valid('param');
  const deps = c.get('deps');
  const admin = await authorizeOrgAdmin(deps.db, c.get('auth'), { organizationId });
  const outcome = await apiKeys.revoke(deps, {
    organizationId,
    apiKeyId,
    adminUserId: admin.userId,
    correlationId: c.get('correlationId'),
  });
  if (!outcome.ok) throw noKey();
  return c.body(null, 204);
});

apiKeysFunction.openapi(rollApiKeyRoute, async (c) => {
  const { orgId: organizationId, apiKeyId } = c.req.valid('param');
  const { overlapSeconds } = c.req.valid('json');
  const deps = c.get('deps');
  const admin = await authorizeOrgAdmin(deps.db, c.get('auth'), { organizationId });
  const outcome = await apiKeys.roll(deps, {
    organizationId,
    apiKeyId,
    adminUserId: admin.userId,
    overlapSeconds,
    correlationId: c.get('correlationId'),
  });
  if (!outcome.ok) throw outcome.reason === 'already-rolled' ? errors.API_KEY_ROLLED() : noKey();
  return c.json({ apiKey: outcome.apiKey, key: outcome.key }, 200);
});
