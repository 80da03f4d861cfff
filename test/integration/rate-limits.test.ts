// The API rate limits (docs/design/limits.md#api-rate-limits) through the real app on real Redis and PostgreSQL: the
// three limits, their headers, one limit across ten app instances, rotated tokens, skewed clocks, a tenant's flood
// beside another tenant, Redis down during a flood, and an operator's view and lift.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uuidv7 } from 'uuidv7';
import { composeApp, type ComposedApp } from '../../local/stack/app.ts';
import { createJsonLogger } from '../../lib/log/logger.ts';
import type { Clock } from '../../lib/deps.ts';
import { newOperator } from '../support/operators.ts';
import { CROWD_REDIS_TIMEOUT_MS } from '../support/crowd.ts';
import { startStack, type TestStack } from '../support/stack.ts';

const operator = newOperator('rate-ops');
let stack: TestStack;
beforeAll(async () => {
  stack = await startStack({ separateRevocationProxy: true, env: { OPERATOR_TOKEN_HASHES: operator.entry } });
});
afterAll(async () => stack?.close());

const WINDOW_MS = 60_000;
/** A fixed instant 30 s into a window, so no run crosses a window edge by accident. */
const midWindow = (): number => Math.floor(Date.now() / WINDOW_MS) * WINDOW_MS + 30_000;
const fixedClock = (at: number): Clock & { at: number } => {
  const clock = { at, now: () => clock.at };
  return clock;
};

/** Another app instance (an isolate of its own: its own clients and memory) on the same Redis and PostgreSQL. */
function instance(clock: Clock, logs: string[] = [], overrides: { redisTimeoutMs?: number } = {}): ComposedApp {
  return composeApp(stack.env, { clock, logger: createJsonLogger((line) => logs.push(line)), ...overrides });
}

const count = (path: (org: string) => string) => path;
const memberCount = count((org) => `/orgs/${org}/members/count`);

/** A new OrganizationAdmin of the organisation, and a token of theirs. */
async function adminOf(organizationId: string): Promise<string> {
  const userId = uuidv7();
  await stack.db.query('INSERT INTO users (id, email) VALUES ($1, $2)', [userId, `${userId}@rate.test`]);
  await stack.db.query('INSERT INTO role_assignments (id, user_id, organization_id, role_code) VALUES ($1, $2, $3, $4)', [
    uuidv7(),
    userId,
    organizationId,
    'OrganizationAdmin',
  ]);
  return stack.token({ userId });
}

/** What the organisation's counters of one kind hold now, every window and subject summed. */
async function counted(organizationId: string, kind: 'user-route' | 'user' | 'tenant'): Promise<number> {
  const keys = await stack.redis.keys(`*:org:{${organizationId}}:ratelimit:counter:${kind}.*`);
  const values = await Promise.all(keys.map((key) => stack.redis.get(key)));
  return values.reduce((sum, value) => sum + Number(value ?? 0), 0);
}

/** The calls ten at a time (one round of concurrent callers; more would only measure this shared machine's load). */
async function statuses(calls: Array<() => Promise<Response>>): Promise<number[]> {
  const answers: number[] = [];
  for (let at = 0; at < calls.length; at += 10) {
    answers.push(...(await Promise.all(calls.slice(at, at + 10).map(async (call) => (await call()).status))));
  }
  return answers;
}

