// The Syrve housekeeping task: a reconnect counter without a TTL (or with one past the cooldown) gets the cooldown, counters of disabled connections go, and nothing else is touched.
import pg from 'pg';
import { uuidv7 } from 'uuidv7';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createBudget } from '../../lib/runtime/cron-task/budget.ts';
import { systemClock } from '../../lib/deps.ts';
import { syrveHousekeepingTask } from '../../lib/runtime/syrve/index.ts';
import { startRedisServer, type RedisServerHandle } from '../../local/processes/redis-server.ts';
import { createScratchDatabase, DEFAULT_DATABASE_URL, type ScratchDatabase } from '../../local/processes/scratch-database.ts';
import { startStack, type TestStack } from '../support/stack.ts';

const COOLDOWN_SECONDS = 900;

let own: RedisServerHandle;
let scratch: ScratchDatabase;
let db: pg.Client;
let stack: TestStack;
let organizationId: string;

beforeAll(async () => {
  // A database of its own: the task walks every connection and keeps one cursor, which other test files would share.
  // A Redis of its own, so SCRIPT FLUSH costs no other test file a round trip.
  own = await startRedisServer();
  scratch = await createScratchDatabase(process.env.TEST_DATABASE_ADMIN_URL ?? DEFAULT_DATABASE_URL, 'test');
  db = new pg.Client({ connectionString: scratch.url });
  await db.connect();
  stack = await startStack({ redisUrl: own.url, env: { DATABASE_URL: scratch.url } });
  organizationId = uuidv7();
  await db.query('INSERT INTO organizations (id, name) VALUES ($1, $2)', [organizationId, 'Housekeeping org']);
});

afterAll(async () => {
  await stack?.close();
  await db?.end();
  await scratch?.drop();
  await own?.stop();
});

beforeEach(async () => {
  await db.query('DELETE FROM syrve_connections');
  await db.query('DELETE FROM cron_cursors');
});

const run = (commands = 1_000) =>
  syrveHousekeepingTask.run(stack.deps, createBudget({ commands, timeMs: 5_000 }, systemClock), { correlationId: uuidv7() });

/** A connection row (the task never opens the password, so the ciphertext is a stand-in); ids in insertion order. */
async function connection(enabled = true): Promise<string> {
  const id = uuidv7();
  await db.query(
    `INSERT INTO syrve_connections (id, organization_id, name, base_url, login, password_ciphertext, password_key_id, enabled)
     VALUES ($1, $2, $3, 'http://127.0.0.1:9', 'api', 'not-opened', 'test1', $4)`,
    [id, organizationId, `conn ${id}`, enabled],
  );
  return id;
}

const counterKey = (id: string) => stack.deps.keys.syrveReconnectFailures(organizationId, id);

async function counter(id: string): Promise<{ value: string | null; ttl: number }> {
  const key = counterKey(id);
  return { value: await stack.redis.get(key), ttl: await stack.redis.ttl(key) };
}

/** Every other runtime key of the connection, as stored: the session, its refresh lock, the credential version. */
async function otherState(id: string): Promise<Array<[string | null, number]>> {
  const keys = stack.deps.keys;
  const others = [
    keys.syrveRuntimeToken(organizationId, id),
    keys.syrveRuntimeTokenRefreshLock(organizationId, id),
    keys.syrveCredentialVersion(organizationId, id),
  ];
  return Promise.all(others.map(async (key): Promise<[string | null, number]> => [await stack.redis.get(key), await stack.redis.ttl(key)]));
}

