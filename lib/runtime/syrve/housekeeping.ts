// The Syrve housekeeping task: reconnect circuits that could outlive their cooldown get it back; circuits of disabled connections go.
import * as z from 'zod';
import { defineScript, redisCall, scriptSha, scriptWire } from '../../redis/index.ts';
import { dbCall } from '../../pg/unavailable.ts';
import { readCursor, writeCursor } from '../cron-task/cursor.ts';
import type { CronTask, TaskReport } from '../cron-task/task.ts';
import type { CronBudget } from '../cron-task/budget.ts';
import type { Deps } from '../../deps.ts';

/**
 * KEYS[1] a reconnect-failure counter; ARGV[1] the cooldown seconds, ARGV[2] '1' when its connection is enabled.
 * A counter of a disabled connection, or one that is not a count, is deleted (returns 2); a counter without a TTL, or
 * with one longer than the cooldown, gets the cooldown (returns 1); anything else is left alone (returns 0). Safe to
 * run twice and beside the request path: the failure script sets the cooldown itself, so what it leaves is within it.
 */
export const SYRVE_HOUSEKEEPING = defineScript({
  name: 'syrve.housekeeping',
  keys: ['failures'],
  args: ['cooldown', 'enabled'],
  source: `
local failures_key = KEYS[1]
local cooldown = tonumber(ARGV[1])
local enabled = ARGV[2] == '1'
-- pcall: a key of another type (a hand edit) is deleted like any unreadable counter, not an error.
local count = redis.pcall('GET', failures_key)
if not count then return 0 end
if not enabled or type(count) ~= 'string' or not string.match(count, '^%d+$') then
  redis.call('DEL', failures_key)
  return 2
end
local ttl = redis.call('TTL', failures_key)
if ttl == -1 or ttl > cooldown then
  redis.call('EXPIRE', failures_key, cooldown)
  return 1
end
return 0
`,
});

/** Connections read per page: one SQL statement and one pipeline each; the budget shrinks the last page. */
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
    // Room for the cursor read, one SQL page of at least one connection and its pipeline, and the cursor write.
    if (budget.commandsLeft() < 5 || budget.exhausted()) return { ...report, commands: budget.used() };
    budget.spend(1);
    const stored = z.uuid().safeParse(await readCursor(deps, TASK_NAME));
    let after = stored.success ? stored.data : null;
    while (!budget.exhausted()) {
      // One command stays for the cursor write; the rest pays for the SQL page, the script load and one per counter.
      const limit = Math.min(PAGE_SIZE, budget.commandsLeft() - 3);
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

/**
 * One pipeline for the page on the main store: SCRIPT LOAD, then the script once per counter by its SHA. Not one script
 * for the page: the counters belong to many organisations, and no script reaches across two scopes
 * (docs/design/keys.md#keys). Loading first, in the same round trip, means a Redis that lost its script cache never answers
 * NOSCRIPT here; pipelines run in order. The budget counts the load and one command per counter.
 */
async function tidyCounters(deps: Deps, budget: CronBudget, connections: ConnectionRef[]): Promise<{ repaired: number; removed: number }> {
  const sha = await scriptSha(SYRVE_HOUSEKEEPING);
  const cooldown = deps.config.syrve.reconnectCooldownSeconds;
  budget.spend(1 + connections.length);
  const replies = await redisCall(SYRVE_HOUSEKEEPING.name, () => {
    const pipeline = deps.redis.retrySafe.pipeline().scriptLoad(SYRVE_HOUSEKEEPING.source);
    for (const c of connections) {
      const { keys, args } = scriptWire(SYRVE_HOUSEKEEPING, {
        keys: { failures: deps.keys.syrveReconnectFailures(c.organization_id, c.id) },
        args: { cooldown, enabled: c.enabled ? '1' : '0' },
      });
      pipeline.evalsha(sha, keys, args);
    }
    // keepErrors: a per-command error must be seen, or the cursor would move past a counter never looked at.
    return pipeline.exec({ keepErrors: true });
  });
  if (!Array.isArray(replies) || replies.length !== 1 + connections.length) throw new Error('syrve housekeeping: malformed pipeline reply');
  const tally = { repaired: 0, removed: 0 };
  for (const reply of replies) {
    if (reply.error !== undefined) throw new Error('syrve housekeeping: a command failed');
    const outcome: unknown = reply.result;
    if (outcome === 1) tally.repaired += 1;
    if (outcome === 2) tally.removed += 1;
  }
  return tally;
}