describe('one user on one route', () => {
  it('admits 100 a minute, then answers 429 with retry-after and the RateLimit fields; other routes still answer', async () => {
    const org = await stack.seedOrganization();
    const app = instance(fixedClock(midWindow()));
    const first = await app.request('GET', memberCount(org.organizationId), { token: org.adminToken });
    expect(first.status).toBe(200);
    expect(first.headers.get('ratelimit-policy')).toBe('"user-route";q=100;w=60, "user";q=1000;w=60, "tenant";q=10000;w=60');
    expect(first.headers.get('ratelimit')).toBe('"user-route";r=99;t=30, "user";r=999;t=30, "tenant";r=9999;t=30');
    for (let i = 1; i < 100; i++)
      expect((await app.request('GET', memberCount(org.organizationId), { token: org.adminToken })).status).toBe(200);
    const refused = await app.request('GET', memberCount(org.organizationId), { token: org.adminToken });
    expect(refused.status).toBe(429);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('RATE_LIMITED');
    expect(refused.headers.get('retry-after')).toBe('31');
    expect(refused.headers.get('ratelimit')).toBe('"user-route";r=0;t=31, "user";r=900;t=30, "tenant";r=9900;t=30');
    // Another route of the same user counts in its own per-route limit.
    const other = await app.request('GET', `/orgs/${org.organizationId}/settings`, { token: org.adminToken });
    expect(other.status).toBe(200);
    expect(other.headers.get('ratelimit')).toBe('"user-route";r=99;t=30, "user";r=899;t=30, "tenant";r=9899;t=30');
  });

  it('refuses a caller it already refused from memory, after the revocation check alone (no count), until the window ends', async () => {
    const org = await stack.seedOrganization();
    const clock = fixedClock(midWindow());
    const app = instance(clock);
    for (let i = 0; i < 101; i++) await app.request('GET', memberCount(org.organizationId), { token: org.adminToken });
    stack.redisProxy.stats.reset();
    stack.revocationProxy.stats.reset();
    clock.at += 10_000;
    const refused = await app.request('GET', memberCount(org.organizationId), { token: org.adminToken });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('21');
    // One round trip: the denylist's, so a revoked token is answered 401, never 429; nothing on the main store.
    expect(stack.redisProxy.stats.requests).toBe(0);
    expect(stack.revocationProxy.stats.requests).toBe(1);
    // Past the window's end the count has decayed below the quota: admitted again.
    clock.at += 21_000;
    expect((await app.request('GET', memberCount(org.organizationId), { token: org.adminToken })).status).toBe(200);
  });
});

