// The denylist write for one access token alone (its jti), for a token that must stop working while its session is not
// the presenter's to end: its `sid` names another user's session (lib/auth/logout.ts, lib/auth/sessions/revoke-all.ts).
import type { Keyspace } from '../../keys/index.ts';
import type { Logger } from '../../log/logger.ts';
import { sha256Hex } from '../../crypto/index.ts';
import { redisCall, type RedisStore } from '../../redis/index.ts';

export interface TokenRevocation {
  /** Whose token it is: the log line names the user, never the token or its jti. */
  userId: string;
  jti: string;
  /** Unix seconds when the token expires: the entry lives until then (registry row revokedJti). */
  tokenExpiresAt: number;
  nowMs: number;
  correlationId: string;
}

/**
 * `SET <revoked-jti key> 1 EX (exp − now)` on the atMostOnce client. Never throws: a failed write is logged
 * (`revocation_write_failed`) and the token passes until it expires, at most ACCESS_TOKEN_MAX_LIFETIME_SECONDS; no
 * PostgreSQL row records it, so the denylist repair cannot write it again.
 */
export async function revokeToken(
  store: RedisStore,
  keys: Keyspace,
  logger: Logger,
  revocation: TokenRevocation,
): Promise<{ written: boolean }> {
  const ttlSeconds = Math.max(1, revocation.tokenExpiresAt - Math.floor(revocation.nowMs / 1000));
  const key = keys.revokedJti(await sha256Hex(revocation.jti));
  let reply: unknown;
  try {
    reply = await redisCall('revocation.revokeToken', () => store.atMostOnce.set(key, '1', { ex: ttlSeconds }));
  } catch {
    reply = undefined;
  }
  const written = reply === 'OK';
  if (!written) {
    logger.error('revocation_write_failed', {
      userId: revocation.userId,
      correlationId: revocation.correlationId,
      failedCount: 1,
      sessionCount: 0,
      exposureSeconds: ttlSeconds,
    });
  }
  return { written };
}
