// The Syrve housekeeping task: reconnect circuits that could outlive their cooldown get it back; circuits of disabled connections go.
import * as z from 'zod';
import { runScript, type LuaScript } from '../../redis/index.ts';
import { dbCall } from '../../pg/unavailable.ts';
import { readCursor, writeCursor } from '../../cron/cursor.ts';
import type { CronTask, TaskReport } from '../../cron/task.ts';
import type { CronBudget } from '../../cron/budget.ts';
import type { Deps } from '../../deps.ts';

/**
 * KEYS: reconnect-failure counters; ARGV[1]: the cooldown seconds; ARGV[1 + i]: '1' when KEYS[i]'s connection is
 * enabled, '0' when it is disabled.
 * A counter of a disabled connection, or one that is not a count, is deleted; a counter without a TTL, or with one
 * longer than the cooldown, gets the cooldown. A counter with a TTL within the cooldown is left alone. Returns
 * {repaired, removed}. Safe to run twice and beside the request path: the failure script sets the cooldown itself, so
 * whatever it leaves is already within it.
 */
export const SYRVE_HOUSEKEEPING: LuaScript = {
  name: 'syrve.housekeeping',
  source: `
local cooldown = tonumber(ARGV[1])
local repaired = 0
local removed = 0
for i, key in ipairs(KEYS) do
  -- pcall: a key of another type (a hand edit) must not stop the whole page.
  local count = redis.pcall('GET', key)
  if count then
    if ARGV[i + 1] ~= '1' or type(count) ~= 'string' or not string.match(count, '^%d+$') then
      redis.call('DEL', key)
      removed = removed + 1
    else
      local ttl = redis.call('TTL', key)
      if ttl == -1 or ttl > cooldown then
        redis.call('EXPIRE', key, cooldown)
        repaired = repaired + 1
      end
    end
  end
end
return { repaired, removed }
`,
};

/** Connections read per page: one SQL statement and one script each; the budget shrinks the last page. */
const PAGE_SIZE = 200;

const TASK_NAME = 'syrve-housekeeping';

interface ConnectionRef {
  id: string;
  organization_id: string;
  enabled: boolean;
}

/**
 * "Expired" beyond the TTL, kept simple: the counter holds a count and nothing else (registry row
 * syrveReconnectFailures), so its age cannot be known; what can go wrong is a counter that would outlive one cooldown.
 * Without a TTL (a restore, a hand edit) it would shut the connection for good: it gets the cooldown. With a TTL longer
 * than the cooldown (set under a longer SYRVE_RECONNECT_COOLDOWN_SECONDS, or by hand) it is cut to the cooldown, which
 * is the most a failure counted now would get. A disabled connection's counter is deleted (disable deletes it, but a
 * call in flight may count once more; enable deletes it anyway). Sessions, locks and versions are never touched.
 */
export const syrveHousekeepingTask: CronTask = {
  name: TASK_NAME,
  async run(deps, budget) {
    const report: TaskReport = { task: TASK_NAME, visited: 0, removed: 0, repaired: 0, commands: 0, done: false };
    // Room for the cursor read, one SQL page of at least one connection and its script, and the cursor write.
    if (budget.commandsLeft() < 4 || budget.exhausted()) return { ...report, commands: budget.used() };
    budget.spend(1);
    const stored = z.uuid().safeParse(await readCursor(deps, TASK_NAME));
    let after = stored.success ? stored.data : null;
    while (!budget.exhausted()) {
      // One command stays for the cursor write; the rest pays for the SQL page and its keys.
      const limit = Math.min(PAGE_SIZE, budget.commandsLeft() - 2);
      if (limit < 1) break;
      budget.spend(1);
      const connections = await connectionsAfter(deps, after, limit);
      if (connections.length > 0) {
        const { repaired, removed } = await tidyCounters(deps, budget, connections);
        report.repaired += repaired;
        report.removed += removed;
      }
      report.visited += connections.length;
      after = connections.at(-1)?.id ?? after;
      if (connections.length < limit) {
        // Every connection visited: the next run starts from the first again.
        after = null;
        report.done = true;
        break;
      }
    }
    budget.spend(1);
    await writeCursor(deps, TASK_NAME, after);
    return { ...report, commands: budget.used() };
  },
};

/** The next page of connections by id (the primary key), after `after`. */
async function connectionsAfter(deps: Deps, after: string | null, limit: number): Promise<ConnectionRef[]> {
  return dbCall('read', 'cron.syrve-housekeeping.page', (signal) =>
    after === null
      ? deps.db.query<ConnectionRef>('SELECT id, organization_id, enabled FROM syrve_connections ORDER BY id LIMIT $1', [limit], {
          signal,
        })
      : deps.db.query<ConnectionRef>(
          'SELECT id, organization_id, enabled FROM syrve_connections WHERE id > $1 ORDER BY id LIMIT $2',
          [after, limit],
          { signal },
        ),
  );
}

/** One script for the page on the main store; the budget counts one command per counter. */
async function tidyCounters(deps: Deps, budget: CronBudget, connections: ConnectionRef[]): Promise<{ repaired: number; removed: number }> {
  budget.spend(connections.length);
  const reply = await runScript(
    deps.redis.retrySafe,
    SYRVE_HOUSEKEEPING,
    connections.map((c) => deps.keys.syrveReconnectFailures(c.organization_id, c.id)),
    [String(deps.config.syrve.reconnectCooldownSeconds), ...connections.map((c) => (c.enabled ? '1' : '0'))],
  );
  const [repaired, removed] = Array.isArray(reply) ? reply : [];
  return { repaired: typeof repaired === 'number' ? repaired : 0, removed: typeof removed === 'number' ? removed : 0 };
}
