// The shared runtime session: one login for a fleet of cold callers, the refresh lock, stale 403s, the 7-failure cap, and Redis down.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { composeApp } from '../../local/stack/app.ts';
import { createDeps } from '../../lib/create-deps.ts';
import { runScript } from '../../lib/redis/index.ts';
import { TAKE_REFRESH_LOCK } from '../../lib/runtime/syrve/index.ts';
import { DELETE_IF_EQUALS } from '../../lib/runtime/compare-and-delete.ts';
import { loadConnection } from '../../lib/runtime/syrve/connection.ts';
import { callWithSession } from '../../lib/runtime/syrve/with-session.ts';
import { CROWD_REDIS_TIMEOUT_MS } from '../support/crowd.ts';
import { startStack, type TestStack } from '../support/stack.ts';
import { connectFake, sendRotation, startFakeSyrve, storesPath, type FakeSyrve } from '../support/syrve.ts';

let stack: TestStack;
let fake: FakeSyrve;
beforeAll(async () => {
  // The denylist behind a proxy of its own: the main proxy's counts and faults are the session's alone.
  stack = await startStack({ separateRevocationProxy: true });
  fake = await startFakeSyrve();
});
afterAll(async () => {
  await fake?.close();
  await stack?.close();
});
beforeEach(() => {
  fake.setDelay(0);
  fake.forbidAlways(false);
  fake.refuseLogins(false);
  stack.redisProxy.faults.clear();
});

type Org = Awaited<ReturnType<TestStack['seedOrganization']>>;

async function setUp(options: { login?: string; password?: string } = {}) {
  const org = await stack.seedOrganization();
  const connection = await connectFake(stack, org, fake, options);
  fake.resetStats();
  return { org, connection };
}

const sessionKey = (org: Org, connectionId: string) => stack.deps.keys.syrveRuntimeToken(org.organizationId, connectionId);
const lockKey = (org: Org, connectionId: string) => stack.deps.keys.syrveRuntimeTokenRefreshLock(org.organizationId, connectionId);

describe('one login for the fleet', () => {
  it('100 concurrent cold callers across 10 instances (separate clients, one Redis): exactly one upstream login, all succeed with the same session', async () => {
    const { org, connection } = await setUp();
    const row = await loadConnection(stack.deps, { organizationId: org.organizationId, connectionId: connection.connectionId });
    // Ten isolates' worth of Deps: each its own Redis and PostgreSQL clients and its own in-flight table. The callers
    // go straight to the session operation: a hundred authenticated HTTP requests inside one test process spend
    // their time on token checks and database round trips, which is not what this test is about (the next one
    // takes the HTTP path). A hundred waiters polling the lock from one process on a busy machine could wait past a
    // production Redis deadline for CPU alone (a TIMEOUT_ERR, not an outcome of the session's design): a crowd's deadline.
    const instances = Array.from({ length: 10 }, () => createDeps(stack.config, { redisTimeoutMs: CROWD_REDIS_TIMEOUT_MS }));
    fake.setDelay(300); // a login slow enough that every caller arrives while it is in flight
    const seen: string[] = [];
    const outcomes = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        callWithSession(instances[i % 10]!, row!, `burst-${i}`, (sessionId) => {
          seen.push(sessionId);
          return stack.deps.syrve.listStores({ baseUrl: connection.baseUrl }, sessionId, { timeoutMs: 5_000 });
        }),
      ),
    );
    expect(outcomes.filter((o) => o.ok)).toHaveLength(100);
    expect(new Set(seen).size).toBe(1);
    const stats = fake.stats();
    expect(stats.logins).toBe(1);
    expect(stats.liveSessions).toBe(1);
    expect(stats.calls).toBe(100);
    // One cached session; the lock is gone.
    expect(await stack.redis.exists(lockKey(org, connection.connectionId))).toBe(0);
    const ttl = await stack.redis.pttl(sessionKey(org, connection.connectionId));
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(stack.config.syrve.sessionCacheSeconds * 1000);
  });

  it('over HTTP: 20 cold callers across 10 app instances make one login', async () => {
    const { org, connection } = await setUp();
    const instances = Array.from({ length: 10 }, () => composeApp(stack.env));
    // Warm each instance on a route that never goes upstream, so the burst measures the session, not cold starts.
    for (const instance of instances) {
      expect((await instance.request('GET', `/orgs/${org.organizationId}/syrve/connections`, { token: org.adminToken })).status).toBe(200);
    }
    fake.setDelay(300);
    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, i) => instances[i % 10]!.request('GET', storesPath(org, connection), { token: org.adminToken })),
    );
    expect(responses.map((r) => r.status)).toEqual(Array.from({ length: 20 }, () => 200));
    expect(fake.stats().logins).toBe(1);
  });

  it('a hit costs one Redis command (besides the rate limiter count) and no login; the answer says cached', async () => {
    const { org, connection } = await setUp();
    expect((await stack.request('GET', storesPath(org, connection), { token: org.adminToken })).status).toBe(200);
    stack.redisProxy.stats.reset();
    stack.revocationProxy.stats.reset();
    const response = await stack.request('GET', storesPath(org, connection), { token: org.adminToken });
    const roundTrips = stack.redisProxy.stats.requests;
    // And one denylist check, however many functions guard '/orgs/*'.
    expect(stack.revocationProxy.stats.requests).toBe(1);
    expect(response.status).toBe(200);
    const body = (await response.json()) as { session: string; stores: { name: string }[] };
    expect(body.session).toBe('cached');
    expect(body.stores.map((s) => s.name)).toContain('Bar & Kitchen');
    // The session read, and the API rate limiter's counts beside the revocation check: the organisation's, and (the
    // seeded admin's token carries no org claim) the user's own scope's (docs/design/limits.md#outsiders-spend-nothing).
    expect(roundTrips).toBe(3);
    expect(fake.stats().logins).toBe(1);
  });
});

