// Revocation writes: logout, sign out everywhere and an admin's revoke of a member's sessions commit in PostgreSQL,
// then put every session on the denylist for the longest token lifetime; every token of them is refused on every route.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uuidv7 } from 'uuidv7';
import { authenticatedRoutes, errorCode, passwordSignIn } from '../support/sessions.ts';
import { newInvitee, startStack, type TestStack } from '../support/stack.ts';
import { withoutLimiterKeys } from '../support/limiter-keys.ts';

const LIFETIME_SECONDS = 900;

let stack: TestStack;
beforeAll(async () => {
  stack = await startStack({ separateRevocationProxy: true });
});
afterAll(async () => stack?.close());

type Org = Awaited<ReturnType<TestStack['seedOrganization']>>;

async function grant(userId: string, organizationId: string, roleCode = 'Viewer', locationId: string | null = null): Promise<void> {
  await stack.db.query('INSERT INTO role_assignments (id, user_id, organization_id, location_id, role_code) VALUES ($1, $2, $3, $4, $5)', [
    uuidv7(),
    userId,
    organizationId,
    locationId,
    roleCode,
  ]);
}

async function newMember(org: Org, roleCode = 'Viewer'): Promise<{ userId: string; email: string }> {
  const member = newInvitee();
  await stack.db.query('INSERT INTO users (id, email) VALUES ($1, $2)', [member.userId, member.email]);
  await grant(member.userId, org.organizationId, roleCode);
  return member;
}

/** A route any valid token passes (the context read: 404 with none set), to tell a refused token from a live one. */
async function statusOf(token: string): Promise<[number, string | undefined]> {
  const response = await stack.request('GET', '/auth/context', { token });
  return [response.status, await errorCode(response)];
}

async function expectRefused(tokens: string[]): Promise<void> {
  for (const token of tokens) expect(await statusOf(token)).toEqual([401, 'TOKEN_REVOKED']);
}

async function expectLive(tokens: string[]): Promise<void> {
  for (const token of tokens) expect(await statusOf(token)).toEqual([404, 'NOT_FOUND']);
}

async function denylistTtls(sessionIds: string[]): Promise<number[]> {
  return Promise.all(sessionIds.map((id) => stack.redis.ttl(stack.deps.keys.revokedSession(id))));
}

function expectLifetimeTtls(ttls: number[]): void {
  for (const ttl of ttls) expect(Math.abs(ttl - LIFETIME_SECONDS)).toBeLessThanOrEqual(1);
}

async function auditRows(action: string, targetId: string) {
  const rows = await stack.db.query(
    'SELECT actor_user_id, organization_id, target_id, details FROM audit_events WHERE action = $1 AND target_id = $2',
    [action, targetId],
  );
  return rows.rows as Array<{ actor_user_id: string; organization_id: string | null; target_id: string; details: Record<string, unknown> }>;
}

describe('after logout', () => {
  it('every token of the session is 401 TOKEN_REVOKED on every authenticated route of the OpenAPI document, and nothing is written', async () => {
    const org = await stack.seedOrganization();
    const sessionId = uuidv7();
    const first = await stack.token({ userId: org.adminId, sessionId });
    const second = await stack.token({ userId: org.adminId, sessionId, expiresInSeconds: 600 });
    expect((await stack.request('POST', '/auth/logout', { token: first })).status).toBe(204);
    // Read at once: the walk below takes seconds on a loaded machine, and the TTL counts them down.
    expectLifetimeTtls(await denylistTtls([sessionId]));
    const routes = await authenticatedRoutes(stack, { orgId: org.organizationId, userId: org.adminId });
    // The walk is the document's, so routes added later are walked too; today's are all there.
    expect(routes.length).toBeGreaterThanOrEqual(20);
    expect(routes).toContainEqual(['POST', '/auth/sessions/revoke-all']);
    expect(routes).toContainEqual(['POST', `/orgs/${org.organizationId}/members/${org.adminId}/sessions/revoke`]);
    const auditBefore = await stack.db.query(
      'SELECT count(*)::int AS n FROM audit_events WHERE actor_user_id = $1 OR organization_id = $2',
      [org.adminId, org.organizationId],
    );
    for (const token of [first, second]) {
      for (const [method, path] of routes) {
        const response = await stack.request(method, path, { token });
        const label = `${method} ${path}`;
        expect(response.status, label).toBe(401);
        expect(await errorCode(response), label).toBe('TOKEN_REVOKED');
      }
    }
    const auditAfter = await stack.db.query(
      'SELECT count(*)::int AS n FROM audit_events WHERE actor_user_id = $1 OR organization_id = $2',
      [org.adminId, org.organizationId],
    );
    expect(auditAfter.rows[0].n).toBe(auditBefore.rows[0].n);
    expect(withoutLimiterKeys(await stack.redis.keys(`*:org:{${org.organizationId}}:*`))).toEqual([]);
    for (const ttl of await denylistTtls([sessionId])) expect(ttl).toBeGreaterThan(LIFETIME_SECONDS - 120);
  });
});

