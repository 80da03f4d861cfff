// A count that found the organisation's plan entry missing, decided again under the plan read from PostgreSQL.
import type { CountReply } from './count-request.ts';
import { decide, type RateLimitDecision } from './decision.ts';
import type { RateLimitKind } from './limits.ts';

/**
 * The script counted under the defaults (it could not read the plan). Under the plan's quotas, the request is admitted
 * only if every limit had room before it, as the script would have judged it (lib/runtime/ratelimit/lua.ts): the reply's
 * current count includes this request, so the count before it is one less. A request the plan refuses must cost no
 * quota, so `giveBack` says its counts are to be taken back. A request the defaults refused counted nothing and stays
 * refused (a plan that raises a quota applies once its entry is cached: docs/design/limits.md#plan-limits).
 */
export function settleWithPlan(
  reply: CountReply,
  quotas: Record<RateLimitKind, number>,
): { decision: RateLimitDecision; giveBack: boolean } {
  if (!reply.admitted) return { decision: decide(reply), giveBack: false };
  const planned = reply.limits.map((limit) => ({ ...limit, quota: quotas[limit.kind] }));
  const before = planned.map((limit) => ({ ...limit, current: limit.current - 1 }));
  const weight = reply.windows.previousWeight;
  const room = before.every((limit) => Math.floor(limit.previous * weight) + limit.current < limit.quota);
  if (room) return { decision: decide({ admitted: true, limits: planned, windows: reply.windows }), giveBack: false };
  return { decision: decide({ admitted: false, limits: before, windows: reply.windows }), giveBack: true };
}