describe('caching off (SYRVE_SESSION_CACHE_SECONDS=0)', () => {
  it('stores nothing: every call logs in, and out again to give the seat back', async () => {
    const { org, connection } = await setUp();
    const uncached = composeApp({ ...stack.env, SYRVE_SESSION_CACHE_SECONDS: '0' });
    for (let i = 0; i < 2; i += 1) {
      const response = await uncached.request('GET', storesPath(org, connection), { token: org.adminToken });
      expect(response.status).toBe(200);
      expect(((await response.json()) as { session: string }).session).toBe('acquired');
    }
    expect(fake.stats()).toMatchObject({ logins: 2, logouts: 2 });
    expect(await stack.redis.exists(sessionKey(org, connection.connectionId))).toBe(0);
  });
});

describe('the refresh lock', () => {
  it('a non-owner release is refused and the lock keeps its TTL', async () => {
    const { org, connection } = await setUp();
    const keys = { session: sessionKey(org, connection.connectionId), lock: lockKey(org, connection.connectionId) };
    const take = (owner: string) =>
      runScript(stack.deps.redis.retrySafe, TAKE_REFRESH_LOCK, { keys, args: { owner, lockTtlMs: 15_000, version: 1 } });
    const release = (expected: string) =>
      runScript(stack.deps.redis.retrySafe, DELETE_IF_EQUALS, { keys: { target: keys.lock }, args: { expected } });
    expect(await take('owner-a')).toEqual([2]);
    expect(await release('owner-b')).toBe(0);
    expect(await stack.redis.get(keys.lock)).toBe('owner-a');
    const ttl = await stack.redis.pttl(keys.lock);
    expect(ttl).toBeGreaterThan(14_000);
    expect(ttl).toBeLessThanOrEqual(15_000);
    const busy = (await take('owner-b')) as number[];
    expect(busy[0]).toBe(0);
    expect(await release('owner-a')).toBe(1);
  });

  it('a holder that died leaves a lock the next caller takes once its TTL runs out', async () => {
    const { org, connection } = await setUp();
    await stack.redis.set(lockKey(org, connection.connectionId), 'dead-holder', 'PX', 1_200);
    const started = Date.now();
    const response = await stack.request('GET', storesPath(org, connection), { token: org.adminToken });
    expect(response.status).toBe(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_000);
    expect(fake.stats().logins).toBe(1);
  });

  it('waiters give up in bounded time when the holder hangs (503 UPSTREAM_BUSY, no login)', async () => {
    const { org, connection } = await setUp();
    // A clock 20× fast: the 15 s lock plus the 2 s margin passes in under a second of real time.
    const start = Date.now();
    const fast = composeApp(stack.env, { clock: { now: () => start + (Date.now() - start) * 20 } });
    // Hung, not dead: it keeps the lock for the whole 15 s TTL (the registry's), longer than anyone waits on the fast clock.
    await stack.redis.set(lockKey(org, connection.connectionId), 'hung-holder', 'PX', 15_000);
    const began = Date.now();
    const response = await fast.request('GET', storesPath(org, connection), { token: org.adminToken });
    const waited = Date.now() - began;
    expect(response.status).toBe(503);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('UPSTREAM_BUSY');
    expect(response.headers.get('retry-after')).toBe('1');
    expect(waited).toBeLessThan(5_000);
    expect(fake.stats().logins).toBe(0);
  });
});

