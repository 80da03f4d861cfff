// A revocation store that loses only its newest writes — the entries and the state written after them, as a replica
// that was behind or a restore from a snapshot lacks both — still refuses every revoked token within 1 s plus the grace
// of its revocation's commit, and on every call after; live sessions keep working; PostgreSQL slow meanwhile is a 503,
// never a 200. The one loss the check cannot see, an older entry alone, is written back by the scheduled walk
// (docs/design/revocation.md#a-denylist-that-knows-how-far-it-has-come).
import { mkdtempSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Redis } from 'ioredis';
import pg from 'pg';
import { uuidv7 } from 'uuidv7';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startRedisServer, type RedisServerHandle } from '../../local/processes/redis-server.ts';
import { createScratchDatabase, DEFAULT_DATABASE_URL, type ScratchDatabase } from '../../local/processes/scratch-database.ts';
import { startRedisRestProxy } from '../../local/emulators/upstash/index.ts';
import { composeApp } from '../../local/stack/app.ts';
import { createJsonLogger } from '../../lib/log/logger.ts';
import { openRedisConnection, sendRaw } from '../../local/emulators/upstash/redis-connection.ts';
import { startLaggingLink } from '../../local/emulators/upstash/replica/lagging-link.ts';
import { systemClock } from '../../lib/deps.ts';
import { createBudget } from '../../lib/runtime/cron-task/budget.ts';
import { denylistRepairTask } from '../../lib/runtime/revocation/index.ts';
import { CLOCK_READ_EVERY_MS, REPLICATION_GRACE_MS } from '../../lib/runtime/revocation/revocation-clock.ts';
import { seedOrganization } from '../support/fixtures.ts';
import { openRedisInspector } from '../support/redis-inspector.ts';
import { startStack, type TestStack } from '../support/stack.ts';

/**
 * The window the design guarantees (a clock read at most a second after the commit, then the grace), and room for a
 * loaded two-core machine: the clock read's own round trip, the logout's (timed from before it), the polling step.
 */
const WINDOW_MS = CLOCK_READ_EVERY_MS + REPLICATION_GRACE_MS + 700;

let own: RedisServerHandle;
let dir: string;
let scratch: ScratchDatabase;
let db: pg.Client;
let stack: TestStack;
let store: Redis;
let org: Awaited<ReturnType<typeof seedOrganization>>;

beforeAll(async () => {
  // A Redis of its own (restarted from a snapshot, replaced by a replica) and a database of its own: the revocation
  // clock counts this file's revocations only.
  dir = mkdtempSync(join(tmpdir(), 'runstate-partial-loss-'));
  own = await startRedisServer({ dir });
  scratch = await createScratchDatabase(process.env.TEST_DATABASE_ADMIN_URL ?? DEFAULT_DATABASE_URL, 'test');
  db = new pg.Client({ connectionString: scratch.url });
  await db.connect();
  stack = await startStack({
    redisUrl: own.url,
    separateRevocationProxy: true,
    env: { DATABASE_URL: scratch.url, RATE_LIMIT_SCALE: '100' },
  });
  store = await openRedisInspector(own.url, false);
  org = await seedOrganization(db);
});

afterAll(async () => {
  await store?.quit().catch(() => undefined);
  await stack?.close();
  await db?.end();
  await scratch?.drop();
  await own?.stop();
  await rm(dir, { recursive: true, force: true });
});

beforeEach(async () => {
  stack.neonProxy.faults.clear();
  await store.del(stack.deps.keys.denylistRepairLock());
  await upToDate();
});

interface Session {
  sessionId: string;
  token: string;
}

async function session(): Promise<Session> {
  const sessionId = uuidv7();
  return { sessionId, token: await stack.token({ userId: org.adminId, sessionId }) };
}

/** Logs the session out; returns when the logout was sent, before which its commit cannot be. */
async function logout(s: Session): Promise<number> {
  const sentAt = Date.now();
  const response = await stack.request('POST', '/auth/logout', { token: s.token });
  expect(response.status).toBe(204);
  return sentAt;
}

/** GET /auth/context: 404 (no context set) once the token passed, 401 when revoked, 503 when the check had no answer. */
async function check(token: string): Promise<number> {
  const response = await stack.request('GET', '/auth/context', { token });
  await response.body?.cancel();
  return response.status;
}

async function clock(): Promise<number> {
  const { rows } = await db.query<{ seq: string }>('SELECT seq::text AS seq FROM revocation_clock');
  return Number(rows[0]?.seq);
}

