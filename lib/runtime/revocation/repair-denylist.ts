// The denylist repair task: sessions PostgreSQL holds as revoked within the longest access-token lifetime get their denylist entry back when it is missing.
import * as z from 'zod';
import { decodeJson, encodeJson, runScript, type LuaScript } from '../../redis/index.ts';
import { dbCall } from '../../pg/unavailable.ts';
import { readCursor, writeCursor } from '../../cron/cursor.ts';
import type { CronTask, TaskReport } from '../../cron/task.ts';
import type { CronBudget } from '../../cron/budget.ts';
import type { Deps } from '../../deps.ts';

/**
 * KEYS: revoked-session keys; ARGV[i]: the TTL seconds of KEYS[i] (a positive integer).
 * Writes each missing entry (`SET NX`), never touches one that exists; returns how many it wrote. One script for the
 * page, so the check and the write cannot be raced; safe to run twice and beside logout (both only ever add the marker).
 */
export const REPAIR_DENYLIST: LuaScript = {
  name: 'revocation.repair-denylist',
  source: `
local written = 0
for i, key in ipairs(KEYS) do
  local ttl = tonumber(ARGV[i])
  if ttl and ttl > 0 and redis.call('SET', key, '1', 'EX', ttl, 'NX') then written = written + 1 end
end
return written
`,
};

/** Sessions read per page: one SQL statement and one script each; the budget shrinks the last page. */
const PAGE_SIZE = 200;

/**
 * Where the last run stopped: the last session visited, in the order (revoked_at, id). Microseconds, because
 * PostgreSQL keeps them and a cursor rounded to milliseconds would skip or repeat rows. It holds a session id, which
 * is no secret from the database that keeps the sessions table beside it; it is never logged.
 */
const positionSchema = z.strictObject({ revokedAt: z.iso.datetime({ precision: 6 }), sessionId: z.uuid() });
type Position = z.infer<typeof positionSchema>;

/** With no cursor the page starts after (window start, the largest uuid): nothing revoked at the window's start. */
const LAST_UUID = 'ffffffff-ffff-ffff-ffff-ffffffffffff';

const TASK_NAME = 'denylist-repair';

interface RevokedRow {
  id: string;
  /** Microseconds, UTC (the output name differs from the column's, so ORDER BY sorts by the column, in index order). */
  revoked_at_utc: string;
  ttl_seconds: number;
}

/**
 * Chosen: the window is revoked_at in (now − lifetime, now], in pages after the cursor, and the entry's TTL is
 * revoked_at + lifetime − now, the most any token of the session can still live. An entry that exists is left as it
 * is (logout gave it the presenting token's remaining life); once it expires inside the window, the next run writes it
 * again with the longer TTL, so a token of that session issued after the presenting one is refused too.
 */
export const denylistRepairTask: CronTask = {
  name: TASK_NAME,
  async run(deps, budget) {
    const report: TaskReport = { task: TASK_NAME, visited: 0, removed: 0, repaired: 0, commands: 0, done: false };
    // Room for the cursor read, one SQL page of at least one session and its script, and the cursor write.
    if (budget.commandsLeft() < 4 || budget.exhausted()) return { ...report, commands: budget.used() };
    budget.spend(1);
    let position = decodeJson(positionSchema, await readCursor(deps, TASK_NAME)) ?? null;
    while (!budget.exhausted()) {
      // One command stays for the cursor write; the rest pays for the SQL page and its keys.
      const limit = Math.min(PAGE_SIZE, budget.commandsLeft() - 2);
      if (limit < 1) break;
      budget.spend(1);
      const rows = await revokedAfter(deps, position, limit);
      if (rows.length > 0) report.repaired += await writeMissing(deps, budget, rows);
      report.visited += rows.length;
      const last = rows.at(-1);
      if (last !== undefined) position = { revokedAt: last.revoked_at_utc, sessionId: last.id };
      if (rows.length < limit) {
        // The window is done: the next run starts again from now − lifetime.
        position = null;
        report.done = true;
        break;
      }
    }
    budget.spend(1);
    await writeCursor(deps, TASK_NAME, position === null ? null : encodeJson(positionSchema, position));
    return { ...report, commands: budget.used() };
  },
};

/** The next page of sessions revoked in (now − lifetime, now] after `position`, with the TTL each entry needs. */
async function revokedAfter(deps: Deps, position: Position | null, limit: number): Promise<RevokedRow[]> {
  const nowMs = deps.clock.now();
  const lifetime = deps.config.accessTokenMaxLifetimeSeconds;
  return dbCall('read', 'cron.denylist-repair.page', (signal) =>
    deps.db.query<RevokedRow>(
      // Served by sessions_revoked_idx (migrations/0008): the cost follows the window, not every session ever revoked.
      // A cursor from before the window (a run long ago) is overtaken by the window's own bound.
      `SELECT id,
              to_char(revoked_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS revoked_at_utc,
              ceil(extract(epoch FROM revoked_at - $2::timestamptz) + $5)::int AS ttl_seconds
         FROM sessions
        WHERE revoked_at > $1::timestamptz AND revoked_at <= $2::timestamptz
          AND (revoked_at, id) > (COALESCE($3::timestamptz, $1::timestamptz), $4::uuid)
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

/** One script for the page on the revocation store; the budget counts one command per key. */
async function writeMissing(deps: Deps, budget: CronBudget, rows: RevokedRow[]): Promise<number> {
  const due = rows.filter((row) => row.ttl_seconds > 0);
  if (due.length === 0) return 0;
  budget.spend(due.length);
  const written = await runScript(
    deps.revocation.retrySafe,
    REPAIR_DENYLIST,
    due.map((row) => deps.keys.revokedSession(row.id)),
    due.map((row) => String(row.ttl_seconds)),
  );
  return typeof written === 'number' ? written : 0;
}