describe('syrve housekeeping', () => {
  it('gives a counter without a TTL the cooldown, cuts one past it, deletes those of disabled connections, touches no session', async () => {
    const lost = await connection(); // an open circuit that lost its TTL: it would stay shut for good
    const live = await connection();
    const tooLong = await connection();
    const disabled = await connection(false);
    const unreadable = await connection();
    const wrongType = await connection();
    const clean = await connection();
    await stack.redis.set(counterKey(lost), '7');
    await stack.redis.set(counterKey(live), '3', 'EX', 300);
    await stack.redis.set(counterKey(tooLong), '2', 'EX', 5_000);
    await stack.redis.set(counterKey(disabled), '7', 'EX', 600);
    await stack.redis.set(counterKey(unreadable), 'seven');
    // A hand edit of another type: deleted, and the rest of the page still runs.
    await stack.redis.hset(counterKey(wrongType), 'count', '7');
    const all = [lost, live, tooLong, disabled, unreadable, wrongType, clean];
    for (const id of all) {
      const keys = stack.deps.keys;
      await stack.redis.set(keys.syrveRuntimeToken(organizationId, id), `{"session":"${id}"}`, 'EX', 600);
      await stack.redis.set(keys.syrveRuntimeTokenRefreshLock(organizationId, id), 'owner', 'PX', 15_000);
      await stack.redis.set(keys.syrveCredentialVersion(organizationId, id), '2', 'EX', 300);
    }
    const before = await Promise.all(all.map(otherState));

    const report = await run();
    expect(report).toEqual({ task: 'syrve-housekeeping', visited: 7, repaired: 2, removed: 3, commands: 1 + 1 + 1 + 7 + 1, done: true });

    const lostNow = await counter(lost);
    expect(lostNow.value).toBe('7');
    expect(lostNow.ttl).toBeGreaterThan(COOLDOWN_SECONDS - 5);
    expect(lostNow.ttl).toBeLessThanOrEqual(COOLDOWN_SECONDS);
    const liveNow = await counter(live);
    expect(liveNow.value).toBe('3');
    expect(liveNow.ttl).toBeGreaterThan(295);
    expect(liveNow.ttl).toBeLessThanOrEqual(300);
    const tooLongNow = await counter(tooLong);
    expect(tooLongNow.value).toBe('2');
    expect(tooLongNow.ttl).toBeLessThanOrEqual(COOLDOWN_SECONDS);
    expect(await counter(disabled)).toEqual({ value: null, ttl: -2 });
    expect(await counter(unreadable)).toEqual({ value: null, ttl: -2 });
    expect(await stack.redis.exists(counterKey(wrongType))).toBe(0);
    // No counter is made where there was none.
    expect(await counter(clean)).toEqual({ value: null, ttl: -2 });

    // Sessions, locks and versions: the same values, and TTLs that only ran down.
    const after = await Promise.all(all.map(otherState));
    after.forEach((state, i) =>
      state.forEach(([value, ttl], j) => {
        const [valueBefore, ttlBefore] = before[i]![j]!;
        expect(value).toBe(valueBefore);
        expect(ttl).toBeLessThanOrEqual(ttlBefore);
        expect(ttl).toBeGreaterThan(ttlBefore - 5);
      }),
    );

    // Idempotent: nothing left to do; and a Redis that lost its scripts (a restart) is no error, the page loads it.
    await stack.redis.script('FLUSH');
    expect(await run()).toMatchObject({ visited: 7, repaired: 0, removed: 0, done: true });
  });

  it('keeps to its budget and continues where it stopped', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 25; i++) ids.push(await connection());
    ids.sort();
    for (const id of ids) await stack.redis.set(counterKey(id), '7');
    const withTtl = async () => Promise.all(ids.map(async (id) => (await stack.redis.ttl(counterKey(id))) > 0));

    // 10 commands: the cursor read, one page of 6 connections (the SQL, the script load, one per counter), the cursor write.
    expect(await run(10)).toMatchObject({ visited: 6, repaired: 6, done: false, commands: 10 });
    expect(await withTtl()).toEqual(ids.map((_, i) => i < 6));
    expect(await run(10)).toMatchObject({ visited: 6, repaired: 6, done: false, commands: 10 });
    expect(await withTtl()).toEqual(ids.map((_, i) => i < 12));
    expect(await run()).toMatchObject({ visited: 13, repaired: 13, done: true });
    expect(await withTtl()).toEqual(ids.map(() => true));
    const { rows } = await db.query("SELECT cursor FROM cron_cursors WHERE task = 'syrve-housekeeping'");
    expect(rows[0].cursor).toBeNull();
  });
});
