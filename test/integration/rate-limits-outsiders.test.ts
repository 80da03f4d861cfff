// A tenant's rate limit belongs to its members (docs/design/limits.md#outsiders-spend-nothing), through the real app on
// real Redis and PostgreSQL: outsiders with malformed requests and revoked tokens, bound or unbound, spend nothing of it
// and see none of it; an unbound token's own limits hold across every org id it names; a plan that lowers the quota
// holds from the first request while its cache entry cannot be filled; a remembered refusal answers a revoked token 401.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uuidv7 } from 'uuidv7';
import { composeApp, type ComposedApp } from '../../local/stack/app.ts';
import { createJsonLogger } from '../../lib/log/logger.ts';
import type { Clock } from '../../lib/deps.ts';
import { errorCode, passwordSignIn } from '../support/sessions.ts';
import { startStack, type TestStack } from '../support/stack.ts';
import { clockReads } from '../support/clock-reads.ts';
import { createScratchDatabase, DEFAULT_DATABASE_URL, type ScratchDatabase } from '../../local/processes/scratch-database.ts';

let stack: TestStack;
// A database and a key namespace of its own: the revocation clock is one per database and the denylist's state one per
// namespace, and another file's revocations, losses or repairs moving either would send this file's checks to
// PostgreSQL (the denylist behind the clock, or not whole), which the statement counts below would see.
let scratch: ScratchDatabase;
beforeAll(async () => {
  scratch = await createScratchDatabase(process.env.TEST_DATABASE_ADMIN_URL ?? DEFAULT_DATABASE_URL, 'test');
  stack = await startStack({
    separateRevocationProxy: true,
    databaseUrl: scratch.url,
    env: { KEY_PREFIX: `rlo-${uuidv7().slice(-8)}` },
  });
});
afterAll(async () => {
  await stack?.close();
  await scratch?.drop();
});

const WINDOW_MS = 60_000;
/** A fixed instant 30 s into a window, so no run crosses a window edge by accident. */
const midWindow = (): number => Math.floor(Date.now() / WINDOW_MS) * WINDOW_MS + 30_000;
const fixedClock = (at: number): Clock => ({ now: () => at });

/** Another app instance (an isolate of its own: its own clients and memory) on the same Redis and PostgreSQL. */
function instance(clock: Clock): ComposedApp {
  return composeApp(stack.env, { clock, logger: createJsonLogger(() => undefined) });
}

const memberCount = (org: string) => `/orgs/${org}/members/count`;

/** What the organisation's counters of one kind hold now, every window and subject summed. */
async function counted(organizationId: string, kind: 'user-route' | 'user' | 'tenant'): Promise<number> {
  const keys = await stack.redis.keys(`*:org:{${organizationId}}:ratelimit:counter:${kind}.*`);
  const values = await Promise.all(keys.map((key) => stack.redis.get(key)));
  return values.reduce((sum, value) => sum + Number(value ?? 0), 0);
}

/** The calls ten at a time (one round of concurrent callers). */
async function answers(calls: Array<() => Promise<Response>>): Promise<Response[]> {
  const all: Response[] = [];
  for (let at = 0; at < calls.length; at += 10) all.push(...(await Promise.all(calls.slice(at, at + 10).map((call) => call()))));
  return all;
}

async function withPlan(tenantPerMinute: number) {
  const org = await stack.seedOrganization();
  await stack.db.query('INSERT INTO organization_rate_limits (organization_id, tenant_per_minute) VALUES ($1, $2)', [
    org.organizationId,
    tenantPerMinute,
  ]);
  return org;
}

/** Each outsider's malformed create (400, validated before the role check) and a well-formed call with a revoked token. */
function attacks(app: ComposedApp, victim: string, tokens: { live: string; revoked: string }): Array<() => Promise<Response>> {
  const malformed = () => app.request('POST', `/orgs/${victim}/invites`, { token: tokens.live, body: { email: 'not an email' } });
  const revoked = () => app.request('GET', memberCount(victim), { token: tokens.revoked });
  return [malformed, malformed, malformed, malformed, malformed, revoked, revoked, revoked, revoked, revoked];
}

