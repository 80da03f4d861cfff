// The denylist repair task: after a FLUSHALL of the revocation store, or a failed logout write, revoked sessions are
// refused at once (PostgreSQL answers while the denylist is not whole), and one run writes every entry of the
// access-token lifetime again, and nothing else, and marks the denylist whole.
import pg from 'pg';
import { uuidv7 } from 'uuidv7';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createBudget } from '../../lib/runtime/cron-task/budget.ts';
import { systemClock } from '../../lib/deps.ts';
import { denylistRepairTask } from '../../lib/runtime/revocation/index.ts';
import { startRedisServer, type RedisServerHandle } from '../../local/processes/redis-server.ts';
import { createScratchDatabase, DEFAULT_DATABASE_URL, type ScratchDatabase } from '../../local/processes/scratch-database.ts';
import { composeApp } from '../../local/stack/app.ts';
import { seedOrganization } from '../support/fixtures.ts';
import { startStack, type TestStack } from '../support/stack.ts';
import { failingDenylistWrites, waitForWholeDenylist } from '../support/denylist.ts';

const LIFETIME_SECONDS = 900;

let own: RedisServerHandle;
let scratch: ScratchDatabase;
let db: pg.Client;
let stack: TestStack;
let org: Awaited<ReturnType<typeof seedOrganization>>;

beforeAll(async () => {
  // A Redis of its own, so FLUSHALL hits no other test file; a database of its own, because the task walks every
  // revoked session, which other test files would share.
  own = await startRedisServer();
  scratch = await createScratchDatabase(process.env.TEST_DATABASE_ADMIN_URL ?? DEFAULT_DATABASE_URL, 'test');
  db = new pg.Client({ connectionString: scratch.url });
  await db.connect();
  // The denylist behind a proxy of its own: its faults leave the main store alone.
  stack = await startStack({ redisUrl: own.url, separateRevocationProxy: true, env: { DATABASE_URL: scratch.url } });
  org = await seedOrganization(db);
});

afterAll(async () => {
  await stack?.close();
  await db?.end();
  await scratch?.drop();
  await own?.stop();
});

beforeEach(async () => {
  await db.query('DELETE FROM sessions');
  await stack.redis.flushall();
});

const run = (commands = 1_000) =>
  denylistRepairTask.run(stack.deps, createBudget({ commands, timeMs: 5_000 }, systemClock), { correlationId: uuidv7() });

/** A token of a new session of the seeded admin. */
async function newSession(): Promise<{ sessionId: string; token: string }> {
  const sessionId = uuidv7();
  return { sessionId, token: await stack.token({ userId: org.adminId, sessionId }) };
}

async function logout(token: string, request = stack.request): Promise<void> {
  expect((await request('POST', '/auth/logout', { token })).status).toBe(204);
}

/** Logs `n` sessions out through the API; returns them in the task's order, (revoked_at, id). */
async function loggedOut(n: number): Promise<Array<{ sessionId: string; token: string }>> {
  const sessions: Array<{ sessionId: string; token: string }> = [];
  for (let i = 0; i < n; i++) {
    const session = await newSession();
    await logout(session.token);
    sessions.push(session);
  }
  const { rows } = await db.query<{ id: string }>('SELECT id FROM sessions WHERE id = ANY($1) ORDER BY revoked_at, id', [
    sessions.map((s) => s.sessionId),
  ]);
  return rows.map((row) => sessions.find((s) => s.sessionId === row.id)!);
}

/** 200 when the token is let through, 401 with TOKEN_REVOKED when the denylist refuses it. */
async function answer(token: string): Promise<number | 'TOKEN_REVOKED'> {
  const response = await stack.request('GET', `/orgs/${org.organizationId}/invites`, { token });
  if (response.status !== 401) return response.status;
  return ((await response.json()) as { error: { code: string } }).error.code === 'TOKEN_REVOKED' ? 'TOKEN_REVOKED' : 401;
}

async function denylisted(sessions: Array<{ sessionId: string }>): Promise<boolean[]> {
  return Promise.all(sessions.map(async (s) => (await stack.redis.exists(stack.deps.keys.revokedSession(s.sessionId))) === 1));
}

async function denylistState(): Promise<string | undefined> {
  const raw = await stack.redis.get(stack.deps.keys.denylistState());
  return raw === null ? undefined : (JSON.parse(raw) as { state: string }).state;
}

/** Where the current pass stopped (null: at the window's start), as the denylist's state holds it. */
async function position(): Promise<unknown> {
  const raw = await stack.redis.get(stack.deps.keys.denylistState());
  return raw === null ? undefined : (JSON.parse(raw) as { position: unknown }).position;
}

