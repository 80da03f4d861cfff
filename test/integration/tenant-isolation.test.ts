// Tenant isolation at the door: a session signed in to one organisation is bound to it, and on every route of another
// organisation it is refused exactly as an outsider is (403 FORBIDDEN), before the rate limiter, the denylist or
// PostgreSQL is asked anything, although the same user is an admin there. A member of another organisation only is
// refused the same way on every route: bound, at no store's cost; unbound, by the role check, with nothing of the
// organisation's spent (docs/design/tenants.md#tenant-isolation).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeJwt } from 'jose';
import { uuidv7 } from 'uuidv7';
import { withoutLimiterKeys } from '../support/limiter-keys.ts';
import { memberFixtures } from '../support/members.ts';
import { orgRoutes } from '../support/org-routes.ts';
import { authenticatedRoutes, errorCode, passwordSignIn } from '../support/sessions.ts';
import { startStack, type TestStack } from '../support/stack.ts';

let stack: TestStack;
let m: ReturnType<typeof memberFixtures>;
beforeAll(async () => {
  stack = await startStack({ separateRevocationProxy: true });
  m = memberFixtures(stack);
});
afterAll(async () => stack?.close());

/** An admin of two organisations, signed in to the first. */
async function adminOfTwo() {
  const home = await stack.seedOrganization();
  const other = await stack.seedOrganization();
  const admin = await m.addMember(home.organizationId, 'OrganizationAdmin');
  await m.grant(admin.userId, other.organizationId, 'OrganizationAdmin');
  const session = await (await passwordSignIn(stack, admin))(home.organizationId);
  return { home, other, admin, session };
}

describe('a session bound to one organisation', () => {
  it("carries its organisation in the access token's org claim", async () => {
    const { home, session } = await adminOfTwo();
    expect(decodeJwt(session.accessToken).org).toBe(home.organizationId);
  });

  it("is refused 403 FORBIDDEN on every route of another organisation where its user is an admin, at no store's cost", async () => {
    const { home, other, session } = await adminOfTwo();
    const routes = (await authenticatedRoutes(stack, { orgId: other.organizationId })).filter(([, path]) =>
      path.startsWith(`/orgs/${other.organizationId}/`),
    );
    expect(routes.length).toBeGreaterThan(20);
    // Every operation of the document under /orgs/{orgId} is walked: none escapes for want of the bearer scheme.
    expect(routes).toHaveLength((await orgRoutes(stack)).length);
    stack.redisProxy.stats.reset();
    stack.revocationProxy.stats.reset();
    stack.neonProxy.stats.reset();
    for (const [method, path] of routes) {
      const response = await stack.request(method, path, { token: session.accessToken, ...(method === 'GET' ? {} : { body: {} }) });
      expect([method, path, response.status, await errorCode(response)]).toEqual([method, path, 403, 'FORBIDDEN']);
      expect(response.headers.get('ratelimit')).toBeNull();
    }
    expect({
      redis: stack.redisProxy.stats.commands,
      revocation: stack.revocationProxy.stats.commands,
      postgres: stack.neonProxy.stats.httpRequests,
    }).toEqual({ redis: 0, revocation: 0, postgres: 0 });
    // Nothing of the other organisation's was counted.
    expect(await stack.redis.keys(`*:org:{${other.organizationId}}:*`)).toEqual([]);
    // The control: the same token acts in its own organisation.
    const own = await stack.request('GET', `/orgs/${home.organizationId}/members`, { token: session.accessToken });
    expect(own.status).toBe(200);
  });

  it('is refused where its session row is bound to another organisation than its claim', async () => {
    const { home, other, session } = await adminOfTwo();
    const path = `/orgs/${home.organizationId}/members`;
    expect((await stack.request('GET', path, { token: session.accessToken })).status).toBe(200);
    // What a switch of the session to the other organisation leaves behind: the old token's claim names home.
    await stack.db.query('UPDATE sessions SET organization_id = $1 WHERE id = $2', [other.organizationId, session.sessionId]);
    const refused = await stack.request('GET', path, { token: session.accessToken });
    expect([refused.status, await errorCode(refused)]).toEqual([403, 'FORBIDDEN']);
  });
});

