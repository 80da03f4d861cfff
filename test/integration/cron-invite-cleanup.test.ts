// The scheduled invite tasks on a Redis and a database of their own: 10 000 expired members cleaned within the budget, live ones untouched, two runs at once, a million unrelated keys, and reconciliation.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uuidv7 } from 'uuidv7';
import { createBudget } from '../../lib/runtime/cron-task/budget.ts';
import type { Deps } from '../../lib/deps.ts';
import { parseHashedSegment, toUuidN } from '../../lib/keys/index.ts';
import type { InviteCleanupReport } from '../../lib/runtime/invites/cleanup-indexes.ts';
import { inviteIndexCleanupTask, inviteReconcileTask } from '../../lib/runtime/invites/index.ts';
import type { InviteReconcileTaskReport } from '../../lib/runtime/invites/reconcile-task.ts';
import { LIB_SCRIPTS } from '../support/lib-scripts.ts';
import { startRedisServer, type RedisServerHandle } from '../../local/processes/redis-server.ts';
import { createScratchDatabase, DEFAULT_DATABASE_URL, type ScratchDatabase } from '../../local/processes/scratch-database.ts';
import { newInvitee, startStack, type TestStack } from '../support/stack.ts';

// Its own redis-server and database: the million keys slow no other file, and no other file's invites or cursors
// reach these runs (the tasks visit every organisation with recent invites).
let server: RedisServerHandle;
let database: ScratchDatabase;
let stack: TestStack;
beforeAll(async () => {
  server = await startRedisServer();
  database = await createScratchDatabase(process.env.TEST_DATABASE_ADMIN_URL ?? DEFAULT_DATABASE_URL, 'test');
  stack = await startStack({ redisUrl: server.url, databaseUrl: database.url, separateRevocationProxy: true });
  // A warm script cache, as in production: a cold EVALSHA that misses its deadline never sends its EVAL at all.
  for (const script of LIB_SCRIPTS) await stack.redis.script('LOAD', script.source);
});
afterAll(async () => {
  await stack?.close();
  await server?.stop();
  await database?.drop();
});

const CLEANUP = inviteIndexCleanupTask.name;
/** Live index members expire in an hour; their index lives 3 hours (an older TTL is never lowered). */
const LIVE_SECONDS = 3_600;
const INDEX_TTL = 10_800;

interface Member {
  inviteId: string;
  member: string;
  emailHash: string;
  score: number;
}

interface ScenarioOrg {
  organizationId: string;
  /** Ten expired invites, each in the org index and an email index of its own. */
  expired: Member[];
  /** Every tenth organisation: two live invites, in the email indexes of expired ones #0 and #1. */
  live: Member[];
  /** The same organisations: one live-scored member whose object is gone, in an email index of its own. */
  orphans: Member[];
  /** The first organisation's indexes expire in a minute, before their newest member: the run raises them. */
  shortTtl: boolean;
}

function member(score: number, emailHash = randomBytes(32).toString('hex')): Member {
  const inviteId = uuidv7();
  return { inviteId, member: toUuidN(inviteId), emailHash, score };
}

function scenario(organizations: number): ScenarioOrg[] {
  const now = Math.floor(Date.now() / 1000);
  return Array.from({ length: organizations }, (_, i) => {
    const expired = Array.from({ length: 10 }, (_, j) => member(now - 60 - j));
    const withLive = i % 10 === 0;
    return {
      organizationId: uuidv7(),
      expired,
      live: withLive ? [0, 1].map((j) => member(now + LIVE_SECONDS + j, expired[j]!.emailHash)) : [],
      orphans: withLive ? [member(now + LIVE_SECONDS)] : [],
      shortTtl: i === 0,
    };
  });
}

const emailIndexKey = (organizationId: string, emailHash: string) =>
  stack.deps.keys.inviteActiveByEmailHash(organizationId, parseHashedSegment(emailHash));