describe('sign out everywhere', () => {
  it('revokes every session of the caller — signed in, known from before, and the presenting one — and no other user', async () => {
    const org = await stack.seedOrganization();
    const user = { userId: org.adminId, email: org.adminEmail };
    const signIn = await passwordSignIn(stack, user);
    const a = await signIn(org.organizationId);
    const b = await signIn(org.organizationId);
    // A later token of a signed-in session, and a session PostgreSQL knew (an identity provider's, logged earlier).
    const aLater = await stack.token({ userId: org.adminId, sessionId: a.sessionId, expiresInSeconds: 800 });
    const known = uuidv7();
    await stack.db.query('INSERT INTO sessions (id, user_id) VALUES ($1, $2)', [known, org.adminId]);
    const knownToken = await stack.token({ userId: org.adminId, sessionId: known });
    // The presenting session has no row at all, as an identity provider's session would not; its token is about to
    // expire, and the entries still live the whole lifetime.
    const presenting = uuidv7();
    const presentingToken = await stack.token({ userId: org.adminId, sessionId: presenting, expiresInSeconds: 60 });
    const other = await stack.seedOrganization();
    const otherSignIn = await passwordSignIn(stack, { userId: other.adminId, email: other.adminEmail });
    const otherSession = await otherSignIn(other.organizationId);
    await expectLive([a.accessToken, b.accessToken, aLater, knownToken, presentingToken]);

    const response = await stack.request('POST', '/auth/sessions/revoke-all', { token: presentingToken });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ revoked: 4, denylistPending: [] });

    await expectRefused([a.accessToken, b.accessToken, aLater, knownToken, presentingToken]);
    const list = await stack.request('GET', `/orgs/${org.organizationId}/invites`, { token: b.accessToken });
    expect(await errorCode(list)).toBe('TOKEN_REVOKED');
    // The refresh tokens end with their sessions: PostgreSQL holds them revoked.
    for (const refreshToken of [a.refreshToken, b.refreshToken]) {
      const refreshed = await stack.request('POST', '/auth/refresh', { body: { refreshToken } });
      expect(await errorCode(refreshed)).toBe('REFRESH_INVALID');
    }
    await expectLive([otherSession.accessToken, other.adminToken]);

    const sessions = await stack.db.query('SELECT id, revoked_at FROM sessions WHERE user_id = $1', [org.adminId]);
    expect(sessions.rows.map((row: { id: string }) => row.id).sort()).toEqual([a.sessionId, b.sessionId, known, presenting].sort());
    for (const row of sessions.rows as Array<{ revoked_at: Date | null }>) expect(row.revoked_at).toBeInstanceOf(Date);
    expect(await stack.db.query('SELECT revoked_at FROM sessions WHERE id = $1', [otherSession.sessionId])).toMatchObject({
      rows: [{ revoked_at: null }],
    });
    // The denylist entries live the longest token lifetime (±1 s), so the later token of `a` stays refused as long as it lives.
    expectLifetimeTtls(await denylistTtls([a.sessionId, b.sessionId, known, presenting]));
    expect(await stack.redis.exists(stack.deps.keys.revokedSession(otherSession.sessionId))).toBe(0);

    const audit = await auditRows('session.revoked_all', org.adminId);
    expect(audit).toEqual([{ actor_user_id: org.adminId, organization_id: null, target_id: org.adminId, details: { revokedCount: 4 } }]);
    for (const id of [a.sessionId, b.sessionId, known, presenting]) expect(JSON.stringify(audit)).not.toContain(id);
  });

  it('counts only what it ends: a second call from a new session revokes that one, and an ended session is left alone', async () => {
    const org = await stack.seedOrganization();
    const signIn = await passwordSignIn(stack, { userId: org.adminId, email: org.adminEmail });
    const first = await signIn(org.organizationId);
    const ended = await signIn(org.organizationId);
    await stack.db.query("UPDATE sessions SET expires_at = now() - interval '1 minute' WHERE id = $1", [ended.sessionId]);
    const response = await stack.request('POST', '/auth/sessions/revoke-all', { token: first.accessToken });
    expect(await response.json()).toEqual({ revoked: 1, denylistPending: [] });
    const next = await signIn(org.organizationId);
    const again = await stack.request('POST', '/auth/sessions/revoke-all', { token: next.accessToken });
    expect(await again.json()).toEqual({ revoked: 1, denylistPending: [] });
    expect(await stack.db.query('SELECT revoked_at FROM sessions WHERE id = $1', [ended.sessionId])).toMatchObject({
      rows: [{ revoked_at: null }],
    });
    const counts = (await auditRows('session.revoked_all', org.adminId)).map((row) => row.details.revokedCount);
    expect(counts).toEqual([1, 1]);
  });

  it("deletes the active contexts of every session it revokes, and not another user's", async () => {
    const org = await stack.seedOrganization();
    const signIn = await passwordSignIn(stack, { userId: org.adminId, email: org.adminEmail });
    const a = await signIn(org.organizationId);
    const b = await signIn(org.organizationId);
    const other = await stack.seedOrganization();
    for (const [token, organizationId] of [
      [a.accessToken, org.organizationId],
      [b.accessToken, org.organizationId],
      [other.adminToken, other.organizationId],
    ] as const) {
      expect((await stack.request('PUT', '/auth/context', { token, body: { organizationId } })).status).toBe(200);
    }
    const contextKeys = [a, b].map((s) => stack.deps.keys.activeContext(org.adminId, s.sessionId));
    expect(await stack.redis.exists(...contextKeys)).toBe(2);
    expect((await stack.request('POST', '/auth/sessions/revoke-all', { token: a.accessToken })).status).toBe(200);
    expect(await stack.redis.exists(...contextKeys)).toBe(0);
    expect((await stack.request('GET', '/auth/context', { token: other.adminToken })).status).toBe(200);
  });
});

