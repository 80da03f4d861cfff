// What a count script's reply means: admitted with what each limit has left, or refused with when to come back.
import type { CountReply } from './count-request.ts';
import type { CounterWindows } from './counters.ts';
import { RATE_LIMIT_WINDOW_MS, type RateLimitKind } from './limits.ts';

export interface LimitState {
  kind: RateLimitKind;
  quota: number;
  /** Requests left in the sliding window after this one (0 on a limit that refused). */
  remaining: number;
  /** Seconds until this limit has room again: the window's end, or this limit's own wait when it refused. */
  resetSeconds: number;
  /** Counted in the user's own scope across organisations (an unbound token on an organisation's route), not the route's. */
  userScope?: true;
}

export type RateLimitDecision =
  { allowed: true; limits: LimitState[] } | { allowed: false; retryAfterSeconds: number; refused: RateLimitKind[]; limits: LimitState[] };

export function decide(
  reply: Pick<CountReply, 'admitted' | 'limits'> & { windows: Pick<CounterWindows, 'previousWeight' | 'windowLeftMs'> },
): RateLimitDecision {
  const { previousWeight, windowLeftMs } = reply.windows;
  const windowReset = Math.max(1, Math.ceil(windowLeftMs / 1_000));
  const weighted = (limit: { previous: number; current: number }) => Math.floor(limit.previous * previousWeight) + limit.current;
  if (reply.admitted) {
    return {
      allowed: true,
      limits: reply.limits.map(({ kind, quota, ...counts }) => ({
        kind,
        quota,
        remaining: Math.max(0, quota - weighted(counts)),
        resetSeconds: windowReset,
      })),
    };
  }
  const limits = reply.limits.map(({ kind, quota, ...counts }) =>
    weighted(counts) >= quota
      ? { kind, quota, remaining: 0, resetSeconds: Math.max(1, Math.ceil(waitMs({ quota, ...counts }, windowLeftMs) / 1_000)) }
      : { kind, quota, remaining: Math.max(0, quota - weighted(counts)), resetSeconds: windowReset },
  );
  const refused = limits.filter((limit, i) => weighted(reply.limits[i]!) >= limit.quota).map((limit) => limit.kind);
  return refusal(limits, refused);
}

/** A refusal by `refused` among `limits`: the caller may come back once every one of them has room. */
export function refusal(limits: LimitState[], refused: RateLimitKind[]): Extract<RateLimitDecision, { allowed: false }> {
  const waits = limits.filter((limit) => refused.includes(limit.kind)).map((limit) => limit.resetSeconds);
  return { allowed: false, retryAfterSeconds: Math.max(1, ...waits), refused, limits };
}

/**
 * What a caller the organisation's role check did not admit sees of a decision: their own limits, never the tenant's
 * (docs/design/limits.md#outsiders-spend-nothing). A refusal by the tenant's limit alone leaves their own limits with room.
 */
export function withoutTenant(decision: RateLimitDecision): RateLimitDecision {
  const limits = decision.limits.filter((limit) => limit.kind !== 'tenant');
  const refused = decision.allowed ? [] : decision.refused.filter((kind) => kind !== 'tenant');
  return refused.length === 0 ? { allowed: true, limits } : refusal(limits, refused);
}

/**
 * When a full limit has room again. Its own window full: just past the window's end (the count then only decays).
 * Full through the previous window's weight: once that weight has decayed below what the current window leaves,
 * i.e. elapsed / window > 1 - (quota - current) / previous.
 */
function waitMs(limit: { quota: number; current: number; previous: number }, windowLeftMs: number): number {
  const untilWindowEnd = windowLeftMs + 1;
  if (limit.current >= limit.quota || limit.previous === 0) return untilWindowEnd;
  const elapsed = RATE_LIMIT_WINDOW_MS - windowLeftMs;
  const roomAt = RATE_LIMIT_WINDOW_MS * (1 - (limit.quota - limit.current) / limit.previous);
  return Math.min(untilWindowEnd, Math.max(1, Math.floor(roomAt - elapsed) + 1));
}
