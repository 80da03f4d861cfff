// What a role change and a removal do to every kind of session the member holds, checked at the stores: a password
// session opened in this organisation and an external identity provider's token with no organisation are refused at
// once on this organisation's admin routes (one opened in another organisation never acted here: it is bound there,
// until it switches here); a removal also revokes the sessions bound here (denylist), drops every active context
// pointing here and forgets the member counts (the Redis keys themselves).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uuidv7 } from 'uuidv7';
import { MEMBER_COUNT_FORGET_MAX_OUTLETS } from '../../lib/runtime/tenants/index.ts';
import { memberFixtures } from '../support/members.ts';
import { errorCode, passwordSignIn } from '../support/sessions.ts';
import { startStack, type TestStack } from '../support/stack.ts';
import { withoutLimiterLogs } from '../support/limiter-keys.ts';

let stack: TestStack;
let m: ReturnType<typeof memberFixtures>;
beforeAll(async () => {
  stack = await startStack({ separateRevocationProxy: true });
  m = memberFixtures(stack);
});
afterAll(async () => stack?.close());

type Org = Awaited<ReturnType<TestStack['seedOrganization']>>;

/** The admin routes of `org` a member acts on: GET ones, so a refusal changes nothing either way. */
async function adminStatuses(org: Org, token: string): Promise<Array<[number, string | undefined]>> {
  const paths = [`/orgs/${org.organizationId}/members`, `/orgs/${org.organizationId}/invites`, `/orgs/${org.organizationId}/settings`];
  const statuses: Array<[number, string | undefined]> = [];
  for (const path of paths) {
    const response = await stack.request('GET', path, { token });
    statuses.push([response.status, response.status === 200 ? undefined : await errorCode(response)]);
  }
  return statuses;
}

const all = (status: number, code?: string) => Array.from({ length: 3 }, () => [status, code] as [number, string | undefined]);

/**
 * An organisation-wide admin of `org` (beside its seeded admin) who is also a member of another organisation, holding
 * one session of every kind: signed in to `org`, signed in to the other, and an identity provider's token (no row).
 */
async function memberWithEverySession(org: Org) {
  const other = await stack.seedOrganization();
  const member = await m.addMember(org.organizationId, 'OrganizationAdmin');
  await m.grant(member.userId, other.organizationId, 'Viewer');
  const signIn = await passwordSignIn(stack, member);
  const here = await signIn(org.organizationId);
  const elsewhere = await signIn(other.organizationId);
  const idpSession = uuidv7();
  const idp = await stack.token({ userId: member.userId, email: member.email, sessionId: idpSession });
  return { member, other, here, elsewhere, idp, idpSession };
}

describe('a demoted member', () => {
  it('is refused at once on the admin routes from every session kind, and no session is revoked', async () => {
    const org = await stack.seedOrganization();
    const { member, here, elsewhere, idp } = await memberWithEverySession(org);
    for (const token of [here.accessToken, idp]) expect(await adminStatuses(org, token)).toEqual(all(200));
    // Bound to the other organisation: an outsider here, whatever role the user holds.
    expect(await adminStatuses(org, elsewhere.accessToken)).toEqual(all(403, 'FORBIDDEN'));

    const response = await m.changeRole(org.organizationId, member.userId, org.adminToken, { roleCode: 'Viewer' });
    expect(response.status).toBe(200);

    for (const token of [here.accessToken, elsewhere.accessToken, idp])
      expect(await adminStatuses(org, token)).toEqual(all(403, 'FORBIDDEN'));
    // Still a member: the sessions live on (a Viewer's own routes work), nothing was put on the denylist.
    expect((await stack.request('GET', '/auth/memberships', { token: here.accessToken })).status).toBe(200);
    expect(await stack.redis.exists(stack.deps.keys.revokedSession(here.sessionId))).toBe(0);
  });
});

