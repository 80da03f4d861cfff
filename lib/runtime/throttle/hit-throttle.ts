// throttle.hit: one script counts a hit in its fixed window; over the limit is a typed refusal, an unreachable Redis lets the hit through.
import { errorKind } from '../../log/logger.ts';
import { defineScript, rethrowDefect, runScript } from '../../redis/index.ts';
import type { Deps } from '../../deps.ts';
import { LUA_THROTTLE_HIT } from './lua.ts';
import { throttleWindow, type ThrottleSubject, type ThrottleWindow } from './window.ts';

/**
 * KEYS[1] throttle counter (registry row throttleCounter)
 * ARGV[1] seconds left in the window (the TTL of a new or TTL-less counter)
 * Returns {count, seconds left}.
 */
export const THROTTLE_HIT = defineScript({
  name: 'throttle.hit',
  keys: ['counter'],
  args: ['windowTtl'],
  source: `
local counter_key = KEYS[1]
local window_ttl = tonumber(ARGV[1])
${LUA_THROTTLE_HIT}
local count, ttl = hit_throttle(counter_key, window_ttl)
return {count, ttl}
`,
});

export type ThrottleOutcome = { allowed: true } | { allowed: false; retryAfterSeconds: number };

/**
 * Seconds a refused caller is told to wait: the counter's TTL, never past the end of the window the app counts in
 * (the next window is a new key, whatever the old one's TTL says), and never 0 (Redis rounds the last half second down).
 */
export function retryAfter(ttlSeconds: unknown, windowLeftSeconds: number): number {
  const ttl = typeof ttlSeconds === 'number' && Number.isFinite(ttlSeconds) ? Math.ceil(ttlSeconds) : windowLeftSeconds;
  return Math.max(1, Math.min(ttl, windowLeftSeconds));
}

export async function hitThrottle(deps: Deps, target: ThrottleSubject & { correlationId: string }): Promise<ThrottleOutcome> {
  const window = await throttleWindow(deps, target);
  let reply: unknown;
  try {
    reply = await runScript(deps.redis.throttle, THROTTLE_HIT, { keys: { counter: window.key }, args: { windowTtl: window.ttlSeconds } });
  } catch (error) {
    // A defect of ours (a WRONGTYPE, a script error) never opens the throttle: it is a 500 (lib/redis/reply-class.ts).
    rethrowDefect(error);
    // Fail open (docs/design/failure-semantics.md#failure-semantics): availability wins, this WARN is the signal. No key, no subject.
    deps.logger.warn('throttle_unavailable', { action: target.action, errorKind: errorKind(error), correlationId: target.correlationId });
    return { allowed: true };
  }
  return throttleOutcome(reply, window);
}

/** What THROTTLE_HIT's reply `{count, seconds left}` means in `window`; anything unreadable lets the hit through. */
export function throttleOutcome(reply: unknown, window: ThrottleWindow): ThrottleOutcome {
  const [count, ttl] = Array.isArray(reply) ? reply : [];
  if (typeof count !== 'number' || count <= window.limit) return { allowed: true };
  return { allowed: false, retryAfterSeconds: retryAfter(ttl, window.ttlSeconds) };
}