describe('adversaries', () => {
  it('one user across ten app instances shares one limit: exactly 100 admitted of 150 (slack 0 within a window)', async () => {
    const org = await stack.seedOrganization();
    const clock = fixedClock(midWindow());
    const logs: string[] = [];
    // A count that misses its deadline fails open, and under a fixed clock its instance then stops counting for good
    // (lib/rate-limit-memo.ts): on a busy machine that admitted all 150. The deadline is not what this test is about.
    const apps = Array.from({ length: 10 }, () => instance(clock, logs, { redisTimeoutMs: CROWD_REDIS_TIMEOUT_MS }));
    // Each instance warmed by another caller first (another caller: the user's own counters across organisations must
    // start empty).
    const other = await stack.seedOrganization();
    await Promise.all(apps.map((app) => app.request('GET', memberCount(other.organizationId), { token: other.adminToken })));
    const answers = await statuses(
      Array.from({ length: 150 }, (_, i) => () => apps[i % 10]!.request('GET', memberCount(org.organizationId), { token: org.adminToken })),
    );
    expect(
      logs.filter((line) => line.includes('rate_limit_unavailable')),
      'the limiter failed open',
    ).toEqual([]);
    expect(answers.filter((status) => status === 200)).toHaveLength(100);
    expect(answers.filter((status) => status === 429)).toHaveLength(50);
  });

  it('rotating tokens of one session, or of one user, counts in the same limits (a fresh instance, no memory)', async () => {
    const org = await stack.seedOrganization();
    const clock = fixedClock(midWindow());
    const sessionId = uuidv7();
    const sameSession = instance(clock);
    for (let i = 0; i < 60; i++) {
      const token = await stack.token({ userId: org.adminId, sessionId });
      expect((await sameSession.request('GET', memberCount(org.organizationId), { token })).status).toBe(200);
    }
    const otherSessions = instance(clock);
    const answers: number[] = [];
    for (let i = 0; i < 50; i++) {
      const token = await stack.token({ userId: org.adminId });
      answers.push((await otherSessions.request('GET', memberCount(org.organizationId), { token })).status);
    }
    expect(answers.filter((status) => status === 200)).toHaveLength(40);
    expect(answers.slice(40).every((status) => status === 429)).toBe(true);
  });

  it('two instances whose clocks are 1 s apart across a window edge admit at most the limit plus 100 × 1/60 (2)', async () => {
    const org = await stack.seedOrganization();
    const edge = Math.floor(Date.now() / WINDOW_MS) * WINDOW_MS + WINDOW_MS;
    const behind = instance(fixedClock(edge - 500));
    const ahead = instance(fixedClock(edge + 500));
    const answers: number[] = [];
    for (let i = 0; i < 200; i++) {
      const app = i % 2 === 0 ? behind : ahead;
      answers.push((await app.request('GET', memberCount(org.organizationId), { token: org.adminToken })).status);
    }
    const admitted = answers.filter((status) => status === 200).length;
    expect(admitted).toBeGreaterThanOrEqual(100);
    expect(admitted).toBeLessThanOrEqual(102);
  });

  it("one tenant's flood is refused at its plan's tenant limit while another tenant's requests succeed", async () => {
    const noisy = await stack.seedOrganization();
    const quiet = await stack.seedOrganization();
    await stack.db.query('INSERT INTO organization_rate_limits (organization_id, tenant_per_minute) VALUES ($1, 40)', [
      noisy.organizationId,
    ]);
    const clock = fixedClock(midWindow());
    const app = instance(clock);
    // The first request counts with the defaults and fills the plan entry after its answer.
    expect((await app.request('GET', memberCount(noisy.organizationId), { token: noisy.adminToken })).status).toBe(200);
    await expect
      .poll(async () =>
        (await app.request('GET', memberCount(noisy.organizationId), { token: noisy.adminToken })).headers.get('ratelimit-policy'),
      )
      .toContain('"tenant";q=40;w=60');
    // Forty admins of the noisy tenant, each far under its own limits (an outsider's refused calls are given back).
    const members = await Promise.all(Array.from({ length: 40 }, () => adminOf(noisy.organizationId)));
    const flood = await statuses(members.map((token) => () => app.request('GET', memberCount(noisy.organizationId), { token })));
    expect(flood.filter((status) => status === 429).length).toBeGreaterThan(0);
    const refused = await app.request('GET', memberCount(noisy.organizationId), { token: members[0]! });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('ratelimit')).toContain('"tenant";r=0');
    const beside = await statuses(
      Array.from({ length: 20 }, () => () => app.request('GET', memberCount(quiet.organizationId), { token: quiet.adminToken })),
    );
    expect(beside.every((status) => status === 200)).toBe(true);
  });

  it("a signed-in outsider's refused calls are given back to the tenant: only the outsider's own limits keep them", async () => {
    const org = await stack.seedOrganization();
    const outsider = await stack.seedOrganization();
    const app = instance(fixedClock(midWindow()));
    const path = memberCount(org.organizationId);
    const refused = await statuses(Array.from({ length: 30 }, () => () => app.request('GET', path, { token: outsider.adminToken })));
    expect(refused).toEqual(Array.from({ length: 30 }, () => 403));
    // The refunds run after each answer; then the tenant's counter holds nothing of them.
    await expect.poll(() => counted(org.organizationId, 'tenant'), { timeout: 5_000 }).toBe(0);
    // The outsider's own counters, under this organisation, keep every call.
    expect(await counted(org.organizationId, 'user')).toBe(30);
    expect(await counted(org.organizationId, 'user-route')).toBe(30);
    // A member's admitted call is the tenant's, and stays counted.
    expect((await app.request('GET', path, { token: org.adminToken })).status).toBe(200);
    expect(await counted(org.organizationId, 'tenant')).toBe(1);
  });

  it('Redis down during a flood: the limiter fails open with one WARN; the revocation check still fails closed', async () => {
    const org = await stack.seedOrganization();
    const clock = fixedClock(midWindow());
    const logs: string[] = [];
    const app = instance(clock, logs);
    expect((await app.request('GET', memberCount(org.organizationId), { token: org.adminToken })).status).toBe(200);
    stack.redisProxy.faults.set({ refuse: true });
    try {
      const answers: number[] = [];
      for (let i = 0; i < 150; i++) {
        // Past the limiter's probe interval now and then, so it asks the sick store again; still one WARN.
        if (i % 50 === 49) clock.at += 6_000;
        answers.push((await app.request('GET', memberCount(org.organizationId), { token: org.adminToken })).status);
      }
      // The count itself reads its cache from PostgreSQL when Redis fails; no request was limited.
      expect(answers.every((status) => status === 200)).toBe(true);
      expect(logs.filter((line) => line.includes('"rate_limit_unavailable"'))).toHaveLength(1);
      expect(logs.filter((line) => line.includes('"rate_limit_unavailable"')).every((line) => line.includes('"level":"warn"'))).toBe(true);
      stack.revocationProxy.faults.set({ refuse: true });
      const closed = await app.request('GET', memberCount(org.organizationId), { token: org.adminToken });
      expect(closed.status).toBe(503);
      expect(((await closed.json()) as { error: { code: string } }).error.code).toBe('REVOCATION_UNAVAILABLE');
    } finally {
      stack.redisProxy.faults.clear();
      stack.revocationProxy.faults.clear();
    }
  });
});

