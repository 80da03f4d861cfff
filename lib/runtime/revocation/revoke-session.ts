// The denylist write after PostgreSQL has committed a revocation: best effort, its failure logged with ids only.
import type { Keyspace } from '../../keys/index.ts';
import type { Logger } from '../../log/logger.ts';
import { redisCall, type RedisStore } from '../../redis/index.ts';

export interface SessionRevocation {
  sessionId: string;
  userId: string;
  /** Unix seconds when the presenting token dies. */
  tokenExpiresAt: number;
  /** The longest an access token may live (ACCESS_TOKEN_MAX_LIFETIME_SECONDS): another token of the same session,
   * issued later than the presenting one, may outlive it by up to this much, so the entry lives at least this long. */
  sessionCoverSeconds: number;
  nowMs: number;
  correlationId: string;
}

export async function revokeSession(
  store: RedisStore,
  keys: Keyspace,
  logger: Logger,
  revocation: SessionRevocation,
): Promise<{ written: boolean }> {
  const ttlSeconds = Math.max(1, revocation.tokenExpiresAt - Math.floor(revocation.nowMs / 1000), revocation.sessionCoverSeconds);
  try {
    // SET is idempotent, so retrySafe would serve as well; it keeps the single 2 s attempt it has always had.
    await redisCall('revocation.revokeSession', () =>
      store.atMostOnce.set(keys.revokedSession(revocation.sessionId), '1', { ex: ttlSeconds }),
    );
    return { written: true };
  } catch {
    // PostgreSQL already holds the revocation; the token stays usable until it expires (at most ttlSeconds).
    logger.error('revocation_write_failed', {
      userId: revocation.userId,
      correlationId: revocation.correlationId,
      exposureSeconds: ttlSeconds,
    });
    return { written: false };
  }
}