/** Every /orgs/{orgId} route of `organizationId` with a body it accepts, so a refusal is the role check's, not validation's. */
async function everyOrgRoute(organizationId: string) {
  return (await orgRoutes(stack)).map((route) => ({
    name: `${route.method} ${route.template}`,
    method: route.method,
    path: route.template.replace(/\{(\w+)\}/g, (_, name: string) =>
      name === 'orgId' ? organizationId : name === 'domain' ? 'walk.example' : uuidv7(),
    ),
    body: route.body,
  }));
}

/** What the organisation's tenant counters hold now, every window summed. */
async function tenantCount(organizationId: string): Promise<number> {
  const keys = await stack.redis.keys(`*:org:{${organizationId}}:ratelimit:counter:tenant.*`);
  const values = await Promise.all(keys.map((key) => stack.redis.get(key)));
  return values.reduce((sum, value) => sum + Number(value ?? 0), 0);
}

/** The revocation check's own reads (its clock, a catch-up page, a denylist miss): the caller's, not the organisation's. */
const REVOCATION_READ = /\b(revocation_clock|revoked_tokens)\b/;

const auditCount = async (organizationId: string) =>
  (await stack.db.query('SELECT count(*)::int AS n FROM audit_events WHERE organization_id = $1', [organizationId])).rows[0].n as number;

describe('a member of another organisation only', () => {
  it('signed in there (bound): refused 403 FORBIDDEN on every route of this organisation, at no store cost', async () => {
    const victim = await stack.seedOrganization();
    const own = await stack.seedOrganization();
    const outsider = await m.addMember(own.organizationId, 'OrganizationAdmin');
    const session = await (await passwordSignIn(stack, outsider))(own.organizationId);
    const routes = await everyOrgRoute(victim.organizationId);
    expect(routes.length).toBeGreaterThan(20);
    const audit = await auditCount(victim.organizationId);
    stack.redisProxy.stats.reset();
    stack.revocationProxy.stats.reset();
    stack.neonProxy.stats.reset();
    for (const route of routes) {
      const response = await stack.request(route.method, route.path, {
        token: session.accessToken,
        ...(route.body !== undefined ? { body: route.body } : {}),
      });
      expect([route.name, response.status, await errorCode(response)]).toEqual([route.name, 403, 'FORBIDDEN']);
      expect(response.headers.get('ratelimit')).toBeNull();
    }
    expect({
      redis: stack.redisProxy.stats.commands,
      revocation: stack.revocationProxy.stats.commands,
      postgres: stack.neonProxy.stats.httpRequests,
    }).toEqual({ redis: 0, revocation: 0, postgres: 0 });
    expect(await stack.redis.keys(`*:org:{${victim.organizationId}}:*`)).toEqual([]);
    expect(await auditCount(victim.organizationId)).toBe(audit);
  });

  it("unbound (a token without the org claim): refused 403 FORBIDDEN on every route by the role check, each at most one PostgreSQL statement; the tenant's count given back, its fields never shown", async () => {
    const victim = await stack.seedOrganization();
    const own = await stack.seedOrganization();
    const routes = await everyOrgRoute(victim.organizationId);
    const audit = await auditCount(victim.organizationId);
    const costlier: string[] = [];
    for (const route of routes) {
      stack.neonProxy.stats.reset();
      const response = await stack.request(route.method, route.path, {
        token: own.adminToken,
        ...(route.body !== undefined ? { body: route.body } : {}),
      });
      expect([route.name, response.status, await errorCode(response)]).toEqual([route.name, 403, 'FORBIDDEN']);
      expect(response.headers.get('ratelimit-policy') ?? '', route.name).not.toContain('"tenant"');
      // The role check, and nothing else of the organisation's: no plan fill, no read of its data.
      const statements = stack.neonProxy.stats.requestTexts.filter((text) => !REVOCATION_READ.test(text));
      if (statements.length > 1) costlier.push(`${route.name}: ${statements.length} statements`);
    }
    expect(costlier).toEqual([]);
    // Every count in the tenant's counter was given back; nothing but limiter counters was written in its slot.
    await expect.poll(() => tenantCount(victim.organizationId), { timeout: 5_000 }).toBe(0);
    expect(withoutLimiterKeys(await stack.redis.keys(`*:org:{${victim.organizationId}}:*`))).toEqual([]);
    expect(await auditCount(victim.organizationId)).toBe(audit);
    // The control: the same token acts in its own organisation.
    expect((await stack.request('GET', `/orgs/${own.organizationId}/members`, { token: own.adminToken })).status).toBe(200);
  });
});
