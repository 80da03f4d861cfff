// The denylist write after PostgreSQL has committed revocations: one pipeline for all of them, each reply inspected,
// and the sessions whose entry did not land reported exactly (docs/design/revocation.md#revocation-writes-and-the-active-context).
import type { Keyspace } from '../../keys/index.ts';
import type { Logger } from '../../log/logger.ts';
import { redisCall, type RedisStore } from '../../redis/index.ts';
import { advanceApplied, forgetWhole } from './denylist-state.ts';

export interface SessionsRevocation {
  /** Whose sessions these are: the log line names the user (or, for an organisation's deletion, the organisation), never a session. */
  userId?: string;
  organizationId?: string;
  sessionIds: readonly string[];
  /** Unix seconds when the presenting token dies; 0 when no token of these sessions was presented (an admin's revoke). */
  tokenExpiresAt: number;
  /** The longest an access token may live (ACCESS_TOKEN_MAX_LIFETIME_SECONDS): any token of these sessions dies within
   * it, whenever it was issued, so every entry lives at least this long. */
  sessionCoverSeconds: number;
  nowMs: number;
  correlationId: string;
  /** The revocation clock's value the revoking transaction took (migrations/0024); null when it revoked nothing new. */
  revocationSeq: number | null;
}

export interface DenylistWrite {
  /** The sessions whose entry did not land (a per-item error, or the whole pipeline failed), in the order given. */
  notLanded: string[];
  ttlSeconds: number;
}

/**
 * `SET <revoked-session key> 1 EX ttl` per session in one pipeline on the atMostOnce client (one 2 s attempt, as the
 * single write always had). A pipeline is not atomic and its reply can hold an error per command, so every reply is
 * zipped with its session id: only an `OK` counts as landed, and a reply missing or malformed counts as not landed.
 * Not one script: revoked-session keys are platform keys without a hash tag, and no script reaches across slots.
 * Never throws: PostgreSQL already holds the revocations, and the denylist repair writes missed entries again.
 */
export async function revokeSessions(
  store: RedisStore,
  keys: Keyspace,
  logger: Logger,
  revocation: SessionsRevocation,
): Promise<DenylistWrite> {
  const ttlSeconds = Math.max(1, revocation.tokenExpiresAt - Math.floor(revocation.nowMs / 1000), revocation.sessionCoverSeconds);
  const sessionIds = [...new Set(revocation.sessionIds)];
  if (sessionIds.length === 0) {
    // A transaction that took a clock value without revoking a session (a repeat) has nothing to write: it is applied.
    await recordApplied(store, keys, logger, revocation);
    return { notLanded: [], ttlSeconds };
  }
  let replies: unknown;
  try {
    replies = await redisCall('revocation.revokeSessions', () => {
      const pipeline = store.atMostOnce.pipeline();
      for (const sessionId of sessionIds) pipeline.set(keys.revokedSession(sessionId), '1', { ex: ttlSeconds });
      // keepErrors: a per-command error must be seen, never taken for a result or thrown away with the others.
      return pipeline.exec({ keepErrors: true });
    });
  } catch {
    replies = undefined;
  }
  // A reply of another length cannot be zipped with the ids: none of them counts as landed.
  if (Array.isArray(replies) && replies.length !== sessionIds.length) replies = undefined;
  const notLanded = sessionIds.filter((_, index) => !landed(replies, index));
  if (notLanded.length > 0) {
    // These sessions are refused at once through PostgreSQL rather than after the next scheduled repair.
    await forgetWhole(store, keys);
    // Ids only, and not the sessions': the caller's answer lists them for their owner, a log line is read by operators.
    logger.error('revocation_write_failed', {
      userId: revocation.userId,
      organizationId: revocation.organizationId,
      correlationId: revocation.correlationId,
      failedCount: notLanded.length,
      sessionCount: sessionIds.length,
      exposureSeconds: ttlSeconds,
    });
  } else {
    await recordApplied(store, keys, logger, revocation);
  }
  return { notLanded, ttlSeconds };
}

/**
 * Once every entry landed, the state records the revocation as applied (one more round trip, after the entries: a
 * pipeline is not atomic, and the point must never pass an entry that did not land). Never throws: a point left behind
 * makes the check ask PostgreSQL after the grace and the repair catch up from it, so the log line is a WARN.
 */
async function recordApplied(store: RedisStore, keys: Keyspace, logger: Logger, revocation: SessionsRevocation): Promise<void> {
  if (revocation.revocationSeq === null) return;
  try {
    await advanceApplied(store, keys, revocation.revocationSeq);
  } catch {
    logger.warn('denylist_point_not_recorded', { userId: revocation.userId, correlationId: revocation.correlationId });
  }
}

function landed(replies: unknown, index: number): boolean {
  if (!Array.isArray(replies)) return false;
  const reply = replies[index] as { result?: unknown; error?: unknown } | undefined;
  return reply !== undefined && reply !== null && reply.error === undefined && reply.result === 'OK';
}
