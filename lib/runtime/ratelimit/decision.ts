// What a count script's reply means: admitted with what each limit has left, or refused with when to come back.
import type { CountReply } from './count-request.ts';
import type { CounterWindows } from './counters.ts';
import { RATE_LIMIT_WINDOW_MS, type RateLimitKind } from './limits.ts';

export interface LimitState {
  kind: RateLimitKind;
  quota: number;
  /** Requests left in the sliding window after this one (0 on a limit that refused). */
  remaining: number;
  /** Seconds until this limit has room again: the window's end, or the retry-after on a limit that refused. */
  resetSeconds: number;
}

export type RateLimitDecision =
  | {
      allowed: true;
      limits: LimitState[];
      /** The tenant counter window this request was counted in (on an organisation's route), for a refund. */
      tenantCounter?: string;
    }
  | { allowed: false; retryAfterSeconds: number; refused: RateLimitKind[]; limits: LimitState[] };

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
  const refused = reply.limits.filter((limit) => weighted(limit) >= limit.quota);
  const retryAfterSeconds = Math.max(1, ...refused.map((limit) => Math.ceil(waitMs(limit, windowLeftMs) / 1_000)));
  const refusedKinds = refused.map((limit) => limit.kind);
  return {
    allowed: false,
    retryAfterSeconds,
    refused: refusedKinds,
    limits: reply.limits.map(({ kind, quota, ...counts }) =>
      refusedKinds.includes(kind)
        ? { kind, quota, remaining: 0, resetSeconds: retryAfterSeconds }
        : { kind, quota, remaining: Math.max(0, quota - weighted(counts)), resetSeconds: windowReset },
    ),
  };
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
