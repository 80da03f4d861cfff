// What a bearer request counts in, read from the matched route: its template, and the organisation in its path if any.
import type { Context } from 'hono';
import { errors, AppError } from '../http/app-error.ts';
import type { HonoEnv } from '../http/hono-env.ts';
import { isUuid } from '../keys/index.ts';
import { rateLimitHeaders, type RateLimitDecision, type RateLimitTarget } from '../runtime/ratelimit/index.ts';

/**
 * The route is its method and template (`GET /orgs/{orgId}/members`), never the path a caller typed, so ids and
 * unknown paths cannot mint counters. The tenant is the route's `orgId` when it is a UUID (the route's own validation
 * answers for anything else); a route without one counts under the user alone (docs/design/limits.md#api-rate-limits).
 */
export function rateLimitTarget(c: Context<HonoEnv>, userId: string): RateLimitTarget {
  const route = `${c.req.method} ${c.req.routePath.replaceAll(/:([A-Za-z0-9_]+)(\{[^}]*\})?/g, '{$1}')}`;
  const orgId = c.req.param('orgId');
  return { userId, route, organizationId: orgId !== undefined && isUuid(orgId) ? orgId.toLowerCase() : undefined };
}

/** 429 RATE_LIMITED with retry-after and the RateLimit fields of the limits that refused. */
export function rateLimitedError(decision: Extract<RateLimitDecision, { allowed: false }>): AppError {
  const base = errors.RATE_LIMITED(decision.retryAfterSeconds);
  return new AppError(base.code, base.message, { ...base.headers, ...rateLimitHeaders(decision) });
}