async function state(): Promise<{ state: string; applied: number; pending?: number[] } | undefined> {
  const raw = await store.get(stack.deps.keys.denylistState());
  return raw === null ? undefined : (JSON.parse(raw) as { state: string; applied: number; pending?: number[] });
}

/** The state as it stood (value and remaining TTL), to put back as a store that went back in time would have it. */
async function snapshotState(): Promise<{ raw: string; pttl: number }> {
  const key = stack.deps.keys.denylistState();
  const [raw, pttl] = await Promise.all([store.get(key), store.pttl(key)]);
  if (raw === null || pttl <= 0) throw new Error('no denylist state to snapshot');
  return { raw, pttl };
}

async function restoreState(snapshot: { raw: string; pttl: number }): Promise<void> {
  await store.set(stack.deps.keys.denylistState(), snapshot.raw, 'PX', snapshot.pttl);
}

async function listed(s: Session): Promise<boolean> {
  return (await store.exists(stack.deps.keys.revokedSession(s.sessionId))) === 1;
}

/** Polls `condition` (traffic meanwhile: each poll is a request) until it holds; fails past the deadline. */
async function waitFor(condition: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) expect.fail(`${what} within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The denylist whole and its point at the clock (a repair, started by a request, has caught up). */
async function upToDate(): Promise<void> {
  const live = await session();
  await waitFor(
    async () => {
      await check(live.token);
      const current = await state();
      return (
        current?.state === 'whole' && current.applied >= (await clock()) && (await store.exists(stack.deps.keys.denylistRepairLock())) === 0
      );
    },
    15_000,
    'the denylist was not whole and up to the clock',
  );
}

/** Milliseconds from `sentAt` until the token is first refused (each poll a request). */
async function refusedAfter(token: string, sentAt: number): Promise<number> {
  await waitFor(async () => (await check(token)) === 401, 10_000, 'the revoked token was not refused');
  return Date.now() - sentAt;
}

describe('a denylist that knows how far it has come', () => {
  it('every revocation moves the point, also when they commit and land out of order', async () => {
    const before = await clock();
    await logout(await session());
    // Ten logouts at once: their writes land in any order, and the point waits for the gaps to close. A burst of
    // checks first opens the connections to the proxies (on a loaded machine the first burst can miss the check's
    // 800 ms deadline while they open, which is not what this test is about).
    await Promise.all(Array.from({ length: 10 }, async () => check((await session()).token)));
    await Promise.all(Array.from({ length: 10 }, async () => logout(await session())));
    const all = await Promise.all(Array.from({ length: 3 }, () => session()));
    const response = await stack.request('POST', '/auth/sessions/revoke-all', { token: all[0]!.token });
    expect(response.status).toBe(200);
    // Eleven logouts and one sign out everywhere: twelve values, each taken once.
    expect(await clock()).toBe(before + 12);
    expect(await state()).toMatchObject({ state: 'whole', applied: before + 12 });
    expect((await state())?.pending).toBeUndefined();
  });

  it('rolled back to just before the newest revocation (its entry and the state after it): refused within the window and on every call after', async () => {
    const live = await session();
    const victim = await session();
    expect(await check(victim.token)).toBe(404);
    const before = await snapshotState();
    const sentAt = await logout(victim);
    expect(await check(victim.token)).toBe(401);
    // The store goes back to before the revocation: the entry, and the point the writer recorded after it.
    await store.del(stack.deps.keys.revokedSession(victim.sessionId));
    await restoreState(before);

    const elapsed = await refusedAfter(victim.token, sentAt);
    expect(elapsed).toBeLessThanOrEqual(WINDOW_MS);
    // Every call after: from PostgreSQL while behind, then from the entry the catch-up wrote back.
    for (let i = 0; i < 20; i += 1) expect(await check(victim.token)).toBe(401);
    expect(await check(live.token)).toBe(404);
    await upToDate();
    expect(await listed(victim)).toBe(true);
    expect(await check(victim.token)).toBe(401);
    // The catch-up is targeted: it logged one request-started repair of kind catch-up.
    const repairs = stack.logs
      .map((line) => JSON.parse(line) as { event: string; kind?: string })
      .filter((line) => line.event === 'denylist_repair');
    expect(repairs.some((line) => line.kind === 'catch-up')).toBe(true);
  });

  it('PostgreSQL slow while the store is behind: 503 within the read deadline, never a 200', async () => {
    const live = await session();
    const victim = await session();
    const before = await snapshotState();
    const sentAt = await logout(victim);
    await store.del(stack.deps.keys.revokedSession(victim.sessionId));
    await restoreState(before);
    // A lock nobody releases keeps the catch-up from running: the store stays behind.
    await store.set(stack.deps.keys.denylistRepairLock(), '0'.repeat(32), 'PX', 60_000);
    expect(await refusedAfter(victim.token, sentAt)).toBeLessThanOrEqual(WINDOW_MS);

    stack.neonProxy.faults.set({ delayMs: 5_000 });
    try {
      for (const token of [victim.token, live.token]) {
        const startedAt = Date.now();
        expect(await check(token)).toBe(503);
        // The PostgreSQL read's deadline (1.5 s, lib/pg/call-policy.ts) and room for a loaded machine.
        expect(Date.now() - startedAt).toBeLessThan(1_500 + 700);
      }
    } finally {
      stack.neonProxy.faults.clear();
      await store.del(stack.deps.keys.denylistRepairLock());
    }
    expect(await check(victim.token)).toBe(401);
    expect(await check(live.token)).toBe(404);
  });

  it('an older entry lost alone is not seen by the check: the scheduled walk writes it back', async () => {
    const older = await session();
    await logout(older);
    await logout(await session());
    await upToDate();
    // An eviction or a hand: the point has gone past it, and nothing else marks it. Accepted, as documented...
    await store.del(stack.deps.keys.revokedSession(older.sessionId));
    expect(await check(older.token)).toBe(404);
    // ...until the scheduled run's walk of the window, which finds it missing in PostgreSQL's list and writes it.
    const report = await denylistRepairTask.run(stack.deps, createBudget({ commands: 10_000, timeMs: 30_000 }, systemClock), {
      correlationId: 'older-alone',
    });
    expect(report.repaired).toBe(1);
    expect(await listed(older)).toBe(true);
    expect(await check(older.token)).toBe(401);
  });

  it('restarted from an RDB snapshot taken before three revocations: all three refused within the window', async () => {
    const live = await session();
    const victims = await Promise.all(Array.from({ length: 3 }, () => session()));
    await store.save();
    const sentAt: number[] = [];
    for (const victim of victims) sentAt.push(await logout(victim));
    for (const victim of victims) expect(await check(victim.token)).toBe(401);

    // The same port and folder: the server loads dump.rdb, from before the three logouts (no save on the way down).
    await store.quit();
    await own.stop();
    own = await startRedisServer({ port: own.port, dir });
    store = await openRedisInspector(own.url, false);
    for (const victim of victims) expect(await listed(victim)).toBe(false);

    for (const [i, victim] of victims.entries()) expect(await refusedAfter(victim.token, sentAt[i]!)).toBeLessThanOrEqual(WINDOW_MS);
    await waitFor(async () => (await check(live.token)) === 404, 5_000, 'the live session was not let through');
    await upToDate();
    for (const victim of victims) {
      expect(await listed(victim)).toBe(true);
      expect(await check(victim.token)).toBe(401);
    }
  });

  it("a revocation store read through a replica 150 ms behind (the `lag` run's) raises no false alarm while another instance revokes: never behind, never a repair", async () => {
    const lagging = await startRedisRestProxy({ redisUrl: own.url, replicaLagMs: 150 });
    const lines: string[] = [];
    const isolate = composeApp(
      { ...stack.env, REVOCATION_REDIS_REST_URL: lagging.url, REVOCATION_REDIS_REST_TOKEN: lagging.token },
      { logger: createJsonLogger((line) => lines.push(line)) },
    );
    try {
      const live = await session();
      const revoked: Session[] = [];
      const until = Date.now() + CLOCK_READ_EVERY_MS + 2 * REPLICATION_GRACE_MS + 1_000;
      // Revocations through another instance (the primary's proxy) and checks through this one, side by side for longer
      // than a clock read and the grace: the point this instance reads is up to 150 ms old, inside the 500 ms grace.
      const revoking = (async () => {
        while (Date.now() < until) {
          const s = await session();
          await logout(s);
          revoked.push(s);
        }
      })();
      const checking = (async () => {
        while (Date.now() < until) {
          const passed = await isolate.request('GET', '/auth/context', { token: live.token });
          expect(passed.status).toBe(404);
        }
      })();
      await Promise.all([revoking, checking]);
      // Each revoked token is refused here too, once the replica has its entry.
      for (const s of revoked) {
        await waitFor(async () => (await isolate.request('GET', '/auth/context', { token: s.token })).status === 401, 2_000, 'not refused');
      }
      const events = lines.map((line) => (JSON.parse(line) as { event: string }).event);
      expect(events).not.toContain('denylist_behind');
      expect(events).not.toContain('denylist_repair');
      // The check is one script, which reaches the primary (as on a Global database): the replica's lag never reaches its
      // read, and the grace is left for the writer's own time between the commit and its script.
      expect(lagging.stats.replicaReads).toBe(0);
    } finally {
      await lagging.close();
    }
  });

  it('failover drill: the store replaced by a replica 2 s behind, which the proxy promotes in place; no revoked token through past its window, no live session refused past the grace', async () => {
    // The replica: a redis-server of its own replicating the store through a link that holds every byte 2 s.
    const link = await startLaggingLink({ host: '127.0.0.1', port: own.port }, 2_000);
    const replicaServer = await startRedisServer();
    const replica = await openRedisConnection(replicaServer.url);
    try {
      await sendRaw(replica, 'replicaof', ['127.0.0.1', String(link.port)]);
      await waitFor(
        async () => /^master_link_status:up/m.test(String(await sendRaw(replica, 'info', ['replication']))),
        30_000,
        'the replica did not sync',
      );
      const live = await Promise.all(Array.from({ length: 3 }, () => session()));
      for (const s of live) expect(await check(s.token)).toBe(404);
      // Revocations on both sides of the lag: the replica has the first ones (waited for), and lacks those sent after,
      // which the link still holds when the promotion comes.
      const revoked: Array<{ session: Session; sentAt: number }> = [];
      const revokeThree = async () => {
        for (let i = 0; i < 3; i += 1) {
          const s = await session();
          revoked.push({ session: s, sentAt: await logout(s) });
        }
      };
      await revokeThree();
      await waitFor(
        async () =>
          (await Promise.all(revoked.map(({ session: s }) => replica.exists(stack.deps.keys.revokedSession(s.sessionId))))).every(
            (found) => found === 1,
          ),
        10_000,
        'the replica did not receive the first revocations',
      );
      await revokeThree();

      // Promotion: the denylist's proxy turns the replica into the primary and answers from it on the same address,
      // the app's clients and their sockets unchanged, while checks keep coming: one in flight on the old primary
      // fails closed, never a 200 for a revoked token.
      const promotingAt = Date.now();
      let promoting = true;
      const during = (async () => {
        for (let i = 0; promoting; i += 1) {
          const { session: s, sentAt } = revoked[i % revoked.length]!;
          const status = await check(s.token);
          if (status !== 401) expect(Date.now() - sentAt, `a revoked token answered ${status}`).toBeLessThanOrEqual(WINDOW_MS);
          const alive = live[i % live.length]!;
          const liveStatus = await check(alive.token);
          if (liveStatus !== 404)
            expect(Date.now() - promotingAt, `a live session answered ${liveStatus}`).toBeLessThanOrEqual(REPLICATION_GRACE_MS);
        }
      })();
      await stack.revocationProxy.promote(replicaServer.url).finally(() => (promoting = false));
      const promotedAt = Date.now();
      await during;
      const lost = (
        await Promise.all(revoked.map(async ({ session: s }) => (await replica.exists(stack.deps.keys.revokedSession(s.sessionId))) === 0))
      ).filter(Boolean).length;
      expect(lost).toBeGreaterThan(0);

      // Traffic from every session until the denylist has caught up: a revoked token passes only inside its own
      // window, a live one is refused only inside the grace after the promotion.
      const deadline = Date.now() + 10_000;
      for (;;) {
        for (const { session: s, sentAt } of revoked) {
          const status = await check(s.token);
          if (status !== 401) expect(Date.now() - sentAt, `a revoked token answered ${status}`).toBeLessThanOrEqual(WINDOW_MS);
        }
        for (const s of live) {
          const status = await check(s.token);
          if (status !== 404)
            expect(Date.now() - promotedAt, `a live session answered ${status}`).toBeLessThanOrEqual(REPLICATION_GRACE_MS);
        }
        const raw = await replica.get(stack.deps.keys.denylistState());
        const applied = raw === null ? -1 : (JSON.parse(raw) as { applied: number }).applied;
        if (applied >= (await clock()) && Date.now() - promotedAt > WINDOW_MS) break;
        if (Date.now() > deadline) expect.fail('the promoted store did not catch up');
      }
      for (const { session: s } of revoked) expect(await replica.exists(stack.deps.keys.revokedSession(s.sessionId))).toBe(1);
      expect(String(await sendRaw(replica, 'info', ['replication']))).toMatch(/^role:master/m);
    } finally {
      replica.disconnect();
      await replicaServer.stop();
      await link.close();
    }
  });
});