/** Straight into Redis with the registry's key builders (one pipeline), and each organisation's `invite.created` row in one INSERT. */
async function seed(orgs: ScenarioOrg[], { audit = true } = {}): Promise<void> {
  const { keys } = stack.deps;
  const pipeline = stack.redis.pipeline();
  for (const org of orgs) {
    const id = org.organizationId;
    const ttl = org.shortTtl ? 60 : INDEX_TTL;
    const orgIndex = keys.inviteActiveByOrg(id);
    const registry = keys.inviteEmailIndexesByOrg(id);
    // Ascending scores per hash: the registry keeps each email index's latest expiry, as create leaves it.
    for (const m of [...org.expired, ...org.live, ...org.orphans]) {
      pipeline.zadd(orgIndex, m.score, m.member);
      pipeline.zadd(emailIndexKey(id, m.emailHash), m.score, m.member);
      pipeline.expire(emailIndexKey(id, m.emailHash), ttl);
      pipeline.zadd(registry, m.score, m.emailHash);
    }
    for (const m of org.live) pipeline.set(keys.inviteObject(id, m.inviteId), 'seeded', 'EX', LIVE_SECONDS + 60);
    pipeline.expire(orgIndex, ttl);
    pipeline.expire(registry, INDEX_TTL);
  }
  const results = await pipeline.exec();
  const failed = results?.find(([error]) => error !== null);
  if (failed !== undefined) throw failed[0] as Error;
  if (!audit) return;
  await stack.db.query(
    `INSERT INTO audit_events (id, occurred_at, organization_id, action, correlation_id)
     SELECT row.id, now() - interval '30 minutes', row.org, 'invite.created', 'cron-test' FROM unnest($1::uuid[], $2::uuid[]) AS row(id, org)`,
    // Row ids are UUIDv7, as lib/pg/audit.ts writes them: the tasks find recent rows by their id.
    [orgs.map(() => uuidv7()), orgs.map((org) => org.organizationId)],
  );
}

const resetCursor = (task: string) => stack.db.query('DELETE FROM cron_cursors WHERE task = $1', [task]);

const configured = () => ({ commands: stack.config.cron.taskCommandBudget, timeMs: stack.config.cron.taskTimeBudgetMs });

interface Run {
  report: InviteCleanupReport;
  ms: number;
  used: number;
}

async function cleanupRun(limits: { commands: number; timeMs: number }, deps: Deps = stack.deps): Promise<Run> {
  const budget = createBudget(limits, deps.clock);
  const started = performance.now();
  const report = (await inviteIndexCleanupTask.run(deps, budget, { correlationId: 'cron-test' })) as InviteCleanupReport;
  return { report, ms: performance.now() - started, used: budget.used() };
}

/** A run may finish the step it started: one script or query, whose deadline is at most 2.5 s (the cursor write's, a commit). */
const ONE_STEP_MS = 2_500;

function expectWithinBudget(run: Run, limits: { commands: number; timeMs: number }): void {
  expect(run.used).toBeLessThanOrEqual(limits.commands);
  expect(run.report.commands).toBe(run.used);
  expect(run.ms).toBeLessThanOrEqual(limits.timeMs + ONE_STEP_MS);
}

async function runsUntilDone(limits: { commands: number; timeMs: number }, most: number): Promise<Run[]> {
  const runs: Run[] = [];
  while (runs.length < most) {
    const run = await cleanupRun(limits);
    expectWithinBudget(run, limits);
    runs.push(run);
    if (run.report.done) return runs;
  }
  throw new Error(`not done after ${most} runs`);
}

const sum = (runs: Run[], field: 'removed' | 'expiredRemoved' | 'orphansRemoved' | 'registryDropped' | 'repaired' | 'commands') =>
  runs.reduce((total, run) => total + run.report[field], 0);

/** When each key expires, in ms since the epoch (-2: missing, -1: no TTL). */
async function expiries(keys: string[]): Promise<number[]> {
  const pipeline = stack.redis.pipeline();
  for (const key of keys) pipeline.pttl(key);
  const now = Date.now();
  return ((await pipeline.exec()) ?? []).map(([, ms]) => (typeof ms === 'number' && ms >= 0 ? now + ms : (ms as number)));
}

async function existing(keys: string[]): Promise<number> {
  const pipeline = stack.redis.pipeline();
  for (const key of keys) pipeline.exists(key);
  return ((await pipeline.exec()) ?? []).reduce((total, [, n]) => total + (n as number), 0);
}

/** Index members expected after a clean pass, per key; a key not listed must be gone. */
function expectedAfter(orgs: ScenarioOrg[]): { kept: Map<string, string[]>; gone: string[] } {
  const { keys } = stack.deps;
  const kept = new Map<string, string[]>();
  const gone: string[] = [];
  for (const org of orgs) {
    const id = org.organizationId;
    const orgIndex = keys.inviteActiveByOrg(id);
    const registry = keys.inviteEmailIndexesByOrg(id);
    if (org.live.length === 0) gone.push(orgIndex, registry);
    else {
      kept.set(orgIndex, org.live.map((m) => m.member).sort());
      kept.set(registry, org.live.map((m) => m.emailHash).sort());
    }
    for (const m of org.live) kept.set(emailIndexKey(id, m.emailHash), [m.member]);
    for (const m of [...org.expired, ...org.orphans])
      if (!kept.has(emailIndexKey(id, m.emailHash))) gone.push(emailIndexKey(id, m.emailHash));
  }
  return { kept, gone };
}

