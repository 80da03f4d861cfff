// ratelimit.fillPlanLimitsOnce: the organisation's plan entry filled off the answer's path, for a request that counted
// without it and has no plan read of its own to fill it with (an API key's check: lib/auth/api-keys/check-api-key.ts).
import type { Deps } from '../../deps.ts';
import { errorKind } from '../../log/logger.ts';
import { fillPlanLimits } from './plan.ts';

/**
 * One fill per organisation per isolate at a time (concurrent misses share it); a failure is a WARN, as a person's
 * fill is (lib/runtime/ratelimit/check-rate-limit.ts): the defaults count until a later request fills it.
 */
export function fillPlanLimitsOnce(
  deps: Deps,
  organizationId: string,
  correlationId: string,
  defer: ((work: Promise<unknown>) => void) | undefined,
): void {
  const fill = deps.inflight
    .run(`ratelimit.plan-fill:${organizationId}`, () => fillPlanLimits(deps, organizationId, correlationId))
    .catch((error: unknown) => {
      deps.logger.warn('rate_limit_plan_unavailable', { errorKind: errorKind(error), correlationId });
    });
  if (defer !== undefined) defer(fill);
}
