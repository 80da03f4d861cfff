// On a Redis Cluster every denylist key is in one slot (the `denylist` hash tag), so the shard that holds the entries is
// the shard that holds the state: when it fails over to a replica that was behind, it loses its newest entries and the
// state written after them together, and the check sees its point behind the revocation clock
// (docs/design/revocation.md#one-slot-for-the-whole-denylist).
import calculateSlot from 'cluster-key-slot';
import { Redis as IORedis } from 'ioredis';
import { uuidv7 } from 'uuidv7';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { createScratchDatabase, DEFAULT_DATABASE_URL, type ScratchDatabase } from '../../local/processes/scratch-database.ts';
import { CLOCK_READ_EVERY_MS, REPLICATION_GRACE_MS } from '../../lib/runtime/revocation/revocation-clock.ts';
import { startStack, type TestStack } from '../support/stack.ts';

/** The window the design guarantees (a clock read at most a second after the commit, then the grace), and room for a
 * loaded two-core machine (as test/integration/revocation-partial-loss.test.ts). */
const WINDOW_MS = CLOCK_READ_EVERY_MS + REPLICATION_GRACE_MS + 700;

let scratch: ScratchDatabase;
let stack: TestStack;
let nodes: IORedis[];
let org: Awaited<ReturnType<TestStack['seedOrganization']>>;

beforeAll(async () => {
  // A database of its own, so the revocation clock counts this file's revocations only, and a key prefix of its own, so
  // its denylist state is not the one the other files of the cluster run share (the same slot, other keys).
  scratch = await createScratchDatabase(process.env.TEST_DATABASE_ADMIN_URL ?? DEFAULT_DATABASE_URL, 'test');
  stack = await startStack({ databaseUrl: scratch.url, env: { KEY_PREFIX: 'shardloss', RATE_LIMIT_SCALE: '100' } });
  nodes = inject('redisClusterNodes').map((url) => new IORedis(url));
  org = await stack.seedOrganization();
});

afterAll(async () => {
  const keys = (await stack?.redis.keys('shardloss:*')) ?? [];
  for (const key of keys) await stack.redis.del(key);
  for (const node of nodes ?? []) node.disconnect();
  await stack?.close();
  await scratch?.drop();
});

async function session(): Promise<{ sessionId: string; token: string }> {
  const sessionId = uuidv7();
  return { sessionId, token: await stack.token({ userId: org.adminId, sessionId }) };
}

/** GET /auth/context: 404 (no context set) once the token passed, 401 when revoked. */
async function check(token: string): Promise<number> {
  const response = await stack.request('GET', '/auth/context', { token });
  await response.body?.cancel();
  return response.status;
}

async function clock(): Promise<number> {
  const { rows } = await stack.db.query<{ seq: string }>('SELECT seq::text AS seq FROM revocation_clock');
  return Number(rows[0]?.seq);
}

/** The master that serves `key`'s slot, from the cluster's own slot map. */
async function shardOf(key: string): Promise<IORedis> {
  const slot = calculateSlot(key);
  const ranges = await nodes[0]!.cluster('SLOTS');
  const port = ranges.find(([start, end]) => start <= slot && slot <= end)?.[2]?.[1];
  const node = nodes.find((candidate) => candidate.options.port === port);
  if (node === undefined) throw new Error(`no master serves slot ${slot}`);
  return node;
}

async function waitFor(condition: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) expect.fail(`${what} within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The denylist whole, its point at the clock and the repair's lock let go (live traffic meanwhile). */
async function upToDate(live: string): Promise<void> {
  const keys = stack.deps.keys;
  await waitFor(
    async () => {
      await check(live);
      const raw = await stack.redis.get(keys.denylistState());
      const state = raw === null ? undefined : (JSON.parse(raw) as { state: string; applied: number });
      return state?.state === 'whole' && state.applied >= (await clock()) && (await stack.redis.exists(keys.denylistRepairLock())) === 0;
    },
    15_000,
    'the denylist was not whole and up to the clock',
  );
}

it('the shard holding the denylist loses its newest entries and the state after them: the revoked token is refused within the window and on every call after', async () => {
  const keys = stack.deps.keys;
  const live = await session();
  const victim = await session();
  const entry = keys.revokedSession(victim.sessionId);
  // Every denylist key in one slot: entries of any session or token, the state, the repair's lock.
  const slots = [keys.denylistState(), keys.denylistRepairLock(), entry, keys.revokedSession(uuidv7()), keys.revokedJti('ab'.repeat(32))];
  expect(new Set(slots.map((key) => calculateSlot(key))).size).toBe(1);

  await upToDate(live.token);
  const shard = await shardOf(keys.denylistState());
  expect(await shard.exists(keys.denylistState())).toBe(1);
  const before = { raw: await shard.get(keys.denylistState()), pttl: await shard.pttl(keys.denylistState()) };
  expect(await check(victim.token)).toBe(404);
  const sentAt = Date.now();
  expect((await stack.request('POST', '/auth/logout', { token: victim.token })).status).toBe(204);
  expect(await check(victim.token)).toBe(401);
  // The entry landed on the state's shard.
  expect(await shard.exists(entry)).toBe(1);

  // That shard fails over to a replica that lacked the newest writes: the entry, and the state the write moved after it.
  await shard.del(entry);
  await shard.set(keys.denylistState(), before.raw!, 'PX', before.pttl);

  await waitFor(async () => (await check(victim.token)) === 401, 10_000, 'the revoked token was not refused');
  expect(Date.now() - sentAt).toBeLessThanOrEqual(WINDOW_MS);
  // Every call after: from PostgreSQL while behind, then from the entry the catch-up wrote back.
  for (let i = 0; i < 20; i += 1) expect(await check(victim.token)).toBe(401);
  expect(await check(live.token)).toBe(404);
  await upToDate(live.token);
  expect(await shard.exists(entry)).toBe(1);
  expect(await check(victim.token)).toBe(401);
});
