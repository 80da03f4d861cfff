// A denylist that knows when it is whole: after the revocation store loses its data no revoked token is let through,
// not even for a moment, live sessions keep working, one repair runs across isolates, and the healthy path costs no
// PostgreSQL read.
import { decodeJwt } from 'jose';
import pg from 'pg';
import { uuidv7 } from 'uuidv7';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startRedisServer, type RedisServerHandle } from '../../local/processes/redis-server.ts';
import { createScratchDatabase, DEFAULT_DATABASE_URL, type ScratchDatabase } from '../../local/processes/scratch-database.ts';
import { composeApp } from '../../local/stack/app.ts';
import { sha256Hex } from '../../lib/crypto/index.ts';
import { createJsonLogger } from '../../lib/log/logger.ts';
import { seedOrganization } from '../support/fixtures.ts';
import { failingDenylistWrites, waitForWholeDenylist } from '../support/denylist.ts';
import { startStack, type TestStack } from '../support/stack.ts';

let own: RedisServerHandle;
let scratch: ScratchDatabase;
let db: pg.Client;
let stack: TestStack;
let org: Awaited<ReturnType<typeof seedOrganization>>;

beforeAll(async () => {
  // A Redis of its own (FLUSHALL hits no other file) and a database of its own (the repair walks every revoked session).
  own = await startRedisServer();
  scratch = await createScratchDatabase(process.env.TEST_DATABASE_ADMIN_URL ?? DEFAULT_DATABASE_URL, 'test');
  db = new pg.Client({ connectionString: scratch.url });
  await db.connect();
  // The traffic test sends hundreds of checks a second as one user; the API rate limits are not what it measures.
  stack = await startStack({
    redisUrl: own.url,
    separateRevocationProxy: true,
    env: { DATABASE_URL: scratch.url, RATE_LIMIT_SCALE: '100' },
  });
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
  await db.query('DELETE FROM revoked_tokens');
  await stack.redis.flushall();
});

type Request = TestStack['request'];

async function session(): Promise<string> {
  return stack.token({ userId: org.adminId, sessionId: uuidv7() });
}

async function revokedSession(): Promise<string> {
  const token = await session();
  expect((await stack.request('POST', '/auth/logout', { token })).status).toBe(204);
  return token;
}

/** One after another: setup, not the traffic under test. */
async function several(n: number, make: () => Promise<string>): Promise<string[]> {
  const made: string[] = [];
  for (let i = 0; i < n; i += 1) made.push(await make());
  return made;
}

/** GET /auth/context needs no PostgreSQL of its own: 404 (no context set) once the token passed, 401 when revoked. */
async function check(token: string, request: Request = stack.request): Promise<number> {
  const response = await request('GET', '/auth/context', { token });
  await response.body?.cancel();
  return response.status;
}

/** A live session's request, as traffic would send: while the denylist is not whole, it starts a repair. */
const poke = async () => check(await session());

const pgRequests = () => stack.neonProxy.stats.httpRequests + stack.neonProxy.stats.wsConnections;

/**
 * An isolate whose clock stands still, so it reads the revocation clock once (its first check) and not again a second
 * later: what is left to count is the check's own PostgreSQL reads.
 */
async function warmIsolate(): Promise<Request> {
  const now = Date.now();
  const isolate = composeApp(stack.env, { clock: { now: () => now } });
  expect(await check(await session(), isolate.request)).toBe(404);
  return isolate.request;
}