describe('the OpenAPI document', () => {
  it('lists 429 RATE_LIMITED with retry-after and the RateLimit fields on an authenticated route, and the fields on its answer', async () => {
    const document = (await (await stack.request('GET', '/openapi.json')).json()) as {
      paths: Record<string, Record<string, { responses: Record<string, { headers?: Record<string, unknown>; content?: unknown }> }>>;
    };
    const route = document.paths['/orgs/{orgId}/members/count']!.get!;
    expect(JSON.stringify(route.responses['429']!.content)).toContain('RATE_LIMITED');
    expect(Object.keys(route.responses['429']!.headers ?? {}).sort()).toEqual(['ratelimit', 'ratelimit-policy', 'retry-after']);
    expect(Object.keys(route.responses['200']!.headers ?? {}).sort()).toEqual(['ratelimit', 'ratelimit-policy']);
  });
});

describe('operators', () => {
  const asOperator = { authorization: `Bearer ${operator.secret}` };

  it("see a tenant's block and lift it, audited; the next request from another instance is admitted", async () => {
    const org = await stack.seedOrganization();
    await stack.db.query('INSERT INTO organization_rate_limits (organization_id, tenant_per_minute) VALUES ($1, 5)', [org.organizationId]);
    const clock = fixedClock(midWindow());
    const app = instance(clock);
    await app.request('GET', memberCount(org.organizationId), { token: org.adminToken });
    const view = await app.request('GET', `/ops/tenants/${org.organizationId}/rate-limit`, { headers: asOperator });
    expect(view.status).toBe(200);
    expect(await view.json()).toEqual({
      organizationId: org.organizationId,
      limits: [{ kind: 'tenant', quota: 5, used: 1, blocked: false }],
    });
    for (let i = 0; i < 6; i++) await app.request('GET', memberCount(org.organizationId), { token: org.adminToken });
    const blocked = await (await app.request('GET', `/ops/tenants/${org.organizationId}/rate-limit`, { headers: asOperator })).json();
    expect(blocked).toMatchObject({ limits: [{ kind: 'tenant', quota: 5, used: 5, blocked: true }] });
    const lift = await app.request('POST', `/ops/tenants/${org.organizationId}/rate-limit/lift`, { headers: asOperator });
    expect(lift.status).toBe(200);
    expect(await lift.json()).toEqual({ cleared: 1 });
    const { rows } = await stack.db.query(
      `SELECT target_id, details FROM audit_events WHERE action = 'ratelimit.lifted' AND organization_id = $1`,
      [org.organizationId],
    );
    expect(rows).toEqual([{ target_id: org.organizationId, details: { operatorId: 'rate-ops', limit: 'tenant', route: false } }]);
    // This instance forgot its refusal with the lift; so is a fresh one with no memory of it.
    expect((await app.request('GET', memberCount(org.organizationId), { token: org.adminToken })).status).toBe(200);
    expect((await instance(clock).request('GET', memberCount(org.organizationId), { token: org.adminToken })).status).toBe(200);
  });

  it("lift a user's block on one route in one organisation; an unknown organisation is 404; no bearer is 401", async () => {
    const org = await stack.seedOrganization();
    const clock = fixedClock(midWindow());
    const app = instance(clock);
    for (let i = 0; i < 101; i++) await app.request('GET', memberCount(org.organizationId), { token: org.adminToken });
    const route = 'GET /orgs/{orgId}/members/count';
    const query = `organizationId=${org.organizationId}&route=${encodeURIComponent(route)}`;
    const view = await (await app.request('GET', `/ops/users/${org.adminId}/rate-limit?${query}`, { headers: asOperator })).json();
    expect(view).toEqual({
      userId: org.adminId,
      limits: [
        { kind: 'user-route', quota: 100, used: 100, blocked: true },
        { kind: 'user', quota: 1000, used: 100, blocked: false },
      ],
    });
    const lift = await app.request('POST', `/ops/users/${org.adminId}/rate-limit/lift`, {
      headers: asOperator,
      body: { organizationId: org.organizationId, route },
    });
    // The route's and the user's counters in the organisation, and the same two in the user's own scope, where this
    // unbound token's requests count too.
    expect(await lift.json()).toEqual({ cleared: 4 });
    expect((await instance(clock).request('GET', memberCount(org.organizationId), { token: org.adminToken })).status).toBe(200);
    const unknown = await app.request('POST', `/ops/users/${org.adminId}/rate-limit/lift`, {
      headers: asOperator,
      body: { organizationId: uuidv7() },
    });
    expect(unknown.status).toBe(404);
    expect((await app.request('POST', `/ops/tenants/${org.organizationId}/rate-limit/lift`)).status).toBe(401);
  });
});
