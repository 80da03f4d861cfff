// The bearer guard's path for `Authorization: Bearer rsk_…`: only on a route that declares a scope, only for its own
// organisation, within the key's scopes and limits (docs/design/api-keys.md#the-check).
import type { Context, Next } from 'hono';
import { AppError, errors } from '../../http/app-error.ts';
import type { HonoEnv } from '../../http/hono-env.ts';
import { isUuid } from '../../keys/index.ts';
import { errorKind } from '../../log/logger.ts';
import { RedisDefectError } from '../../redis/index.ts';
import { fillPlanLimitsOnce, rateLimitHeaders } from '../../runtime/ratelimit/index.ts';
import type { Authentication } from '../authentication.ts';
import { rateLimitedError, rateLimitTarget } from '../rate-limit-target.ts';
import { checkApiKey, type ActiveApiKey } from './check-api-key.ts';
import { isWellFormedApiKey } from './key-format.ts';
import { noteApiKeyUsed } from './note-last-used.ts';

/** Anything after `Bearer ` that starts `rsk_` is a key (or a bad one), never a JWT. */
export const API_KEY_BEARER = /^Bearer (rsk_\S*)$/;

/**
 * A route without a scope (every `/auth/*` route, the key routes themselves) refuses a key before any store is asked,
 * as does a malformed one or a checksum that does not match. Redis or PostgreSQL not answering is 503: a key is never
 * accepted unchecked.
 */
export async function requireApiKey(c: Context<HonoEnv>, next: Next, key: string): Promise<void> {
  const scope = c.get('routeScope');
  if (scope === undefined) throw errors.SCOPE_MISSING();
  const organizationId = c.req.param('orgId');
  if (organizationId === undefined || !isUuid(organizationId)) throw errors.FORBIDDEN();
  if (!isWellFormedApiKey(key)) throw errors.UNAUTHENTICATED('the API key is unknown, expired or revoked');
  const deps = c.get('deps');
  let check: Awaited<ReturnType<typeof checkApiKey>>;
  try {
    check = await checkApiKey(deps, {
      key,
      organizationId: organizationId.toLowerCase(),
      scope,
      route: rateLimitTarget(c, '').route,
      clientIp: c.get('clientIp'),
      correlationId: c.get('correlationId'),
    });
  } catch (error) {
    if (error instanceof RedisDefectError || error instanceof AppError) throw error;
    deps.logger.warn('api_key_check_failed', { errorKind: errorKind(error), correlationId: c.get('correlationId') });
    throw errors.REVOCATION_UNAVAILABLE();
  }
  switch (check.kind) {
    case 'refused':
      throw errors.UNAUTHENTICATED('the API key is unknown, expired or revoked');
    case 'address-limited':
      throw errors.RATE_LIMITED(check.retryAfterSeconds);
    case 'scope-missing':
      throw errors.SCOPE_MISSING(scope);
    case 'suspended':
      throw errors.TENANT_SUSPENDED();
    case 'no-organisation':
      throw errors.FORBIDDEN();
    case 'rate-limited':
      throw rateLimitedError(check.decision);
    case 'accepted':
      break;
  }
  c.set('auth', keyAuthentication(check.key));
  await next();
  noteApiKeyUsed(deps, check.key.apiKeyId, c.get('defer'));
  // As a person's request does: the plan's entry filled after the answer, so the next requests count with the plan.
  if (!check.planFound) fillPlanLimitsOnce(deps, check.key.organizationId, c.get('correlationId'), c.get('defer'));
  if (c.error === undefined) for (const [name, value] of Object.entries(rateLimitHeaders(check.decision))) c.header(name, value);
}

/** The key as a checked caller: it acts as the organisation's key, in the name of the admin who made it. */
function keyAuthentication(key: ActiveApiKey): Authentication {
  const principal = { userId: key.createdBy, sessionId: key.apiKeyId, jti: key.apiKeyId, expiresAt: 0, organizationId: key.organizationId };
  return {
    claimedUserId: key.createdBy,
    claimedSessionId: key.apiKeyId,
    claimedOrganizationId: key.organizationId,
    principal: () => Promise.resolve({ ...principal }),
    noteRoleCheck: () => undefined,
    apiKey: { apiKeyId: key.apiKeyId, scopes: key.scopes },
  };
}
