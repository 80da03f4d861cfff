// rateLimit.check: the one count of a request in its three limits, beside the revocation check; fails open.
import { errorKind } from '../../log/logger.ts';
import { rethrowDefect } from '../../redis/index.ts';
import type { Deps } from '../../deps.ts';
import { countRequest, type CountReply } from './count-request.ts';
import type { RateLimitTarget } from './counters.ts';
import { decide, type RateLimitDecision } from './decision.ts';
import { fillPlanLimits } from './plan.ts';
import { rememberedRefusal } from './remembered.ts';

type Defer = ((work: Promise<unknown>) => void) | undefined;

/**
 * The decision for one request, or undefined when the limiter could not count it (Redis down or slow: the request
 * goes on, unlimited; the first failure of an outage logs one `rate_limit_unavailable` WARN per isolate, and for
 * OUTAGE_PROBE_MS after each failure the isolate does not ask Redis at all). Rejects only on a defect (RedisDefectError).
 * A caller this isolate already refused is refused again from memory (`rememberedRefusal`), which the middleware
 * asks first; this function asks too, for callers of it that do not. What is remembered is a refusal that was answered
 * (`rememberRefusal`, by the middleware): a revoked token over the limit is answered 401, and stays so.
 */
export async function checkRateLimit(
  deps: Deps,
  target: RateLimitTarget,
  context: { correlationId: string; defer: Defer },
): Promise<RateLimitDecision | undefined> {
  const memo = deps.rateLimits;
  const nowMs = deps.clock.now();
  const remembered = rememberedRefusal(deps, target, nowMs);
  if (remembered !== undefined) return remembered;
  if (memo.skipping(nowMs)) return undefined;
  let reply: CountReply;
  try {
    reply = await countRequest(deps, target, nowMs);
  } catch (error) {
    rethrowDefect(error); // a defect of ours never opens the limiter (lib/redis/reply-class.ts)
    // Fail open (docs/design/failure-semantics.md#failure-semantics): no key, no subject in the log.
    if (memo.failed(deps.clock.now())) {
      deps.logger.warn('rate_limit_unavailable', { errorKind: errorKind(error), correlationId: context.correlationId });
    }
    return undefined;
  }
  memo.answered();
  if (!reply.planFound && target.organizationId !== undefined && memo.planFillDue(target.organizationId, nowMs)) {
    const fill = fillPlanLimits(deps, target.organizationId, context.correlationId).catch((error: unknown) => {
      deps.logger.warn('rate_limit_plan_unavailable', { errorKind: errorKind(error), correlationId: context.correlationId });
    });
    if (context.defer !== undefined) context.defer(fill);
  }
  const decision = decide(reply);
  const tenant = reply.windows.kinds.indexOf('tenant');
  // Each limit's current window comes first of its three keys (counters.ts).
  if (decision.allowed && tenant >= 0) decision.tenantCounter = reply.windows.keys[tenant * 3];
  return decision;
}
