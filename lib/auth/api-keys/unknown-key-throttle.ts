// The per-address limit on key checks that cost PostgreSQL and end refused, across organisations (api-key-miss-ip):
// each organisation's own counter (api-key-refused-ip) lives in its slot, so one address naming many organisations
// would pass every one of them (docs/design/api-keys.md#unknown-keys-across-organisations).
import type { Deps } from '../../deps.ts';
import { errorKind } from '../../log/logger.ts';
import { redisCall, rethrowDefect } from '../../redis/index.ts';
import { retryAfter, throttle } from '../../runtime/throttle/index.ts';

export type UnknownKeyGate = { allowed: true } | { allowed: false; retryAfterSeconds: number };

/**
 * Read before a check reads PostgreSQL (a miss, or the organisation's view a second old): one GET on the platform
 * counter, never on a hit. Fails open like every throttle; the check itself still fails closed.
 */
export async function unknownKeyGate(deps: Deps, target: { clientIp: string | undefined; correlationId: string }): Promise<UnknownKeyGate> {
  const window = await throttle.ipWindow(deps, { action: 'api-key-miss-ip', clientIp: target.clientIp });
  let spent: string | null;
  try {
    spent = await redisCall('apiKeys.unknownKeyGate', () => deps.redis.throttle.get<string>(window.key));
  } catch (error) {
    rethrowDefect(error);
    deps.logger.warn('throttle_unavailable', {
      action: 'api-key-miss-ip',
      errorKind: errorKind(error),
      correlationId: target.correlationId,
    });
    return { allowed: true };
  }
  // The counter as Redis keeps it: a decimal string (the clients do not deserialize), absent before the first refusal.
  if (spent === null || !(Number(spent) >= window.limit)) return { allowed: true };
  // The counter's TTL is the window's end (set with its first hit), so the window says how long to wait.
  return { allowed: false, retryAfterSeconds: retryAfter(undefined, window.ttlSeconds) };
}

/** One refusal that cost PostgreSQL, counted after the answer is known (fails open: a lost count only lets one more through). */
export async function countUnknownKey(deps: Deps, target: { clientIp: string | undefined; correlationId: string }): Promise<void> {
  await throttle.hitIp(deps, { action: 'api-key-miss-ip', clientIp: target.clientIp, correlationId: target.correlationId });
}