describe('a removed member', () => {
  it('is refused at once from every session kind: the session opened here is revoked, the others lose the role', async () => {
    const org = await stack.seedOrganization();
    const { member, other, here, elsewhere, idp } = await memberWithEverySession(org);
    const secondHere = await (await passwordSignIn(stack, member))(org.organizationId);
    for (const token of [here.accessToken, secondHere.accessToken, idp]) expect(await adminStatuses(org, token)).toEqual(all(200));
    expect(await adminStatuses(org, elsewhere.accessToken)).toEqual(all(403, 'FORBIDDEN'));

    expect((await m.remove(org.organizationId, member.userId, org.adminToken)).status).toBe(204);

    // Opened in this organisation: revoked, on the denylist (401 before any role check), refresh tokens dead.
    for (const session of [here, secondHere]) {
      expect(await adminStatuses(org, session.accessToken)).toEqual(all(401, 'TOKEN_REVOKED'));
      expect(await stack.redis.ttl(stack.deps.keys.revokedSession(session.sessionId))).toBeGreaterThan(0);
      const refreshed = await stack.request('POST', '/auth/refresh', { body: { refreshToken: session.refreshToken } });
      expect(await errorCode(refreshed)).toBe('REFRESH_INVALID');
    }
    // Opened elsewhere (never acted here), or an identity provider's: not this organisation's to end, no role here any more.
    for (const token of [elsewhere.accessToken, idp]) expect(await adminStatuses(org, token)).toEqual(all(403, 'FORBIDDEN'));
    expect(await stack.redis.exists(stack.deps.keys.revokedSession(elsewhere.sessionId))).toBe(0);
    const stillThere = await stack.request('GET', '/auth/memberships', { token: elsewhere.accessToken });
    expect(((await stillThere.json()) as { memberships: Array<{ organizationId: string }> }).memberships).toEqual([
      expect.objectContaining({ organizationId: other.organizationId }),
    ]);
    const sessions = await stack.db.query('SELECT id, revoked_at FROM sessions WHERE user_id = $1 ORDER BY id', [member.userId]);
    const revoked = Object.fromEntries(
      sessions.rows.map((row: { id: string; revoked_at: Date | null }) => [row.id, row.revoked_at !== null]),
    );
    expect(revoked).toEqual({ [here.sessionId]: true, [secondHere.sessionId]: true, [elsewhere.sessionId]: false });
  });

  it('drops every active context that points at the organisation, whatever session set it, and leaves the others', async () => {
    const org = await stack.seedOrganization();
    const { member, other, here, elsewhere, idp, idpSession } = await memberWithEverySession(org);
    const otherIdpSession = uuidv7();
    const otherIdp = await stack.token({ userId: member.userId, sessionId: otherIdpSession });
    const put = (token: string, organizationId: string) => stack.request('PUT', '/auth/context', { token, body: { organizationId } });
    for (const token of [here.accessToken, idp]) expect((await put(token, org.organizationId)).status).toBe(200);
    // The session bound to the other organisation choosing this one switches here (docs/design/sign-in.md#switching-organisation):
    // from then on it is a session of this organisation, which the removal ends too.
    const switched = await put(elsewhere.accessToken, org.organizationId);
    expect(switched.status).toBe(200);
    const moved = ((await switched.json()) as { session: { accessToken: string } }).session;
    // A context in the other organisation: not this removal's business.
    expect((await put(otherIdp, other.organizationId)).status).toBe(200);
    const contextKey = (sessionId: string) => stack.deps.keys.activeContext(member.userId, sessionId);
    const index = stack.deps.keys.activeContextIndex(member.userId);
    expect((await stack.redis.zrange(index, 0, -1)).sort()).toEqual(
      [here.sessionId, elsewhere.sessionId, idpSession, otherIdpSession].sort(),
    );

    expect((await m.remove(org.organizationId, member.userId, org.adminToken)).status).toBe(204);

    for (const sessionId of [here.sessionId, elsewhere.sessionId, idpSession])
      expect(await stack.redis.exists(contextKey(sessionId))).toBe(0);
    expect(JSON.parse((await stack.redis.get(contextKey(otherIdpSession)))!)).toMatchObject({ organizationId: other.organizationId });
    expect(await stack.redis.zrange(index, 0, -1)).toEqual([otherIdpSession]);
    // Seen through the API too: the context reads as none, the other organisation's is still there.
    expect((await stack.request('GET', '/auth/context', { token: idp })).status).toBe(404);
    expect(await errorCode(await stack.request('GET', '/auth/context', { token: moved.accessToken }))).toBe('TOKEN_REVOKED');
    expect(await stack.redis.ttl(stack.deps.keys.revokedSession(elsewhere.sessionId))).toBeGreaterThan(0);
    expect((await stack.request('GET', '/auth/context', { token: otherIdp })).status).toBe(200);
  });

  it("forgets the organisation's member count and those of the Outlets the member could act at", async () => {
    const org = await stack.seedOrganization();
    const second = await m.addOutlet(org.organizationId);
    const orgWide = await m.addMember(org.organizationId, 'Viewer');
    const atSecond = await m.addMember(org.organizationId, 'Viewer', second);
    const count = async (locationId: string | null) => {
      const query = locationId === null ? '' : `?locationId=${locationId}`;
      const response = await stack.request('GET', `/orgs/${org.organizationId}/members/count${query}`, { token: org.adminToken });
      expect(response.status).toBe(200);
      return ((await response.json()) as { count: number }).count;
    };
    const key = (locationId: string | null) => stack.deps.keys.orgMemberCountCache(org.organizationId, '0', locationId);
    const cacheAll = async () => [await count(null), await count(org.locationId), await count(second)];
    expect(await cacheAll()).toEqual([3, 2, 3]);
    for (const scope of [null, org.locationId, second]) expect(await stack.redis.exists(key(scope))).toBe(1);

    // An Outlet-only member: the organisation's count and that Outlet's go; the other Outlet's entry stays.
    expect((await m.remove(org.organizationId, atSecond.userId, org.adminToken)).status).toBe(204);
    expect([
      await stack.redis.exists(key(null)),
      await stack.redis.exists(key(org.locationId)),
      await stack.redis.exists(key(second)),
    ]).toEqual([0, 1, 0]);
    expect(await cacheAll()).toEqual([2, 2, 2]);

    // An organisation-wide member counts at every Outlet: every entry goes, and the next read is PostgreSQL's.
    expect((await m.remove(org.organizationId, orgWide.userId, org.adminToken)).status).toBe(204);
    for (const scope of [null, org.locationId, second]) expect(await stack.redis.exists(key(scope))).toBe(0);
    expect(await cacheAll()).toEqual([1, 1, 1]);
  });

  it(`with more than ${MEMBER_COUNT_FORGET_MAX_OUTLETS} Outlets, an organisation-wide member's removal forgets the whole cache at once`, async () => {
    const org = await stack.seedOrganization();
    const outlets = Array.from({ length: MEMBER_COUNT_FORGET_MAX_OUTLETS + 1 }, () => uuidv7());
    await stack.db.query(`INSERT INTO locations (id, organization_id, name) SELECT u, $2, 'Outlet' FROM unnest($1::uuid[]) AS u`, [
      outlets,
      org.organizationId,
    ]);
    const member = await m.addMember(org.organizationId, 'Accountant');
    const generationKey = stack.deps.keys.orgCacheGeneration(org.organizationId);
    expect(await stack.redis.exists(generationKey)).toBe(0);
    expect((await m.remove(org.organizationId, member.userId, org.adminToken)).status).toBe(204);
    // A new generation: every entry cached before is out of reach (docs/design/tenants.md#tenant-wide-invalidation).
    expect(await stack.redis.get(generationKey)).toMatch(/^[0-9a-f]{32}$/);
  });

  it('still answers 204 when Redis fails after the commit, logging one WARN per step and naming no key', async () => {
    const org = await stack.seedOrganization();
    const member = await m.addMember(org.organizationId, 'Viewer');
    const before = stack.logs.length;
    stack.redisProxy.faults.set({ refuse: true });
    let response: Response;
    try {
      response = await m.remove(org.organizationId, member.userId, org.adminToken);
    } finally {
      stack.redisProxy.faults.clear();
    }
    expect(response.status).toBe(204);
    expect(await m.rolesOf(member.userId, org.organizationId)).toEqual([]);
    const warns = withoutLimiterLogs(stack.logs.slice(before)).filter((line) => line.includes('"level":"warn"'));
    expect(warns.map((line) => (JSON.parse(line) as { event: string }).event).sort()).toEqual([
      'cache_unavailable',
      'context_delete_failed',
      'invite_cancel_deferred',
    ]);
    for (const line of warns) expect(line).not.toContain(`${stack.deps.keys.prefix}:`);
  });
});
