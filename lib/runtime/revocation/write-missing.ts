// The denylist write of a repair page, shared by the full pass (repair-denylist.ts) and the targeted one
// (catch-up-denylist.ts): each missing entry written, none that exists touched.
import { redisCall } from '../../redis/index.ts';
import type { CronBudget } from '../cron-task/budget.ts';
import type { Deps } from '../../deps.ts';

export interface RevokedRow {
  /** The session's id, or the revoked_tokens row's own id (a uuid too, so one (revoked_at, id) order pages both). */
  id: string;
  /** Set for a single token's row: the SHA-256 of its jti, which names its key. */
  jti_sha256: string | null;
  /** Microseconds, UTC (the output name differs from the column's, so ORDER BY sorts by the column, in index order). */
  revoked_at_utc: string;
  ttl_seconds: number;
}

/**
 * One pipeline for the page on the revocation store: `SET key 1 EX ttl NX` per revocation, so an entry that exists is
 * never touched and a missing one is written, with no read before the write to race. A pipeline, not a script: each
 * entry stands alone, so nothing needs them written together, and the point moves only after the page (in the catch-up's
 * own script). SET NX is safe to send twice, so the retrySafe client carries it. The budget counts one command per key.
 */
export async function writeMissing(deps: Deps, budget: CronBudget, rows: RevokedRow[]): Promise<number> {
  const due = rows.filter((row) => row.ttl_seconds > 0);
  if (due.length === 0) return 0;
  budget.spend(due.length);
  const replies = await redisCall('revocation.repairDenylist', () => {
    const pipeline = deps.revocation.retrySafe.pipeline();
    for (const row of due) {
      const key = row.jti_sha256 === null ? deps.keys.revokedSession(row.id) : deps.keys.revokedJti(row.jti_sha256);
      pipeline.set(key, '1', { ex: row.ttl_seconds, nx: true });
    }
    // keepErrors: a per-command error must be seen, or the cursor would move past an entry that was never written.
    return pipeline.exec({ keepErrors: true });
  });
  if (!Array.isArray(replies) || replies.length !== due.length) throw new Error('denylist repair: malformed pipeline reply');
  let written = 0;
  for (const reply of replies) {
    if (reply.error !== undefined) throw new Error('denylist repair: a write failed');
    if (reply.result === 'OK') written += 1;
  }
  return written;
}