describe("an admin revokes a member's sessions", () => {
  it("ends the member's sessions opened in this organisation only; another tenant's and the identity provider's stay", async () => {
    const org = await stack.seedOrganization();
    const elsewhere = await stack.seedOrganization();
    const member = await newMember(org);
    await grant(member.userId, elsewhere.organizationId);
    const signIn = await passwordSignIn(stack, member);
    const here1 = await signIn(org.organizationId);
    const here2 = await signIn(org.organizationId);
    const there = await signIn(elsewhere.organizationId);
    // An identity provider's session carries no organisation: out of an organisation admin's reach.
    const idpSession = uuidv7();
    await stack.db.query('INSERT INTO sessions (id, user_id) VALUES ($1, $2)', [idpSession, member.userId]);
    const idpToken = await stack.token({ userId: member.userId, sessionId: idpSession });
    await stack.request('PUT', '/auth/context', { token: here1.accessToken, body: { organizationId: org.organizationId } });

    const path = `/orgs/${org.organizationId}/members/${member.userId.toUpperCase()}/sessions/revoke`;
    const response = await stack.request('POST', path, { token: org.adminToken });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { revoked: number; denylistPending: string[] };
    expect(body).toEqual({ revoked: 2, denylistPending: [] });

    await expectRefused([here1.accessToken, here2.accessToken]);
    await expectLive([there.accessToken, idpToken, org.adminToken]);
    expectLifetimeTtls(await denylistTtls([here1.sessionId, here2.sessionId]));
    expect(await stack.redis.exists(stack.deps.keys.revokedSession(there.sessionId))).toBe(0);
    expect(await stack.redis.exists(stack.deps.keys.activeContext(member.userId, here1.sessionId))).toBe(0);
    const revoked = await stack.db.query('SELECT id FROM sessions WHERE user_id = $1 AND revoked_at IS NOT NULL', [member.userId]);
    expect(revoked.rows.map((row: { id: string }) => row.id).sort()).toEqual([here1.sessionId, here2.sessionId].sort());
    expect(await auditRows('session.revoked_by_admin', member.userId)).toEqual([
      { actor_user_id: org.adminId, organization_id: org.organizationId, target_id: member.userId, details: { revokedCount: 2 } },
    ]);
  });

  it("refuses another organisation's admin and a plain member (403), a user without a role here (404); nothing revoked or audited", async () => {
    const org = await stack.seedOrganization();
    const other = await stack.seedOrganization();
    const member = await newMember(org);
    const signIn = await passwordSignIn(stack, member);
    const session = await signIn(org.organizationId);
    const memberToken = await stack.token({ userId: member.userId });
    const path = (userId: string) => `/orgs/${org.organizationId}/members/${userId}/sessions/revoke`;
    const cases: Array<[string, string, number, string]> = [
      [other.adminToken, path(member.userId), 403, 'FORBIDDEN'],
      [memberToken, path(member.userId), 403, 'FORBIDDEN'],
      [org.adminToken, path(other.adminId), 404, 'NOT_FOUND'],
      [org.adminToken, path(uuidv7()), 404, 'NOT_FOUND'],
      [org.adminToken, `/orgs/${org.organizationId}/members/not-a-uuid/sessions/revoke`, 400, 'VALIDATION_FAILED'],
    ];
    for (const [token, target, status, code] of cases) {
      const response = await stack.request('POST', target, { token });
      expect([response.status, await errorCode(response)], target).toEqual([status, code]);
    }
    await expectLive([session.accessToken, other.adminToken]);
    const audit = await stack.db.query(
      "SELECT count(*)::int AS n FROM audit_events WHERE action = 'session.revoked_by_admin' AND organization_id = $1",
      [org.organizationId],
    );
    expect(audit.rows[0].n).toBe(0);
  });

  it('a member without open sessions here: 200 with nothing revoked, and the audit row says 0', async () => {
    const org = await stack.seedOrganization();
    const member = await newMember(org);
    const response = await stack.request('POST', `/orgs/${org.organizationId}/members/${member.userId}/sessions/revoke`, {
      token: org.adminToken,
    });
    expect(await response.json()).toEqual({ revoked: 0, denylistPending: [] });
    expect((await auditRows('session.revoked_by_admin', member.userId)).map((row) => row.details)).toEqual([{ revokedCount: 0 }]);
  });
});
