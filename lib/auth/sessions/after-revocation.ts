// What follows a committed revocation: the denylist entries (revocation store) and the active contexts (main store),
// both best effort and side by side, since PostgreSQL already holds the truth.
import type { Deps } from '../../deps.ts';
import { activeContext } from '../context/index.ts';
import { revokeSessions } from '../../runtime/revocation/index.ts';

export interface CommittedRevocation {
  userId: string;
  sessionIds: readonly string[];
  /** Unix seconds when the presenting token dies; 0 when none of these sessions presented one (an admin's revoke). */
  tokenExpiresAt: number;
  nowMs: number;
  correlationId: string;
  /** The revocation clock's value the committing transaction took (lib/runtime/revocation/revocation-seq.ts). */
  revocationSeq: number | null;
}

/** The sessions whose denylist entry did not land; the denylist repair writes them from PostgreSQL on its next run. */
export async function afterRevocation(deps: Deps, revocation: CommittedRevocation): Promise<{ denylistPending: string[] }> {
  const [write] = await Promise.all([
    revokeSessions(deps.revocation, deps.keys, deps.logger, {
      userId: revocation.userId,
      sessionIds: revocation.sessionIds,
      tokenExpiresAt: revocation.tokenExpiresAt,
      sessionCoverSeconds: deps.config.accessTokenMaxLifetimeSeconds,
      nowMs: revocation.nowMs,
      correlationId: revocation.correlationId,
      revocationSeq: revocation.revocationSeq,
    }),
    activeContext.drop(deps, revocation),
  ]);
  return { denylistPending: write.notLanded };
}
