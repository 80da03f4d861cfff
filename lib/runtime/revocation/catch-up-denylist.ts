// The targeted repair: a denylist whose state is whole but behind the revocation clock (it lost its newest writes) gets
// the revocations after its own point back from PostgreSQL, in clock order, and its point moved up, without walking the
// window (docs/design/revocation.md#a-denylist-that-knows-how-far-it-has-come).
import { dbCall } from '../../pg/unavailable.ts';
import type { CronBudget } from '../cron-task/budget.ts';
import type { Deps } from '../../deps.ts';
import { catchUpApplied } from './denylist-state.ts';
import { writeMissing, type RevokedRow } from './write-missing.ts';

/** Revocations read per page: one SQL statement and one pipeline each; the budget shrinks the last page. */
const PAGE_SIZE = 200;
/** Paged after (point, the largest uuid): the point's own revocation is already here. */
const LAST_UUID = 'ffffffff-ffff-ffff-ffff-ffffffffffff';

export interface CatchUpReport {
  visited: number;
  repaired: number;
  /** True when every revocation the clock had at the last page's read is on the denylist and the point says so. */
  done: boolean;
  /** The point after the run; undefined when the state moved on meanwhile (a flush: a full pass follows). */
  applied: number | undefined;
}

interface ClockRow extends Partial<RevokedRow> {
  clock_seq: string;
  revocation_seq: string | null;
}

/**
 * From `applied` (the state's point under `epoch`): pages of (revocation_seq, id) after it, each entry written when
 * missing (SET NX, as the full pass), then the point moved to the clock the last page read with it. A full page moves it
 * only below its last revocation, which may go on in the next page. The budget counts one command per SQL page, per key
 * and for the point's write.
 */
export async function catchUpDenylist(deps: Deps, budget: CronBudget, pass: { epoch: string; applied: number }): Promise<CatchUpReport> {
  const report: CatchUpReport = { visited: 0, repaired: 0, done: false, applied: pass.applied };
  let after = { seq: pass.applied, id: LAST_UUID };
  let reached = pass.applied;
  while (!budget.exhausted()) {
    const limit = Math.min(PAGE_SIZE, budget.commandsLeft() - 2);
    if (limit < 1) break;
    budget.spend(1);
    const page = await revokedAfterPoint(deps, after, limit);
    const rows = page.rows;
    if (rows.length > 0) report.repaired += await writeMissing(deps, budget, rows);
    report.visited += rows.length;
    const last = rows.at(-1);
    if (rows.length < limit) {
      // Every revocation up to the clock this statement read committed before it, so the page saw them all.
      reached = Math.max(reached, page.clock);
      report.done = true;
      break;
    }
    if (last !== undefined) {
      reached = Math.max(reached, last.seq - 1);
      after = { seq: last.seq, id: last.id };
    }
  }
  if (reached > pass.applied || report.done) {
    budget.spend(1);
    report.applied = await catchUpApplied(deps, pass.epoch, reached);
    if (report.applied === undefined) report.done = false;
  }
  return report;
}

/**
 * The clock, and the next page of sessions and single tokens revoked after `after` in (revocation_seq, id) order, in one
 * statement (one snapshot): the clock's row stays locked until a revoking transaction ends, so every value up to the one
 * read here has committed and its rows are visible to the same statement. Served by the revocation_seq indexes of
 * migrations/0024. A revocation older than the longest access-token lifetime gets no entry (ttl_seconds ≤ 0).
 */
async function revokedAfterPoint(
  deps: Deps,
  after: { seq: number; id: string },
  limit: number,
): Promise<{ clock: number; rows: (RevokedRow & { seq: number })[] }> {
  const nowMs = deps.clock.now();
  const lifetime = deps.config.accessTokenMaxLifetimeSeconds;
  const rows = await dbCall('read', 'revocation.catchUp.page', (signal) =>
    deps.db.query<ClockRow>(
      `SELECT c.seq::text AS clock_seq, r.id, r.jti_sha256, r.revocation_seq::text AS revocation_seq,
              to_char(r.revoked_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS revoked_at_utc, r.ttl_seconds
         FROM revocation_clock c
         LEFT JOIN LATERAL (
           (SELECT id, NULL::text AS jti_sha256, revocation_seq, revoked_at,
                   ceil(extract(epoch FROM revoked_at - $3::timestamptz) + $4)::int AS ttl_seconds
              FROM sessions
             WHERE revocation_seq IS NOT NULL AND (revocation_seq, id) > ($1::bigint, $2::uuid)
             ORDER BY revocation_seq, id
             LIMIT $5)
           UNION ALL
           (SELECT id, jti_sha256, revocation_seq, revoked_at, ceil(extract(epoch FROM expires_at - $3::timestamptz))::int
              FROM revoked_tokens
             WHERE revocation_seq IS NOT NULL AND (revocation_seq, id) > ($1::bigint, $2::uuid)
             ORDER BY revocation_seq, id
             LIMIT $5)
           ORDER BY revocation_seq, id
           LIMIT $5
         ) r ON true
        ORDER BY r.revocation_seq, r.id`,
      [after.seq, after.id, new Date(nowMs).toISOString(), lifetime, limit],
      { signal },
    ),
  );
  const clock = Number(rows[0]?.clock_seq ?? 0);
  const revoked = rows
    .filter((row) => row.revocation_seq !== null && row.id !== undefined && row.id !== null)
    .map((row) => ({
      id: row.id as string,
      jti_sha256: row.jti_sha256 ?? null,
      revoked_at_utc: row.revoked_at_utc as string,
      ttl_seconds: Number(row.ttl_seconds),
      seq: Number(row.revocation_seq),
    }));
  return { clock, rows: revoked };
}
