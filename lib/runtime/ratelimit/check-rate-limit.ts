// rateLimit.check: the one count of a request in its three limits, beside the revocation check; fails open.
import { errorKind } from '../../log/logger.ts';
import { rethrowDefect } from '../../redis/index.ts';
import type { Deps } from '../../deps.ts';
import type { PlanLimits } from '../../keys/index.ts';
import { combineAcross, userScopeTarget } from './across-organisations.ts';
import { countRequest, type CountReply } from './count-request.ts';
import { counterWindows, type RateLimitTarget } from './counters.ts';
import { decide, type RateLimitDecision } from './decision.ts';
import { quotasFor } from './limits.ts';
import { fillPlanLimits, loadPlan } from './plan.ts';
import { refundCounts } from './refund-tenant.ts';
import { rememberedRefusal } from './remembered.ts';
import { settleWithPlan } from './settle-plan.ts';

type Defer = ((work: Promise<unknown>) => void) | undefined;

export interface RateLimitCount {
  /** Undefined when the limiter could not count (it fails open). */
  decision: RateLimitDecision | undefined;
  /**
   * The tenant counter window this request may have been counted in: counted and admitted, or sent and not answered
   * (a count whose reply was lost may have landed). The caller gives it back when the request did no work for the
   * tenant; taking back a count that never landed gives the tenant one more, never one less.
   */
  tenantCounter?: string;
}

export interface RateLimitContext {
  correlationId: string;
  defer: Defer;
  /** An unbound token on an organisation's route: its own limits are counted in the user's scope too, beside. */
  acrossOrganisations: boolean;
  /** Whether the organisation's role check admitted the caller (lib/auth/role-admission.ts); asked only on a plan miss. */
  roleAdmitted: () => Promise<boolean>;
}

/**
 * The decision for one request, undefined when the limiter could not count it (Redis down or slow: the request
 * goes on, unlimited; the first failure of an outage logs one `rate_limit_unavailable` WARN per isolate, and for
 * OUTAGE_PROBE_MS after each failure the isolate does not ask Redis at all). Rejects only on a defect (RedisDefectError).
 * A caller this isolate already refused is refused again from memory (`rememberedRefusal`), which the middleware
 * asks first; this function asks too, for callers of it that do not.
 * The organisation's count and, for an unbound token, the user-scope count go out together: two scripts (two slots on
 * a cluster), no round trip in sequence. A missing plan entry makes the decision wait for the role check and, once it
 * admitted a member, for one read of the plan in PostgreSQL, so a plan that lowers a quota holds from the first
 * request; nobody else's request reads or fills a plan (docs/design/limits.md#plan-limits).
 */
export async function checkRateLimit(deps: Deps, target: RateLimitTarget, context: RateLimitContext): Promise<RateLimitCount> {
  const memo = deps.rateLimits;
  const nowMs = deps.clock.now();
  const remembered = rememberedRefusal(deps, target, nowMs, context.acrossOrganisations);
  if (remembered !== undefined) return { decision: remembered };
  if (memo.skipping(nowMs)) return { decision: undefined };
  const [org, across] = await Promise.allSettled([
    countRequest(deps, target, nowMs),
    context.acrossOrganisations ? countRequest(deps, userScopeTarget(target), nowMs) : Promise.resolve(undefined),
  ]);
  // A defect of ours never opens the limiter (lib/redis/reply-class.ts).
  if (across.status === 'rejected') rethrowDefect(across.reason);
  if (org.status === 'rejected') {
    rethrowDefect(org.reason);
    // Fail open (docs/design/failure-semantics.md#failure-semantics): no key, no subject in the log.
    if (memo.failed(deps.clock.now())) {
      deps.logger.warn('rate_limit_unavailable', { errorKind: errorKind(org.reason), correlationId: context.correlationId });
    }
    return { decision: undefined, ...(await unansweredTenantCounter(deps, target, nowMs)) };
  }
  memo.answered();
  const { decision, tenantCounter } = await organisationDecision(deps, target, org.value, context);
  return {
    // The user-scope count alone failing leaves the organisation's decision, as a limiter that fails open would.
    decision: across.status === 'fulfilled' && across.value !== undefined ? combineAcross(decision, decide(across.value)) : decision,
    ...(tenantCounter !== undefined ? { tenantCounter } : {}),
  };
}

async function unansweredTenantCounter(deps: Deps, target: RateLimitTarget, nowMs: number): Promise<{ tenantCounter?: string }> {
  if (target.organizationId === undefined) return {};
  const windows = await counterWindows(deps, target, nowMs);
  return { tenantCounter: windows.keys[windows.kinds.indexOf('tenant') * 3]! };
}

async function organisationDecision(
  deps: Deps,
  target: RateLimitTarget,
  reply: CountReply,
  context: RateLimitContext,
): Promise<{ decision: RateLimitDecision; tenantCounter?: string }> {
  const tenant = reply.windows.kinds.indexOf('tenant');
  // Each limit's current window comes first of its three keys (counters.ts).
  const counted = reply.admitted && tenant >= 0 ? { tenantCounter: reply.windows.keys[tenant * 3]! } : {};
  if (reply.planFound || target.organizationId === undefined || !(await context.roleAdmitted())) {
    return { decision: decide(reply), ...counted };
  }
  const plan = await planOf(deps, target.organizationId, context);
  if (plan === undefined) return { decision: decide(reply), ...counted };
  const settled = settleWithPlan(reply, quotasFor(deps.config.rateLimitScale, plan));
  if (!settled.giveBack) return { decision: settled.decision, ...counted };
  // The plan refuses what the defaults counted: every counter gets this request back, after the answer.
  const giveBack = refundCounts(
    deps,
    reply.windows.kinds.map((_, i) => reply.windows.keys[i * 3]!),
  );
  if (context.defer !== undefined) context.defer(giveBack);
  return { decision: settled.decision };
}

/**
 * The plan from PostgreSQL, one read shared by this isolate's concurrent misses of the organisation; then the cache
 * entry is filled with it after the answer. Undefined when it
 * cannot be read (the defaults then decide, as a limiter that fails open) or the organisation is gone.
 */
async function planOf(deps: Deps, organizationId: string, context: RateLimitContext): Promise<PlanLimits | undefined> {
  let plan: PlanLimits | undefined;
  try {
    plan = await deps.inflight.run(`ratelimit.plan:${organizationId}`, () => loadPlan(deps, organizationId));
  } catch (error) {
    deps.logger.warn('rate_limit_plan_unavailable', { errorKind: errorKind(error), correlationId: context.correlationId });
    return undefined;
  }
  // Filled whenever it was read: only an admitted member's miss reads it, and a miss left unfilled would send every
  // member's request to PostgreSQL in sequence until it is.
  if (plan !== undefined) {
    const fill = fillPlanLimits(deps, organizationId, context.correlationId, plan).catch((error: unknown) => {
      deps.logger.warn('rate_limit_plan_unavailable', { errorKind: errorKind(error), correlationId: context.correlationId });
    });
    if (context.defer !== undefined) context.defer(fill);
  }
  return plan;
}