async function expectCleaned(orgs: ScenarioOrg[]): Promise<void> {
  const { kept, gone } = expectedAfter(orgs);
  expect(await existing(gone)).toBe(0);
  for (const [key, members] of kept) expect((await stack.redis.zrange(key, 0, -1)).sort(), key).toEqual(members);
  const objects = orgs.flatMap((org) => org.live.map((m) => stack.deps.keys.inviteObject(org.organizationId, m.inviteId)));
  expect(await existing(objects)).toBe(objects.length);
}

/** What a clean pass removes from these organisations: every expired member twice (org and email index), every orphan twice. */
const removable = (orgs: ScenarioOrg[]) => orgs.reduce((n, org) => n + 2 * (org.expired.length + org.orphans.length), 0);

describe('invite index cleanup', () => {
  it('removes 10 000 expired members of 1 000 organisations within ⌈work ÷ budget⌉ + 1 runs, each within its budget; live members and their TTLs stay', async () => {
    const orgs = scenario(1_000);
    await seed(orgs);
    await resetCursor(CLEANUP);
    const limits = configured();
    const { kept } = expectedAfter(orgs);
    const short = orgs[0]!;
    const shortKeys = [
      stack.deps.keys.inviteActiveByOrg(short.organizationId),
      ...short.live.map((m) => emailIndexKey(short.organizationId, m.emailHash)),
    ];
    const liveKeys = [...kept.keys()].filter((key) => !shortKeys.includes(key));
    const before = await expiries(liveKeys);

    const runs = await runsUntilDone(limits, 200);

    const work = sum(runs, 'commands');
    expect(runs.length).toBeLessThanOrEqual(Math.ceil(work / limits.commands) + 1);
    // About 37 commands for an organisation with ten expired invites (two scripts), 57 with live ones to check.
    expect(work).toBeLessThanOrEqual(40 * orgs.length);
    expect(sum(runs, 'expiredRemoved')).toBe(20_000);
    expect(sum(runs, 'orphansRemoved')).toBe(200);
    expect(sum(runs, 'removed')).toBe(removable(orgs));
    // Every email index but the 200 holding a live invite is gone, and so is its registry entry.
    expect(sum(runs, 'registryDropped')).toBe(11 * 100 + 10 * 900 - 200);
    await expectCleaned(orgs);

    // Not one TTL of an index holding a live member moved (the org indexes and registries outlive their newest member).
    const after = await expiries(liveKeys);
    for (const [i, at] of after.entries()) expect(Math.abs(at - before[i]!), liveKeys[i]).toBeLessThan(100);
    // The indexes that would have expired before their newest member were raised to cover it, never lowered.
    expect(sum(runs, 'repaired')).toBe(shortKeys.length);
    const newest = [Math.max(...short.live.map((m) => m.score)), ...short.live.map((m) => m.score)];
    for (const [i, at] of (await expiries(shortKeys)).entries()) expect(at).toBeGreaterThanOrEqual((newest[i]! - 1) * 1_000);

    // The next pass finds nothing to remove.
    const again = await runsUntilDone(limits, 10);
    expect(sum(again, 'removed') + sum(again, 'repaired')).toBe(0);
  }, 180_000);

  it('two runs at once remove nothing twice and exceed no budget', async () => {
    const orgs = scenario(200);
    await seed(orgs);
    await resetCursor(CLEANUP);
    const limits = configured();
    const runs: Run[] = [];
    for (let round = 0; round < 100; round += 1) {
      const pair = await Promise.all([cleanupRun(limits), cleanupRun(limits)]);
      for (const run of pair) expectWithinBudget(run, limits);
      runs.push(...pair);
      if (pair.some((run) => run.report.done)) break;
    }
    expect(runs.some((run) => run.report.done)).toBe(true);
    // Whatever the first pair left behind, one more pass finishes; every member was counted by exactly one run.
    runs.push(...(await runsUntilDone(limits, 100)));
    expect(sum(runs, 'removed')).toBe(removable(orgs));
    await expectCleaned(orgs);
  }, 180_000);

  it('stops at its time budget, one step late at most, and resumes where it stopped', async () => {
    const orgs = scenario(100);
    await seed(orgs);
    await resetCursor(CLEANUP);
    const limits = { commands: 1_000_000, timeMs: 25 };
    const first = await cleanupRun(limits);
    expectWithinBudget(first, limits);
    expect(first.report.done).toBe(false);
    const rest = await runsUntilDone(configured(), 100);
    expect(first.report.removed + sum(rest, 'removed')).toBe(removable(orgs));
    await expectCleaned(orgs);
  }, 120_000);

  it('never touches PostgreSQL rows: the audit trail is read, nothing is written but its cursor', async () => {
    const counts = async () =>
      (
        await stack.db.query(
          `SELECT (SELECT count(*) FROM audit_events)::int AS audit, (SELECT count(*) FROM invite_outcomes)::int AS outcomes,
                  (SELECT count(*) FROM role_assignments)::int AS roles`,
        )
      ).rows[0] as Record<string, number>;
    const orgs = scenario(20);
    await seed(orgs);
    await resetCursor(CLEANUP);
    const before = await counts();
    await runsUntilDone(configured(), 10);
    expect(await counts()).toEqual(before);
  }, 60_000);
});

