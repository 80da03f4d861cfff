// throttle.hitSignIn: a password attempt's two counters in one script — the lock per (organisation, email, address) and
// the per-(organisation, email) count that sets the wait before the derivation (docs/design/sign-in.md#login-throttles).
import { errorKind } from '../../log/logger.ts';
import { defineScript, runScript } from '../../redis/index.ts';
import type { Deps } from '../../deps.ts';
import { retryAfter } from './hit-throttle.ts';
import { ipSubject } from './ip-subject.ts';
import { SIGN_IN_DELAY, THROTTLE_LIMITS } from './limits.ts';
import { LUA_THROTTLE_HIT } from './lua.ts';
import { throttleWindow } from './window.ts';

/**
 * KEYS[1] login-address counter, KEYS[2] login counter (registry row throttleCounter; both `org:{<orgId>}`, one slot)
 * ARGV[1] seconds left in login-address's window, ARGV[2] login-address's limit, ARGV[3] seconds left in login's window
 * Returns {address count, seconds left} when the address is over its limit (the email's count untouched: an attempt
 * refused here runs no derivation and adds nothing to the wait of others), else {address count, seconds left, email count}.
 */
export const SIGN_IN_THROTTLE_HIT = defineScript({
  name: 'throttle.sign-in-hit',
  keys: ['addressCounter', 'emailCounter'],
  args: ['addressWindowTtl', 'addressLimit', 'emailWindowTtl'],
  source: `
local address_counter_key = KEYS[1]
local email_counter_key = KEYS[2]
local address_window_ttl = tonumber(ARGV[1])
local address_limit = tonumber(ARGV[2])
local email_window_ttl = tonumber(ARGV[3])
${LUA_THROTTLE_HIT}
local address_count, address_ttl = hit_throttle(address_counter_key, address_window_ttl)
if address_count > address_limit then return {address_count, address_ttl} end
local email_count = hit_throttle(email_counter_key, email_window_ttl)
return {address_count, address_ttl, email_count}
`,
});

export type SignInThrottleOutcome = { allowed: true; delayMs: number } | { allowed: false; retryAfterSeconds: number };

/** The wait before the derivation for the email's `count`-th attempt of its window (SIGN_IN_DELAY). */
export function signInDelayMs(count: number): number {
  const over = count - THROTTLE_LIMITS.login.limit;
  if (over <= 0) return 0;
  // 2^(over-1) passes maxMs long before it could overflow; the cap is applied first in effect.
  return Math.min(SIGN_IN_DELAY.maxMs, SIGN_IN_DELAY.firstMs * 2 ** Math.min(over - 1, 30));
}

/** Fails open like every throttle.hit: Redis not answering lets the attempt through, without a wait, and logs a WARN. */
export async function hitSignInThrottle(
  deps: Deps,
  target: { organizationId: string; email: string; clientIp: string | undefined; correlationId: string },
): Promise<SignInThrottleOutcome> {
  const scope = { kind: 'org', id: target.organizationId } as const;
  const [address, email] = await Promise.all([
    throttleWindow(deps, { action: 'login-address', scope, subject: ipSubject(target.clientIp) + ' ' + target.email }),
    throttleWindow(deps, { action: 'login', scope, subject: target.email }),
  ]);
  let reply: unknown;
  try {
    reply = await runScript(deps.redis.throttle, SIGN_IN_THROTTLE_HIT, {
      keys: { addressCounter: address.key, emailCounter: email.key },
      args: { addressWindowTtl: address.ttlSeconds, addressLimit: address.limit, emailWindowTtl: email.ttlSeconds },
    });
  } catch (error) {
    // No key, no email, no address in the log (docs/design/failure-semantics.md#failure-semantics).
    deps.logger.warn('throttle_unavailable', { action: 'login', errorKind: errorKind(error), correlationId: target.correlationId });
    return { allowed: true, delayMs: 0 };
  }
  const [addressCount, addressTtl, emailCount] = Array.isArray(reply) ? (reply as unknown[]) : [];
  if (typeof addressCount === 'number' && addressCount > address.limit) {
    return { allowed: false, retryAfterSeconds: retryAfter(addressTtl, address.ttlSeconds) };
  }
  return { allowed: true, delayMs: typeof emailCount === 'number' ? signInDelayMs(emailCount) : 0 };
}