describe('a denylist that knows it is whole', () => {
  it('healthy: the check is one revocation round trip and no PostgreSQL read', async () => {
    const live = await session();
    const revoked = await revokedSession();
    expect(await check(live)).toBe(404);
    await waitForWholeDenylist(stack, poke);
    const isolate = await warmIsolate();
    stack.neonProxy.stats.reset();
    stack.revocationProxy.stats.reset();
    expect(await check(live, isolate)).toBe(404);
    expect(await check(revoked, isolate)).toBe(401);
    expect(pgRequests()).toBe(0);
    expect(stack.revocationProxy.stats.requests).toBe(2);
    // One script each: one billed command per check.
    expect(stack.revocationProxy.stats.commands).toBe(2);
  });

  it('after FLUSHALL: revoked tokens are refused on the very next request, live ones pass, and the denylist is repaired', async () => {
    const revoked = await several(20, revokedSession);
    const live = await Promise.all(Array.from({ length: 5 }, () => session()));
    await waitForWholeDenylist(stack, poke);
    await stack.redis.flushall();
    stack.neonProxy.stats.reset();
    for (const token of revoked) expect(await check(token)).toBe(401);
    for (const token of live) expect(await check(token)).toBe(404);
    // PostgreSQL answered for each session while the state was missing.
    expect(pgRequests()).toBeGreaterThanOrEqual(1);
    await waitForWholeDenylist(stack, poke);
    for (const token of revoked) expect(await check(token)).toBe(401);
    for (const token of live) expect(await check(token)).toBe(404);
  });

  it('a deploy that moved the denylist under its hash tag finds no state under the new keys: refused at once from PostgreSQL, then repaired under the new keys', async () => {
    const revoked = await several(3, revokedSession);
    const live = await session();
    await waitForWholeDenylist(stack, poke);
    // What the store holds right after such a deploy: every denylist key under its name from before the tag, nothing
    // under the new ones (docs/design/revocation.md#one-slot-for-the-whole-denylist).
    const moved = (await stack.redis.keys('*:platform:{denylist}:*')).sort();
    expect(moved.length).toBeGreaterThanOrEqual(4);
    for (const key of moved) await stack.redis.rename(key, key.replace(':platform:{denylist}:', ':platform:'));
    expect(await stack.redis.exists(stack.deps.keys.denylistState())).toBe(0);
    for (const token of revoked) expect(await check(token)).toBe(401);
    expect(await check(live)).toBe(404);
    await waitForWholeDenylist(stack, poke);
    expect((await stack.redis.keys('*:platform:{denylist}:auth:revoked-session:*')).length).toBe(3);
    for (const token of revoked) expect(await check(token)).toBe(401);
  });

  it('FLUSHALL under traffic from several isolates: never a revoked token through, never a 5xx, one repair at a time', async () => {
    const revoked = await several(30, revokedSession);
    const live = await Promise.all(Array.from({ length: 10 }, () => session()));
    await waitForWholeDenylist(stack, poke);
    const lines: string[] = [];
    const isolates = Array.from({ length: 4 }, () => composeApp(stack.env, { logger: createJsonLogger((line) => lines.push(line)) }));
    const seen: Array<{ revoked: boolean; status: number; at: number }> = [];
    let stop = false;
    const traffic = isolates.map(async (isolate, n) => {
      for (let i = 0; !stop; i += 1) {
        const isRevoked = i % 2 === 0;
        const token = isRevoked ? revoked[(i + n) % revoked.length]! : live[(i + n) % live.length]!;
        const status = await check(token, isolate.request);
        seen.push({ revoked: isRevoked, status, at: Date.now() });
      }
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    await stack.redis.flushall();
    const flushedAt = Date.now();
    await new Promise((resolve) => setTimeout(resolve, 300));
    await waitForWholeDenylist(stack, poke);
    await new Promise((resolve) => setTimeout(resolve, 300));
    stop = true;
    await Promise.all(traffic);

    expect(seen.filter((s) => s.at > flushedAt).length).toBeGreaterThan(4);
    expect(seen.filter((s) => s.revoked && s.status !== 401)).toEqual([]);
    expect(seen.filter((s) => !s.revoked && s.status !== 404)).toEqual([]);
    const repairs = lines.map((line) => JSON.parse(line) as { event: string }).filter((line) => line.event === 'denylist_repair');
    // Every isolate wanted one; the lock let one run (a later one may follow once it is released, never beside it).
    expect(repairs.length).toBeGreaterThanOrEqual(1);
    expect(repairs.length).toBeLessThan(isolates.length);
    expect(await stack.redis.exists(stack.deps.keys.denylistState())).toBe(1);
  });

  it('while the denylist is not whole and PostgreSQL cannot answer, the check fails closed (503), never open', async () => {
    const revoked = await revokedSession();
    const live = await session();
    await waitForWholeDenylist(stack, poke);
    await stack.redis.flushall();
    stack.neonProxy.faults.set({ refuse: true });
    try {
      expect(await check(revoked)).toBe(503);
      expect(await check(live)).toBe(503);
    } finally {
      stack.neonProxy.faults.clear();
    }
    expect(await check(revoked)).toBe(401);
    expect(await check(live)).toBe(404);
  });
});

describe("a token revoked alone (its jti: the session its sid names is not the caller's)", () => {
  /** A token of the seeded admin naming another user's session: logout ends the token alone. */
  async function revokedAlone(): Promise<{ token: string; jti: string; exp: number }> {
    const sessionId = uuidv7();
    await db.query('INSERT INTO sessions (id, user_id) VALUES ($1, $2)', [sessionId, uuidv7()]);
    const token = await stack.token({ userId: org.adminId, sessionId });
    expect((await stack.request('POST', '/auth/logout', { token })).status).toBe(204);
    const { jti, exp } = decodeJwt(token);
    return { token, jti: jti!, exp: exp! };
  }

  it('PostgreSQL keeps it (the digest, never the jti): refused after FLUSHALL at once, and the repair writes its entry back', async () => {
    const revoked = await revokedAlone();
    const live = await session();
    const key = stack.deps.keys.revokedJti(await sha256Hex(revoked.jti));
    const { rows } = await db.query('SELECT * FROM revoked_tokens');
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ jti_sha256: await sha256Hex(revoked.jti), user_id: org.adminId });
    expect(JSON.stringify(rows)).not.toContain(revoked.jti);
    await waitForWholeDenylist(stack, poke);
    await stack.redis.flushall();
    expect(await check(revoked.token)).toBe(401);
    expect(await check(live)).toBe(404);
    await waitForWholeDenylist(stack, poke);
    const ttl = await stack.redis.ttl(key);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(revoked.exp - Math.floor(Date.now() / 1000) + 1);
    const isolate = await warmIsolate();
    stack.neonProxy.stats.reset();
    expect(await check(revoked.token, isolate)).toBe(401);
    expect(pgRequests()).toBe(0);
  });

  it('a denylist write that fails leaves the token refused from its row, and the denylist not whole until repaired', async () => {
    await waitForWholeDenylist(stack, poke);
    // Only the write fails: the check before the logout (its own script) still answers.
    stack.revocationProxy.faults.set(await failingDenylistWrites());
    let revoked: Awaited<ReturnType<typeof revokedAlone>>;
    try {
      revoked = await revokedAlone();
    } finally {
      stack.revocationProxy.faults.clear();
    }
    expect(await stack.redis.exists(stack.deps.keys.revokedJti(await sha256Hex(revoked.jti)))).toBe(0);
    expect(await check(revoked.token)).toBe(401);
    await waitForWholeDenylist(stack, poke);
    expect(await stack.redis.exists(stack.deps.keys.revokedJti(await sha256Hex(revoked.jti)))).toBe(1);
    expect(await check(revoked.token)).toBe(401);
  });
});