describe('outsiders spend nothing of a tenant and see nothing of it', () => {
  it('ten outsider accounts with unbound tokens (malformed requests, revoked tokens) at a plan of 30/min: its admin is answered 200', async () => {
    const victim = await withPlan(30);
    const app = instance(fixedClock(midWindow()));
    const first = await app.request('GET', memberCount(victim.organizationId), { token: victim.adminToken });
    expect(first.status).toBe(200);
    expect(first.headers.get('ratelimit-policy')).toContain('"tenant";q=30;w=60');
    const outsiders = await Promise.all(
      Array.from({ length: 10 }, async () => {
        const own = await stack.seedOrganization();
        const sessionId = uuidv7();
        const revoked = await stack.token({ userId: own.adminId, sessionId });
        expect((await stack.request('POST', '/auth/logout', { token: revoked })).status).toBe(204);
        return { live: await stack.token({ userId: own.adminId }), revoked };
      }),
    );
    const calls = outsiders.flatMap((tokens) => attacks(app, victim.organizationId, tokens));
    const answered = await answers(calls);
    // 100 calls against a quota of 30: each answered as it would be with the tenant idle, never 429.
    expect(answered.map((response) => response.status).sort()).toEqual([...Array(50).fill(400), ...Array(50).fill(401)]);
    expect(answered.every((response) => !(response.headers.get('ratelimit-policy') ?? '').includes('tenant'))).toBe(true);
    // Every call was given back after its answer: the tenant holds its admin's one call.
    await expect.poll(() => counted(victim.organizationId, 'tenant'), { timeout: 5_000 }).toBe(1);
    expect((await app.request('GET', memberCount(victim.organizationId), { token: victim.adminToken })).status).toBe(200);
    // What the tenant has left, from an isolate of its own (one whose count ever missed its deadline on a busy machine
    // stops counting for a while, and this clock stands still).
    const fresh = await instance(fixedClock(midWindow())).request('GET', memberCount(victim.organizationId), { token: victim.adminToken });
    expect(fresh.headers.get('ratelimit')).toContain('"tenant";r=27;');
  });

  it('the same with bound tokens: refused before anything is counted, the tenant never holds one of their calls', async () => {
    const victim = await withPlan(30);
    const app = instance(fixedClock(midWindow()));
    const outsiders = await Promise.all(
      Array.from({ length: 10 }, async () => {
        const own = await stack.seedOrganization();
        const signIn = await passwordSignIn(stack, { userId: own.adminId, email: own.adminEmail });
        const revoked = await signIn(own.organizationId);
        expect((await stack.request('POST', '/auth/logout', { token: revoked.accessToken })).status).toBe(204);
        return { live: (await signIn(own.organizationId)).accessToken, revoked: revoked.accessToken };
      }),
    );
    const answered = await answers(outsiders.flatMap((tokens) => attacks(app, victim.organizationId, tokens)));
    expect(answered.every((response) => response.status === 403)).toBe(true);
    expect(answered.every((response) => response.headers.get('ratelimit-policy') === null)).toBe(true);
    expect(await counted(victim.organizationId, 'tenant')).toBe(0);
    expect(await counted(victim.organizationId, 'user')).toBe(0);
    expect((await app.request('GET', memberCount(victim.organizationId), { token: victim.adminToken })).status).toBe(200);
  });

  it("a tenant its members filled: an outsider is answered 403 with their own fields, never 429 or the tenant's; the member's 429 is remembered for them alone", async () => {
    const victim = await withPlan(3);
    const app = instance(fixedClock(midWindow()));
    for (let i = 0; i < 3; i++) {
      expect((await app.request('GET', memberCount(victim.organizationId), { token: victim.adminToken })).status).toBe(200);
    }
    const full = await app.request('GET', memberCount(victim.organizationId), { token: victim.adminToken });
    expect(full.status).toBe(429);
    expect(full.headers.get('ratelimit')).toContain('"tenant";r=0');
    const outsider = await stack.seedOrganization();
    for (let i = 0; i < 3; i++) {
      const refused = await app.request('GET', memberCount(victim.organizationId), { token: outsider.adminToken });
      expect(refused.status).toBe(403);
      expect(await errorCode(refused)).toBe('FORBIDDEN');
      expect(refused.headers.get('ratelimit-policy')).toBe('"user-route";q=100;w=60, "user";q=1000;w=60');
    }
    // The tenant's counter holds only the members' three calls; the member meets the remembered refusal.
    await expect.poll(() => counted(victim.organizationId, 'tenant'), { timeout: 5_000 }).toBe(3);
    stack.redisProxy.stats.reset();
    expect((await app.request('GET', memberCount(victim.organizationId), { token: victim.adminToken })).status).toBe(429);
    expect(stack.redisProxy.stats.requests).toBe(0);
  });
});

