// rateLimit.view: where a tenant or a user stands in its limits now, for an operator (GET /ops/…/rate-limit).
import type { Deps } from '../../deps.ts';
import { redisCall } from '../../redis/index.ts';
import { subjectCounters, type BlockSubject } from './blocked-counters.ts';
import { quotasFor, type RateLimitKind } from './limits.ts';
import { fillPlanLimits } from './plan.ts';

interface LimitView {
  kind: RateLimitKind;
  quota: number;
  /** The sliding window's count now, as the count script reckons it (lib/runtime/ratelimit/lua.ts). */
  used: number;
  blocked: boolean;
}

/** One MGET of the subject's windows (one slot), and the plan through the cache where the subject has an organisation. */
export async function viewBlock(deps: Deps, subject: BlockSubject, correlationId: string): Promise<LimitView[]> {
  const nowMs = deps.clock.now();
  const { windows, limits } = await subjectCounters(deps, subject, nowMs);
  const plan = subject.organizationId !== undefined ? await fillPlanLimits(deps, subject.organizationId, correlationId) : undefined;
  const quotas = quotasFor(deps.config.rateLimitScale, plan);
  const keys = limits.flatMap((limit) => [limit.currentKey, limit.previousKey, limit.nextKey]);
  const values = await redisCall('ratelimit.view', () => deps.redis.retrySafe.mget<(string | null)[]>(...keys));
  return limits.map((limit, i) => {
    const count = (value: unknown) => (typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : 0);
    const used = Math.floor(count(values[3 * i + 1]) * windows.previousWeight) + count(values[3 * i]) + count(values[3 * i + 2]);
    return { kind: limit.kind, quota: quotas[limit.kind], used, blocked: used >= quotas[limit.kind] };
  });
}
