// The API rate limits' defaults as one table of data, with the reason for each row (docs/design/limits.md#api-rate-limits).
import type { PlanLimits } from '../../keys/index.ts';

export type RateLimitKind = 'user-route' | 'user' | 'tenant';

export interface RateLimit {
  /** Requests admitted per sliding window; the next one answers 429. */
  limit: number;
  windowSeconds: number;
}

/**
 * user-route, per user on one route (the route's template, `GET /orgs/{orgId}/members`): 100 a minute. A person at a
 * screen, or a client polling one list every second, stays far below; a script looping on one route is stopped in a
 * minute's first hundred calls and every other route of the user still answers.
 * user, per user over every authenticated route: 1 000 a minute. A busy client (a dashboard of a dozen panels refreshed
 * every few seconds) fits; one account cannot take more than a tenth of its tenant's share.
 * tenant, per organisation over every member's calls: 10 000 a minute, about 170 a second. A tenant of a few hundred
 * working members fits; one tenant's flood is refused before it takes the stores everyone shares.
 * All three share the 60 s window, so one script reads the same two windows for each; a plan changes the quotas only.
 */
export const RATE_LIMITS = {
  'user-route': { limit: 100, windowSeconds: 60 },
  user: { limit: 1_000, windowSeconds: 60 },
  tenant: { limit: 10_000, windowSeconds: 60 },
} as const satisfies Record<RateLimitKind, RateLimit & { windowSeconds: 60 }>;

/** The window every row shares (the type above holds them to one). */
export const RATE_LIMIT_WINDOW_MS = RATE_LIMITS.user.windowSeconds * 1_000;

/** The quotas one request counts against: the plan's where it names one, else the table's, scaled for tests. */
export function quotasFor(scale: number, plan?: Pick<PlanLimits, 'userRoute' | 'user' | 'tenant'>): Record<RateLimitKind, number> {
  return {
    'user-route': plan?.userRoute ?? RATE_LIMITS['user-route'].limit * scale,
    user: plan?.user ?? RATE_LIMITS.user.limit * scale,
    tenant: plan?.tenant ?? RATE_LIMITS.tenant.limit * scale,
  };
}
