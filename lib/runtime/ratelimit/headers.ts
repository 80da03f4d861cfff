// The httpapi working group's RateLimit-Policy and RateLimit fields (structured-field lists) for a decision.
import type { RateLimitDecision } from './decision.ts';
import { RATE_LIMIT_WINDOW_MS } from './limits.ts';

/**
 * `RateLimit-Policy: "user-route";q=100;w=60, "user";q=1000;w=60, "tenant";q=10000;w=60` names each limit with its quota
 * and window; `RateLimit: "user-route";r=99;t=60, …` says what is left of each and in how many seconds it resets.
 */
export function rateLimitHeaders(decision: RateLimitDecision): Record<string, string> {
  const windowSeconds = RATE_LIMIT_WINDOW_MS / 1_000;
  return {
    'ratelimit-policy': decision.limits.map((limit) => `"${limit.kind}";q=${limit.quota};w=${windowSeconds}`).join(', '),
    ratelimit: decision.limits.map((limit) => `"${limit.kind}";r=${limit.remaining};t=${limit.resetSeconds}`).join(', '),
  };
}