describe('invite reconciliation task', () => {
  it('finishes an accept whose reply was lost, exactly once, within its budget', async () => {
    const org = await stack.seedOrganization();
    const person = newInvitee();
    const created = await stack.request('POST', `/orgs/${org.organizationId}/invites`, {
      token: org.adminToken,
      body: { email: person.email, roleCode: 'Viewer' },
    });
    expect(created.status).toBe(201);
    const { invite, token } = (await created.json()) as { invite: { inviteId: string }; token: string };
    const bearer = await stack.token({ userId: person.userId, email: person.email });
    stack.redisProxy.faults.set({ delayMs: 2_600 });
    try {
      expect((await stack.request('POST', '/invites/accept', { token: bearer, body: { token } })).status).toBe(503);
    } finally {
      stack.redisProxy.faults.clear();
    }
    await new Promise((resolve) => setTimeout(resolve, 800));
    const outcome = async () =>
      (await stack.db.query('SELECT outcome FROM invite_outcomes WHERE invite_id = $1', [invite.inviteId])).rows.map(
        (r) => r.outcome as string,
      );
    expect(await outcome()).toEqual([]);

    // Past the grace period the receipt is the reconciler's; the runs walk every organisation with recent invites.
    const later: Deps = { ...stack.deps, clock: { now: () => Date.now() + 60_000 } };
    const limits = configured();
    const reconcileUntilDone = async () => {
      const reports: InviteReconcileTaskReport[] = [];
      for (let i = 0; i < 20 && !reports.at(-1)?.done; i += 1) {
        const budget = createBudget(limits, later.clock);
        const report = (await inviteReconcileTask.run(later, budget, { correlationId: 'cron-test' })) as InviteReconcileTaskReport;
        expect(report.commands).toBe(budget.used());
        expect(budget.used()).toBeLessThanOrEqual(limits.commands);
        reports.push(report);
      }
      expect(reports.at(-1)?.done).toBe(true);
      return reports;
    };
    await resetCursor(inviteReconcileTask.name);
    const first = await reconcileUntilDone();
    expect(first.reduce((n, r) => n + r.finished, 0)).toBe(1);
    expect(await outcome()).toEqual(['accepted']);
    const roles = await stack.db.query('SELECT role_code FROM role_assignments WHERE user_id = $1 AND organization_id = $2', [
      person.userId,
      org.organizationId,
    ]);
    expect(roles.rows.map((r) => r.role_code as string)).toEqual(['Viewer']);
    const second = await reconcileUntilDone();
    expect(second.reduce((n, r) => n + r.finished + r.visited, 0)).toBe(0);
    // The winner's late repeat still gets its answer.
    expect((await stack.request('POST', '/invites/accept', { token: bearer, body: { token } })).status).toBe(200);
  }, 60_000);
});

describe('cost and the unrelated keyspace', () => {
  it('a run with 1 000 000 unrelated keys in the same Redis costs the same commands as a run with none', async () => {
    const orgs = scenario(100);
    const unlimited = { commands: 1_000_000, timeMs: 600_000 };
    const measure = async () => {
      await seed(orgs, { audit: false });
      await resetCursor(CLEANUP);
      const run = await cleanupRun(unlimited);
      expect(run.report.done).toBe(true);
      await expectCleaned(orgs);
      return run.report;
    };
    await seed(orgs);
    // Whatever earlier tests left (a registry entry of an accepted invite) goes first, so both passes start alike.
    await runsUntilDone(unlimited, 1);
    const alone = await measure();
    // Far more keys than the invite state, none of them the cleanup's: as a shared production Redis holds.
    const load = 'for i = tonumber(ARGV[1]), tonumber(ARGV[2]) do redis.call("SET", "unrelated:" .. i, "x") end';
    for (let start = 0; start < 1_000_000; start += 100_000) await stack.redis.eval(load, 0, start, start + 99_999);
    expect(await stack.redis.dbsize()).toBeGreaterThanOrEqual(1_000_000);
    const beside = await measure();
    expect(beside.removed).toBe(alone.removed);
    expect(beside.commands).toBe(alone.commands);
  }, 600_000);
});
