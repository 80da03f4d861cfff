// Tenant isolation at the door: a session signed in to one organisation is bound to it, and on every route of another
// organisation it is refused exactly as an outsider is (403 FORBIDDEN), before the rate limiter, the denylist or
// PostgreSQL is asked anything, although the same user is an admin there.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeJwt } from 'jose';
import { memberFixtures } from '../support/members.ts';
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
