// The denylist repair task: sessions PostgreSQL holds as revoked within the longest access-token lifetime, and single
// tokens revoked alone that have not expired, get their denylist entry back when it is missing, and a pass that covered
// the whole window marks the denylist whole. A whole denylist behind the revocation clock catches up first.
import { dbCall } from '../../pg/unavailable.ts';
import type { CronTask, TaskReport } from '../cron-task/task.ts';
import type { Deps } from '../../deps.ts';
import { catchUpDenylist } from './catch-up-denylist.ts';
import { beginRepairPass, completeRepairPass, savePassPosition, type PassPosition } from './denylist-state.ts';
import { readRevocationClock } from './revocation-clock.ts';
import { writeMissing, type RevokedRow } from './write-missing.ts';

/**
 * Revocations (sessions and single tokens) read per page: one SQL statement and one pipeline each; the budget shrinks
 * the last page.
 */
const PAGE_SIZE = 200;

/** With no position the page starts after (window start, the largest uuid): nothing revoked at the window's start. */
const LAST_UUID = 'ffffffff-ffff-ffff-ffff-ffffffffffff';

const TASK_NAME = 'denylist-repair';

/**
 * Chosen: the window is revoked_at in (now − lifetime, now], in pages after the pass's position, and the entry's TTL is
 * revoked_at + lifetime − now, the most any token of the session can still live. An entry that exists is left as it
 * is (logout gave it the presenting token's remaining life); once it expires inside the window, the next run writes it
 * again with the longer TTL, so a token of that session issued after the presenting one is refused too.
 */
export const denylistRepairTask: CronTask = {
  name: TASK_NAME,
  async run(deps, budget) {
    const report: TaskReport = { task: TASK_NAME, visited: 0, removed: 0, repaired: 0, commands: 0, done: false };
    // Room for the clock and pass reads, one SQL page of at least one session and its pipeline, and the position or
    // whole write.
    if (budget.commandsLeft() < 5 || budget.exhausted()) return { ...report, commands: budget.used() };
    budget.spend(2);
    // Read before the pass begins: a pass that begins now covers every revocation up to it once it walked the window.
    const clock = await readRevocationClock(deps);
    // The position lives in the state, on the store it describes (lib/runtime/revocation/denylist-state.ts): a store
    // that lost its entries lost the position with them, and the pass starts over.
    const pass = await beginRepairPass(deps, clock.seq);
    if (pass.state === 'whole' && pass.applied < clock.seq) {
      // Behind (the newest writes lost, or a write that did not land): the revocations after its point first, in clock
      // order, so the check stops asking PostgreSQL before the walk below has gone round.
      const caughtUp = await catchUpDenylist(deps, budget, pass);
      report.visited += caughtUp.visited;
      report.repaired += caughtUp.repaired;
    }
    let position = pass.position;
    while (!budget.exhausted()) {
      // One command stays for the position or whole write; the rest pays for the SQL page and its keys.
      const limit = Math.min(PAGE_SIZE, budget.commandsLeft() - 2);
      if (limit < 1) break;
      budget.spend(1);
      const rows = await revokedAfter(deps, position, limit);
      if (rows.length > 0) report.repaired += await writeMissing(deps, budget, rows);
      report.visited += rows.length;
      const last = rows.at(-1);
      // The position's `sessionId` is the last row's id, a session's or a revoked_tokens row's: both are uuids.
      if (last !== undefined) position = { revokedAt: last.revoked_at_utc, sessionId: last.id };
      if (rows.length < limit) {
        // The window is done: every revocation PostgreSQL knows is on the denylist, unless the state moved on
        // meanwhile. The next pass starts again from now − lifetime.
        report.done = true;
        break;
      }
    }
    budget.spend(1);
    if (report.done) {
      // The walk also writes back an older entry lost alone (an eviction), which no point can show.
      if (!(await completeRepairPass(deps, pass.epoch))) deps.logger.warn('denylist_incomplete', { reason: 'state-moved' });
    } else if (position !== null && position !== pass.position) {
      await savePassPosition(deps, pass.epoch, position);
    }
    return { ...report, commands: budget.used() };
  },
};

/**
 * The next page of sessions and single tokens revoked in (now − lifetime, now] after `position`, with the TTL each entry
 * needs: a session's covers any token it may still present, a token's ends at its own exp. A token revoked before the
 * window has expired by now (no token lives longer than the lifetime), so the same window covers both.
 */
async function revokedAfter(deps: Deps, position: PassPosition | null, limit: number): Promise<RevokedRow[]> {
  const nowMs = deps.clock.now();
  const lifetime = deps.config.accessTokenMaxLifetimeSeconds;
  return dbCall('read', 'cron.denylist-repair.page', (signal) =>
    deps.db.query<RevokedRow>(
      // Served by sessions_revoked_idx (migrations/0007): the cost follows the window, not every session ever revoked.
      // A position from before the window (a pass long ago) is overtaken by the window's own bound.
      // Each branch is served by its (revoked_at, id) index (sessions_revoked_idx in migrations/0007,
      // revoked_tokens_revoked_idx in migrations/0019) and limited on its own before the merge.
      `SELECT id, jti_sha256,
              to_char(revoked_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS revoked_at_utc, ttl_seconds
         FROM (
           (SELECT id, NULL::text AS jti_sha256, revoked_at,
                   ceil(extract(epoch FROM revoked_at - $2::timestamptz) + $5)::int AS ttl_seconds
              FROM sessions
             WHERE revoked_at > $1::timestamptz AND revoked_at <= $2::timestamptz
               AND (revoked_at, id) > (COALESCE($3::timestamptz, $1::timestamptz), $4::uuid)
             ORDER BY revoked_at, id
             LIMIT $6)
           UNION ALL
           (SELECT id, jti_sha256, revoked_at, ceil(extract(epoch FROM expires_at - $2::timestamptz))::int
              FROM revoked_tokens
             WHERE revoked_at > $1::timestamptz AND revoked_at <= $2::timestamptz
               AND (revoked_at, id) > (COALESCE($3::timestamptz, $1::timestamptz), $4::uuid)
             ORDER BY revoked_at, id
             LIMIT $6)
         ) AS revoked
        ORDER BY revoked_at, id
        LIMIT $6`,
      [
        new Date(nowMs - lifetime * 1000).toISOString(),
        new Date(nowMs).toISOString(),
        position?.revokedAt ?? null,
        position?.sessionId ?? LAST_UUID,
        lifetime,
        limit,
      ],
      { signal },
    ),
  );
}