describe('403 from the upstream', () => {
  it('an expired session is dropped, logged in again under the lock, and the call retried', async () => {
    const { org, connection } = await setUp();
    expect((await stack.request('GET', storesPath(org, connection), { token: org.adminToken })).status).toBe(200);
    fake.expireSessions();
    const response = await stack.request('GET', storesPath(org, connection), { token: org.adminToken });
    expect(response.status).toBe(200);
    expect(((await response.json()) as { session: string }).session).toBe('acquired');
    expect(fake.stats().logins).toBe(2);
    // Success closes the count again.
    expect(await stack.redis.exists(stack.deps.keys.syrveReconnectFailures(org.organizationId, connection.connectionId))).toBe(0);
  });

  it('a stale 403 leaves the fresh session in place', async () => {
    const { org, connection } = await setUp();
    expect((await stack.request('GET', storesPath(org, connection), { token: org.adminToken })).status).toBe(200);
    const staleRaw = await stack.redis.get(sessionKey(org, connection.connectionId));
    const row = await loadConnection(stack.deps, { organizationId: org.organizationId, connectionId: connection.connectionId });
    let calls = 0;
    let freshRaw: string | null = null;
    const outcome = await callWithSession(stack.deps, row!, 'stale-403-test', async (sessionId) => {
      calls += 1;
      if (calls === 1) {
        // While this caller's call is on the wire, the session dies upstream and another instance replaces it.
        fake.expireSessions();
        const other = composeApp(stack.env);
        expect((await other.request('GET', storesPath(org, connection), { token: org.adminToken })).status).toBe(200);
        freshRaw = await stack.redis.get(sessionKey(org, connection.connectionId));
        return { ok: false, reason: 'forbidden' };
      }
      return stack.deps.syrve.listStores({ baseUrl: connection.baseUrl }, sessionId, { timeoutMs: 2_000 });
    });
    expect(outcome.ok).toBe(true);
    expect(freshRaw).not.toBeNull();
    expect(freshRaw).not.toBe(staleRaw);
    expect(await stack.redis.get(sessionKey(org, connection.connectionId))).toBe(freshRaw);
    expect(fake.stats().logins).toBe(2);
    // The stale 403 did not count as a failed reconnect either.
    expect(await stack.redis.exists(stack.deps.keys.syrveReconnectFailures(org.organizationId, connection.connectionId))).toBe(0);
  });

  it('an upstream that always answers 403: at most 7 tries, one critical audit event, then no upstream request until a rotation', async () => {
    const password = 'canary-always-403-pw';
    const { org, connection } = await setUp({ login: 'always403', password });
    fake.forbidAlways(true);
    const first = await stack.request('GET', storesPath(org, connection), { token: org.adminToken });
    expect(first.status).toBe(502);
    expect(((await first.json()) as { error: { code: string } }).error.code).toBe('UPSTREAM_FAILED');
    const afterFirst = fake.stats();
    expect(afterFirst.calls).toBeLessThanOrEqual(7);
    expect(afterFirst.logins).toBeLessThanOrEqual(7);
    expect(afterFirst.calls).toBeGreaterThanOrEqual(1);

    const audit = await stack.db.query(
      "SELECT details, actor_user_id, organization_id FROM audit_events WHERE target_id = $1 AND action = 'syrve.reconnect_exhausted'",
      [connection.connectionId],
    );
    expect(audit.rows).toHaveLength(1);
    expect(audit.rows[0].details).toMatchObject({ severity: 'critical', statusCode: 403, attemptCount: 7 });
    expect(audit.rows[0].organization_id).toBe(org.organizationId);
    const auditText = JSON.stringify(audit.rows[0]);
    expect(auditText).not.toContain(password);
    for (const id of fake.issuedSessions()) expect(auditText).not.toContain(id);

    // The circuit is open: the next request fails fast with no upstream request at all.
    const second = await stack.request('GET', storesPath(org, connection), { token: org.adminToken });
    expect(second.status).toBe(502);
    const test = await stack.request('POST', `${storesPath(org, connection).replace(/stores$/, 'test')}`, { token: org.adminToken });
    expect(await test.json()).toEqual({ test: 'failed', session: 'none' });
    expect(fake.stats()).toEqual(afterFirst);
    const events = await stack.db.query(
      "SELECT count(*)::int AS n FROM audit_events WHERE target_id = $1 AND action = 'syrve.reconnect_exhausted'",
      [connection.connectionId],
    );
    expect(events.rows[0].n).toBe(1);

    // A rotation resets it.
    fake.forbidAlways(false);
    fake.setAccount('always403-rotated', 'new-password');
    const rotated = await sendRotation(stack, {
      organizationId: org.organizationId,
      connectionId: connection.connectionId,
      login: 'always403-rotated',
      password: 'new-password',
    });
    expect(rotated.status).toBe(200);
    expect(await rotated.json()).toEqual({ connectionId: connection.connectionId, test: 'ok' });
    expect((await stack.request('GET', storesPath(org, connection), { token: org.adminToken })).status).toBe(200);
  });

  it('a slow 403 stops retrying when another attempt could not finish inside the request budget', async () => {
    const { org, connection } = await setUp();
    fake.forbidAlways(true);
    fake.setDelay(250);
    // A clock 20× fast: each login + call (0.5 s real) spends 10 s of the 20 s budget.
    const start = Date.now();
    const fast = composeApp(stack.env, { clock: { now: () => start + (Date.now() - start) * 20 } });
    const response = await fast.request('GET', storesPath(org, connection), { token: org.adminToken });
    expect(response.status).toBe(502);
    expect(fake.stats().calls).toBeLessThanOrEqual(2);
    expect(fake.stats().calls).toBeGreaterThanOrEqual(1);
  });

  it('a refused password counts too: seven refused logins open the circuit', async () => {
    const { org, connection } = await setUp();
    fake.refuseLogins(true);
    for (let i = 0; i < 7; i += 1) {
      expect((await stack.request('GET', storesPath(org, connection), { token: org.adminToken })).status).toBe(502);
    }
    expect(fake.stats().failedLogins).toBe(7);
    expect((await stack.request('GET', storesPath(org, connection), { token: org.adminToken })).status).toBe(502);
    expect(fake.stats().failedLogins).toBe(7);
    const ttl = await stack.redis.ttl(stack.deps.keys.syrveReconnectFailures(org.organizationId, connection.connectionId));
    expect(ttl).toBeGreaterThan(stack.config.syrve.reconnectCooldownSeconds - 5);
    // Re-enabling closes the circuit.
    fake.refuseLogins(false);
    expect((await stack.request('POST', storesPath(org, connection).replace(/stores$/, 'enable'), { token: org.adminToken })).status).toBe(
      204,
    );
    expect((await stack.request('GET', storesPath(org, connection), { token: org.adminToken })).status).toBe(200);
  });
});

describe('Redis unreachable', () => {
  it('503 STORE_UNAVAILABLE and zero upstream logins', async () => {
    const { org, connection } = await setUp();
    stack.redisProxy.faults.set({ failCommands: ['MGET', 'EVALSHA', 'EVAL'] });
    try {
      const responses = await Promise.all(
        Array.from({ length: 5 }, () => stack.request('GET', storesPath(org, connection), { token: org.adminToken })),
      );
      for (const response of responses) {
        expect(response.status).toBe(503);
        expect(((await response.json()) as { error: { code: string } }).error.code).toBe('STORE_UNAVAILABLE');
      }
    } finally {
      stack.redisProxy.faults.clear();
    }
    expect(fake.stats().logins).toBe(0);
    expect(fake.stats().calls).toBe(0);
  });
});