describe("an unbound token's own limits hold across every org id it names", () => {
  it('one account naming 1 100 fresh org ids meets 429; none costs more than the role check in PostgreSQL, none fills a plan', async () => {
    const caller = await stack.seedOrganization();
    const app = instance(fixedClock(midWindow()));
    stack.neonProxy.stats.reset();
    const fresh = Array.from({ length: 1_100 }, () => uuidv7());
    const answered = await answers(fresh.map((org) => () => app.request('GET', memberCount(org), { token: caller.adminToken })));
    const statuses = answered.map((response) => response.status);
    // The user's route counter across organisations (100 a minute) is full after 100 of them; every later call is 429.
    expect(statuses.slice(0, 100).every((status) => status === 403)).toBe(true);
    expect(statuses.slice(100).every((status) => status === 429)).toBe(true);
    // At most the role check for each one that reached it (the first 100, and the round of ten refused before the
    // isolate remembered the refusal); no plan read, and no plan entry written for any of them.
    expect(stack.neonProxy.stats.statements - clockReads(stack.neonProxy.stats)).toBeLessThanOrEqual(110);
    const planned = await Promise.all(fresh.slice(0, 100).map((org) => stack.redis.exists(stack.deps.keys.orgPlanLimitsCache(org, '0'))));
    expect(planned.every((exists) => exists === 0)).toBe(true);
    // The account's own organisation answers it again once it stops (another route: that route's counter has room).
    expect((await app.request('GET', `/orgs/${caller.organizationId}/settings`, { token: caller.adminToken })).status).toBe(200);
  }, 120_000);
});

describe('a plan that lowers the quota holds from the first request', () => {
  it('plan of 5 a minute, fresh cache, its fill held back: the sixth request is refused, and so is every later one', async () => {
    const org = await withPlan(5);
    const planKey = stack.deps.keys.orgPlanLimitsCache(org.organizationId, '0');
    // The fill's SET fails at the proxy, so every request finds the entry missing.
    stack.redisProxy.faults.set({ failArgsContaining: [planKey] });
    try {
      const app = instance(fixedClock(midWindow()));
      const statuses: number[] = [];
      for (let i = 0; i < 7; i++) {
        statuses.push((await app.request('GET', memberCount(org.organizationId), { token: org.adminToken })).status);
      }
      expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429]);
      expect(await stack.redis.exists(planKey)).toBe(0);
      // The refused requests cost no quota: five counted.
      await expect.poll(() => counted(org.organizationId, 'tenant'), { timeout: 5_000 }).toBe(5);
    } finally {
      stack.redisProxy.faults.clear();
    }
  });

  it('ten concurrent first requests on a fresh cache: exactly five admitted', async () => {
    const org = await withPlan(5);
    const planKey = stack.deps.keys.orgPlanLimitsCache(org.organizationId, '0');
    stack.redisProxy.faults.set({ failArgsContaining: [planKey] });
    try {
      const app = instance(fixedClock(midWindow()));
      // Warmed on another organisation, so the first count does not miss its deadline on a busy machine.
      const other = await stack.seedOrganization();
      await app.request('GET', memberCount(other.organizationId), { token: other.adminToken });
      const admins = await Promise.all(
        Array.from({ length: 10 }, async () => {
          const userId = uuidv7();
          await stack.db.query('INSERT INTO users (id, email) VALUES ($1, $2)', [userId, `${userId}@rate.test`]);
          await stack.db.query('INSERT INTO role_assignments (id, user_id, organization_id, role_code) VALUES ($1, $2, $3, $4)', [
            uuidv7(),
            userId,
            org.organizationId,
            'OrganizationAdmin',
          ]);
          return stack.token({ userId });
        }),
      );
      const answered = await answers(admins.map((token) => () => app.request('GET', memberCount(org.organizationId), { token })));
      const statuses = answered.map((response) => response.status);
      expect(statuses.filter((status) => status === 200)).toHaveLength(5);
      expect(statuses.filter((status) => status === 429)).toHaveLength(5);
      await expect.poll(() => counted(org.organizationId, 'tenant'), { timeout: 5_000 }).toBe(5);
    } finally {
      stack.redisProxy.faults.clear();
    }
  });
});

describe('a remembered refusal and a revoked token', () => {
  it('a caller this isolate refused, whose session is then ended, is answered 401 TOKEN_REVOKED, not 429', async () => {
    const org = await stack.seedOrganization();
    const app = instance(fixedClock(midWindow()));
    const token = await stack.token({ userId: org.adminId, sessionId: uuidv7() });
    for (let i = 0; i < 100; i++) await app.request('GET', memberCount(org.organizationId), { token });
    expect((await app.request('GET', memberCount(org.organizationId), { token })).status).toBe(429);
    expect((await stack.request('POST', '/auth/logout', { token })).status).toBe(204);
    const revoked = await app.request('GET', memberCount(org.organizationId), { token });
    expect(revoked.status).toBe(401);
    expect(await errorCode(revoked)).toBe('TOKEN_REVOKED');
  });
});
