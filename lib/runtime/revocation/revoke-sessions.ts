// The denylist write after PostgreSQL has committed revocations: one script for the revocation's entries and the point it
// moves, its reply inspected, and the sessions whose entry did not land reported exactly
// (docs/design/revocation.md#revocation-writes-and-the-active-context).
import type { Keyspace } from '../../keys/index.ts';
import type { Logger } from '../../log/logger.ts';
import type { RedisStore } from '../../redis/index.ts';
import { forgetWhole } from './denylist-state.ts';
import { writeRevocation } from './write-revocation.ts';

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
  /** The sessions whose entry did not land (the script failed or did not answer: all of them), in the order given. */
  notLanded: string[];
  ttlSeconds: number;
}

/**
 * `SET <revoked-session key> 1 EX ttl` per session and the state's point moved to the revocation, in one script
 * (lib/runtime/revocation/write-revocation.ts; one 2 s attempt, as the single write always had). A script is atomic, so
 * its one reply says whether every entry landed: only the count it wrote, equal to the sessions', counts as landed; an
 * error, a deadline or any other reply counts every session as not landed. Never throws: PostgreSQL already holds the
 * revocations, and the denylist repair writes missed entries again.
 */
export async function revokeSessions(
  store: RedisStore,
  keys: Keyspace,
  logger: Logger,
  revocation: SessionsRevocation,
): Promise<DenylistWrite> {
  const ttlSeconds = Math.max(1, revocation.tokenExpiresAt - Math.floor(revocation.nowMs / 1000), revocation.sessionCoverSeconds);
  const sessionIds = [...new Set(revocation.sessionIds)];
  // A transaction that took a clock value without revoking a session (a repeat) has no entry to write: the script
  // records it as applied all the same. One that took none and revoked nothing costs nothing.
  if (sessionIds.length === 0 && revocation.revocationSeq === null) return { notLanded: [], ttlSeconds };
  const landed = await writeRevocation(store, keys, {
    entries: sessionIds.map((sessionId) => keys.revokedSession(sessionId)),
    ttlSeconds,
    revocationSeq: revocation.revocationSeq,
  });
  if (landed) return { notLanded: [], ttlSeconds };
  if (sessionIds.length === 0) {
    // Only the point was not recorded: the check asks PostgreSQL after the grace and the repair catches it up.
    logger.warn('denylist_point_not_recorded', { userId: revocation.userId, correlationId: revocation.correlationId });
    return { notLanded: [], ttlSeconds };
  }
  // These sessions are refused at once through PostgreSQL rather than after the next scheduled repair.
  await forgetWhole(store, keys);
  // Ids only, and not the sessions': the caller's answer lists them for their owner, a log line is read by operators.
  logger.error('revocation_write_failed', {
    userId: revocation.userId,
    organizationId: revocation.organizationId,
    correlationId: revocation.correlationId,
    failedCount: sessionIds.length,
    sessionCount: sessionIds.length,
    exposureSeconds: ttlSeconds,
  });
  return { notLanded: sessionIds, ttlSeconds };
}
