// An unbound token's own limits across every organisation it names: its user-scope count beside the organisation's.
import type { RateLimitTarget } from './counters.ts';
import { refusal, type LimitState, type RateLimitDecision } from './decision.ts';
import type { RateLimitKind } from './limits.ts';

/**
 * The counters an unbound token's request on an organisation's route also counts in: the user's own `user` and
 * `user-route` (the route's template, never its ids), under the user's hash tag, the very counters of the user's routes
 * without an organisation. So a fresh org id in the path is no fresh allowance (docs/design/limits.md#outsiders-spend-nothing).
 */
export function userScopeTarget(target: RateLimitTarget): RateLimitTarget {
  return { userId: target.userId, route: target.route, organizationId: undefined };
}

/**
 * One decision from the organisation's count and the user-scope count. A user-scope limit decides where the
 * organisation's plan does not give that limit more than the defaults (a plan that raises a member's quota is not undone
 * here);
 * each limit shows the tighter of the two that decide.
 */
export function combineAcross(org: RateLimitDecision, across: RateLimitDecision): RateLimitDecision {
  const orgRefused = new Set<RateLimitKind>(org.allowed ? [] : org.refused);
  const deciding = (own: LimitState) => {
    const wide = across.limits.find((limit) => limit.kind === own.kind);
    return wide !== undefined && own.quota <= wide.quota ? wide : undefined;
  };
  const acrossRefused = new Set<RateLimitKind>(across.allowed ? [] : across.refused);
  const limits = org.limits.map((own): LimitState => {
    const wide = deciding(own);
    if (wide === undefined || orgRefused.has(own.kind)) return own;
    return acrossRefused.has(own.kind) || wide.remaining < own.remaining ? { ...wide, userScope: true } : own;
  });
  const refused = limits
    .filter((limit) => orgRefused.has(limit.kind) || (limit.userScope === true && acrossRefused.has(limit.kind)))
    .map((limit) => limit.kind);
  return refused.length === 0 ? { allowed: true, limits } : refusal(limits, refused);
}