describe('denylist repair', () => {
  it('after FLUSHALL, one run refuses every session revoked within the lifetime again (401), and none other', async () => {
    const revoked = await loggedOut(12);
    const live = await newSession();
    // Revoked 16 minutes ago (an app whose clock is behind): longer ago than any token of it can live.
    const old = await newSession();
    const past = composeApp(stack.env, { clock: { now: () => Date.now() - (LIFETIME_SECONDS + 60) * 1000 } });
    await logout(old.token, past.request);

    for (const s of revoked) expect(await answer(s.token)).toBe('TOKEN_REVOKED');
    await stack.redis.flushall();
    const startedAt = Date.now();
    // Refused at once: the denylist's state went with its entries, so each check asks PostgreSQL (and starts a repair).
    for (const s of revoked) expect(await answer(s.token)).toBe('TOKEN_REVOKED');
    expect(await answer(live.token)).toBe(200);
    // Traffic goes on meanwhile, as it would: an isolate starts a repair at a request, at most once a second.
    await waitForWholeDenylist(stack, () => answer(live.token));
    expect(await denylisted(revoked)).toEqual(revoked.map(() => true));
    for (const s of revoked) expect(await answer(s.token)).toBe('TOKEN_REVOKED');
    expect(await answer(live.token)).toBe(200);
    // Its token still has minutes to live (it was minted now), but the session was revoked longer ago than the
    // lifetime: not written again. A token living longer than ACCESS_TOKEN_MAX_LIFETIME_SECONDS is not covered.
    expect(await answer(old.token)).toBe(200);
    expect(await denylisted([old, live])).toEqual([false, false]);

    // Each TTL is what is left of the lifetime since the logout: no more, and not much less.
    const { rows } = await db.query<{ id: string; revoked_at: Date }>('SELECT id, revoked_at FROM sessions WHERE id = ANY($1)', [
      revoked.map((s) => s.sessionId),
    ]);
    for (const row of rows) {
      const ttl = await stack.redis.ttl(stack.deps.keys.revokedSession(row.id));
      const remaining = (row.revoked_at.getTime() + LIFETIME_SECONDS * 1000 - startedAt) / 1000;
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(Math.ceil(remaining));
      expect(ttl).toBeGreaterThanOrEqual(Math.floor(remaining) - 5);
    }
    expect(await position()).toBeNull();

    // Idempotent: a scheduled run finds every entry in place and writes nothing.
    const report = await run();
    expect(report).toMatchObject({ task: 'denylist-repair', visited: 12, repaired: 0, removed: 0, done: true });
    // The clock read, the pass read, one page, one per key, the whole mark.
    expect(report.commands).toBe(1 + 1 + 1 + 12 + 1);
  });

  it('repairs a logout whose denylist write failed, in one run', async () => {
    const session = await newSession();
    stack.revocationProxy.faults.set(await failingDenylistWrites());
    try {
      await logout(session.token);
    } finally {
      stack.revocationProxy.faults.clear();
    }
    expect(stack.logs.some((line) => (JSON.parse(line) as { event: string }).event === 'revocation_write_failed')).toBe(true);
    // The failed write dropped the denylist's state, so the token is refused at once (PostgreSQL answers)...
    expect(await answer(session.token)).toBe('TOKEN_REVOKED');
    // ...and a repair started by a check writes the entry back. (An isolate that already tried within the last second
    // tries again a second later, at its next request: a live session's, since the repair the logout's own check started
    // on the flushed store may have written the revoked session's entry before the failed write dropped the state.)
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    expect(await answer(session.token)).toBe('TOKEN_REVOKED');
    const live = await newSession();
    await waitForWholeDenylist(stack, () => answer(live.token));
    expect(await denylisted([session])).toEqual([true]);
    expect(await answer(session.token)).toBe('TOKEN_REVOKED');
  });

  it('keeps to its budget: a run with budget < N stops, and the next run continues where it stopped', async () => {
    const sessions = await loggedOut(30);
    await stack.redis.flushall();

    // 13 commands: the clock and pass reads, one page of 9 sessions (1 + 9), the position write; not whole yet.
    const first = await run(13);
    expect(first).toMatchObject({ visited: 9, repaired: 9, done: false, commands: 13 });
    expect(await denylisted(sessions)).toEqual(sessions.map((_, i) => i < 9));
    expect(await position()).toMatchObject({ sessionId: sessions[8]!.sessionId });
    expect(await denylistState()).toBe('repairing');

    // Flushed again: the position went with the entries, so the next run starts the window over.
    await stack.redis.flushall();
    const second = await run(13);
    expect(second).toMatchObject({ visited: 9, repaired: 9, done: false, commands: 13 });
    expect(await denylisted(sessions)).toEqual(sessions.map((_, i) => i < 9));

    // Not flushed: the same pass continues after its position, and once it has covered the window the denylist is whole.
    const third = await run();
    expect(third).toMatchObject({ visited: 21, repaired: 21, done: true });
    expect(await position()).toBeNull();
    expect(await denylistState()).toBe('whole');
    expect(await denylisted(sessions)).toEqual(sessions.map(() => true));
    for (const s of sessions) expect(await answer(s.token)).toBe('TOKEN_REVOKED');

    // Too small a budget for any page: nothing is sent.
    expect(await run(4)).toMatchObject({ visited: 0, done: false, commands: 0 });
  });

  it('a revocation store that fails stops the run with an error and keeps the position, so the next run repeats the page', async () => {
    const sessions = await loggedOut(5);
    await stack.redis.flushall();
    expect(await run(6)).toMatchObject({ visited: 2, repaired: 2, done: false });
    const before = await position();
    stack.revocationProxy.faults.set({ refuse: true });
    try {
      await expect(run()).rejects.toThrow();
    } finally {
      stack.revocationProxy.faults.clear();
    }
    expect(await position()).toEqual(before);
    expect(await run()).toMatchObject({ visited: 3, repaired: 3, done: true });
    expect(await denylisted(sessions)).toEqual(sessions.map(() => true));
  });

  it('two runs at once write each missing entry once', async () => {
    const sessions = await loggedOut(20);
    await stack.redis.flushall();
    const [a, b] = await Promise.all([run(), run()]);
    expect(a.repaired + b.repaired).toBe(20);
    expect(await denylisted(sessions)).toEqual(sessions.map(() => true));
  });
});
