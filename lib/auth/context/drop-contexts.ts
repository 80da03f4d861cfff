// After sessions are revoked: their active contexts go too, best effort (they expire with the session anyway, and no
// revoked token can read them).
import type { Deps } from '../../deps.ts';
import { errorKind } from '../../log/logger.ts';
import { redisCall } from '../../redis/index.ts';
import { contextKey } from './context-record.ts';

/**
 * One `DEL` of every key: they are all in the user's scope, one hash tag, so one command serves them on any cluster.
 * Never throws; a failure is a WARN with the user, the count and the correlation id, never a key or session id.
 */
export async function dropActiveContexts(
  deps: Deps,
  input: { userId: string; sessionIds: readonly string[]; correlationId: string },
): Promise<boolean> {
  const keys = [...new Set(input.sessionIds)].map((sessionId) => contextKey(deps, { userId: input.userId, sessionId }));
  if (keys.length === 0) return true;
  try {
    await redisCall('context.drop', () => deps.redis.retrySafe.del(...keys));
    return true;
  } catch (error) {
    deps.logger.warn('context_delete_failed', {
      userId: input.userId,
      correlationId: input.correlationId,
      contextCount: keys.length,
      errorKind: errorKind(error),
    });
    return false;
  }
}
