// The scheduled invite index cleanup on 10 000 expired members: commands and ms per run, and what 1 000 000 unrelated keys change (nothing).
import { randomBytes } from 'node:crypto';
import { uuidv7 } from 'uuidv7';
import { createBudget } from '../../lib/runtime/cron-task/budget.ts';
import { parseHashedSegment, toUuidN } from '../../lib/keys/index.ts';
import { defineScript, scriptWire } from '../../lib/redis/index.ts';
import { inviteIndexCleanupTask } from '../../lib/runtime/invites/index.ts';
import type { InviteCleanupReport } from '../../lib/runtime/invites/cleanup-indexes.ts';
import type { FigureBench, FigureResult } from '../operation.ts';
import { startBenchStack, type BenchStack } from '../stack.ts';

const ORGANIZATIONS = 1_000;
const EXPIRED_PER_ORGANIZATION = 10;
const UNRELATED_KEYS = 1_000_000;

/** Writes the unrelated keys `unrelated:<first>` to `unrelated:<last>` in one call (a batch of the million). */
const SET_UNRELATED = defineScript({
  name: 'bench.set-unrelated',
  keys: [],
  args: ['first', 'last'],
  source: `
local first = tonumber(ARGV[1])
local last = tonumber(ARGV[2])
for i = first, last do redis.call('SET', 'unrelated:' .. i, 'x') end
`,
});

interface Seeded {
  organizationId: string;
  members: Array<{ member: string; emailHash: string; score: number }>;
}

/** Ten expired invites per organisation, each in the org index, an email index of its own and the registry, as create leaves them. */
function workload(): Seeded[] {
  const now = Math.floor(Date.now() / 1000);
  return Array.from({ length: ORGANIZATIONS }, () => ({
    organizationId: uuidv7(),
    members: Array.from({ length: EXPIRED_PER_ORGANIZATION }, (_, j) => ({
      member: toUuidN(uuidv7()),
      emailHash: randomBytes(32).toString('hex'),
      score: now - 60 - j,
    })),
  }));
}

/** Straight into Redis (one pipeline, outside the proxies) with the app's key builders; the index TTLs outlive the members. */
async function seed(stack: BenchStack, orgs: Seeded[]): Promise<void> {
  const { keys } = stack.deps;
  const pipeline = stack.redis.pipeline();
  for (const { organizationId, members } of orgs) {
    for (const m of members) {
      const emailIndex = keys.inviteActiveByEmailHash(organizationId, parseHashedSegment(m.emailHash));
      pipeline.zadd(keys.inviteActiveByOrg(organizationId), m.score, m.member);
      pipeline.zadd(emailIndex, m.score, m.member);
      pipeline.expire(emailIndex, 10_800);
      pipeline.zadd(keys.inviteEmailIndexesByOrg(organizationId), m.score, m.emailHash);
    }
    pipeline.expire(keys.inviteActiveByOrg(organizationId), 10_800);
    pipeline.expire(keys.inviteEmailIndexesByOrg(organizationId), 10_800);
  }
  const results = await pipeline.exec();
  const failed = results?.find(([error]) => error !== null);
  if (failed !== undefined) throw failed[0] as Error;
}

async function run(stack: BenchStack, limits: { commands: number; timeMs: number }): Promise<{ report: InviteCleanupReport; ms: number }> {
  const budget = createBudget(limits, stack.deps.clock);
  const started = performance.now();
  const report = (await inviteIndexCleanupTask.run(stack.deps, budget, { correlationId: 'bench' })) as InviteCleanupReport;
  return { report, ms: performance.now() - started };
}

const resetCursor = (stack: BenchStack) => stack.db.query('DELETE FROM cron_cursors WHERE task = $1', [inviteIndexCleanupTask.name]);

export const cronCleanupBench: FigureBench = {
  name: 'cron.cleanup',
  describe:
    `invite-index-cleanup runs at the configured budget over ${ORGANIZATIONS * EXPIRED_PER_ORGANIZATION} expired invites ` +
    `(${ORGANIZATIONS} organisations; each invite in its org index and an email index); .unrelatedRatio: commands of one ` +
    `whole pass with ${UNRELATED_KEYS} unrelated keys in the Redis ÷ with none (target 1.0)`,
  async measure(teardown): Promise<FigureResult[]> {
    // A stack of its own (its own redis-server and scratch database): no other bench's organisations join the pass,
    // and the million keys never reach a REDIS_URL the bench was given.
    const stack = await startBenchStack(teardown, { DATABASE_URL: process.env.DATABASE_URL });
    const orgs = workload();
    await seed(stack, orgs);
    await stack.db.query(
      `INSERT INTO audit_events (id, occurred_at, organization_id, action, correlation_id)
         SELECT row.id, now() - interval '30 minutes', row.org, 'invite.created', 'bench' FROM unnest($1::uuid[], $2::uuid[]) AS row(id, org)`,
      [orgs.map(() => uuidv7()), orgs.map((org) => org.organizationId)],
    );

    const limits = { commands: stack.config.cron.taskCommandBudget, timeMs: stack.config.cron.taskTimeBudgetMs };
    const runs: Array<{ report: InviteCleanupReport; ms: number }> = [];
    do runs.push(await run(stack, limits));
    while (!runs.at(-1)!.report.done && runs.length < 1_000);
    const removed = runs.reduce((n, r) => n + r.report.removed, 0);
    if (removed !== 2 * ORGANIZATIONS * EXPIRED_PER_ORGANIZATION) throw new Error(`cron.cleanup: removed ${removed} members`);
    const commands = runs.reduce((n, r) => n + r.report.commands, 0);
    const ms = runs.map((r) => r.ms).sort((a, b) => a - b);

    // The same workload once more, each pass in one run with no budget to stop it: alone, then beside a million keys.
    const unlimited = { commands: 10_000_000, timeMs: 600_000 };
    const pass = async () => {
      await seed(stack, orgs);
      await resetCursor(stack);
      const once = await run(stack, unlimited);
      if (!once.report.done || once.report.removed !== removed) throw new Error('cron.cleanup: a whole pass did not clean the workload');
      return once;
    };
    const alone = await pass();
    for (let start = 0; start < UNRELATED_KEYS; start += 100_000) {
      // Straight into Redis, as the seed: the million keys stay out of the proxies' counts.
      const { keys, args } = scriptWire(SET_UNRELATED, { args: { first: start, last: start + 99_999 } });
      await stack.redis.eval(SET_UNRELATED.source, keys.length, ...keys, ...args);
    }
    const beside = await pass();

    return [
      {
        name: 'cron.cleanup',
        figures: {
          runs: runs.length,
          budget: limits.commands,
          commandsPerRun: round(commands / runs.length, 1),
          msPerRun: round(ms.reduce((a, b) => a + b, 0) / ms.length, 1),
          maxMs: round(ms.at(-1)!, 1),
          commands,
          removed,
        },
      },
      {
        name: 'cron.cleanup.unrelatedRatio',
        figures: {
          ratio: round(beside.report.commands / alone.report.commands, 3),
          commandsWithNone: alone.report.commands,
          commandsWithUnrelated: beside.report.commands,
          msWithNone: round(alone.ms, 1),
          msWithUnrelated: round(beside.ms, 1),
          unrelatedKeys: UNRELATED_KEYS,
        },
      },
    ];
  },
};

function round(value: number, digits: number): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}
