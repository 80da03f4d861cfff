// The session inventory and who may act on which session: a user lists and ends their own sessions; a session id of
// another user, guessed or borrowed (in a path or in a token's sid), reaches nothing; an organisation's admin sees a
// member's sessions opened in that organisation only.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uuidv7 } from 'uuidv7';
import { errorCode, passwordSignIn, type SignedIn } from '../support/sessions.ts';
import { TEST_CLIENT_IP_HEADER } from '../../local/stack/app.ts';
import { setPassword } from '../support/fixtures.ts';
import { newInvitee, startStack, type TestStack } from '../support/stack.ts';

// The app's clock runs this far ahead of the real one when a test moves it (to show lastSeenAt move).
let offsetMs = 0;
const clock = { now: () => Date.now() + offsetMs };

let stack: TestStack;
beforeAll(async () => {
  stack = await startStack({ separateRevocationProxy: true, deps: { clock } });
});
afterAll(async () => stack?.close());

type Org = Awaited<ReturnType<TestStack['seedOrganization']>>;

interface ListedSession {
  id: string;
  current?: boolean;
  createdAt: string;
  lastSeenAt: string;
  userAgent: string | null;
  organizationId: string;
  method: string | null;
}

async function grant(userId: string, organizationId: string, roleCode = 'Viewer'): Promise<void> {
  await stack.db.query(
    'INSERT INTO role_assignments (id, user_id, organization_id, location_id, role_code) VALUES ($1, $2, $3, NULL, $4)',
    [uuidv7(), userId, organizationId, roleCode],
  );
}

async function newMember(org: Org): Promise<{ userId: string; email: string }> {
  const member = newInvitee();
  await stack.db.query('INSERT INTO users (id, email) VALUES ($1, $2)', [member.userId, member.email]);
  await grant(member.userId, org.organizationId);
  return member;
}

let ipCounter = 0;
/** Signs in with a User-Agent of the test's choosing (passwordSignIn sends none). */
async function signInWithAgent(user: { userId: string; email: string }, organizationId: string, userAgent: string): Promise<SignedIn> {
  const password = `pw-${uuidv7()}`;
  await setPassword(stack.db, user.userId, password);
  const response = await stack.request('POST', '/auth/login', {
    body: { organizationId, email: user.email, password },
    headers: { [TEST_CLIENT_IP_HEADER]: `127.2.0.${++ipCounter % 250}`, 'user-agent': userAgent },
  });
  expect(response.status).toBe(200);
  const tokens = (await response.json()) as { accessToken: string; refreshToken: string };
  const { rows } = await stack.db.query('SELECT id FROM sessions WHERE user_id = $1 ORDER BY created_at DESC LIMIT 1', [user.userId]);
  return { sessionId: (rows[0] as { id: string }).id, ...tokens };
}

async function listOwn(token: string): Promise<ListedSession[]> {
  const response = await stack.request('GET', '/auth/sessions', { token });
  expect(response.status).toBe(200);
  return ((await response.json()) as { sessions: ListedSession[] }).sessions;
}

/** A route any live token passes (the context read: 404 with none set), to tell a refused token from a live one. */
async function tokenAnswer(token: string): Promise<string> {
  const response = await stack.request('GET', '/auth/context', { token });
  return response.status === 404 ? 'live' : `${response.status} ${await errorCode(response)}`;
}

async function refreshAnswer(refreshToken: string): Promise<number> {
  return (await stack.request('POST', '/auth/refresh', { body: { refreshToken } })).status;
}

async function revokedAt(sessionId: string): Promise<Date | null> {
  const { rows } = await stack.db.query('SELECT revoked_at FROM sessions WHERE id = $1', [sessionId]);
  return (rows[0] as { revoked_at: Date | null } | undefined)?.revoked_at ?? null;
}

describe('GET /auth/sessions', () => {
  it("lists the caller's live sessions with how and from what each was opened, the presenting one marked current", async () => {
    const org = await stack.seedOrganization();
    const user = { userId: org.adminId, email: org.adminEmail };
    // A terminal escape, C1 and DEL characters and a tab in the header (a header cannot carry CR or LF): none is shown.
    const phone = await signInWithAgent(user, org.organizationId, 'Phone/1.0\u001b[31m (evil)\u0085\u007f\tX-Injected: 1');
    const laptop = await signInWithAgent(user, org.organizationId, `Laptop/2.0 ${'x'.repeat(400)}`);
    const ended = await signInWithAgent(user, org.organizationId, 'Old/0.1');
    expect((await stack.request('POST', '/auth/logout', { token: ended.accessToken })).status).toBe(204);
    // Another user's session in the same organisation is none of the caller's business.
    const other = await newMember(org);
    await (
      await passwordSignIn(stack, other)
    )(org.organizationId);

    const sessions = await listOwn(laptop.accessToken);
    expect(sessions.map((s) => s.id)).toEqual([laptop.sessionId, phone.sessionId]);
    const [mine, theirs] = sessions as [ListedSession, ListedSession];
    expect(mine).toMatchObject({ current: true, organizationId: org.organizationId, method: 'password' });
    expect(mine.userAgent).toBe(`Laptop/2.0 ${'x'.repeat(245)}`);
    expect(theirs).toMatchObject({ id: phone.sessionId, current: false, userAgent: 'Phone/1.0[31m (evil)X-Injected: 1' });
    expect(Object.keys(mine).sort()).toEqual(['createdAt', 'current', 'id', 'lastSeenAt', 'method', 'organizationId', 'userAgent']);
    expect(mine.lastSeenAt).toBe(mine.createdAt);
    expect((await listOwn(phone.accessToken)).find((s) => s.current)?.id).toBe(phone.sessionId);
  });

  it('moves lastSeenAt on each refresh, and leaves out sessions past their end or idle past the timeout', async () => {
    const org = await stack.seedOrganization();
    const user = { userId: org.adminId, email: org.adminEmail };
    const signIn = await passwordSignIn(stack, user);
    const session = await signIn(org.organizationId);
    const expired = await signIn(org.organizationId);
    const idle = await signIn(org.organizationId);
    await stack.db.query("UPDATE sessions SET expires_at = now() - interval '1 second' WHERE id = $1", [expired.sessionId]);
    await stack.db.query("UPDATE sessions SET last_seen_at = now() - interval '2 hours 1 second' WHERE id = $1", [idle.sessionId]);
    offsetMs = 60_000;
    try {
      expect(await refreshAnswer(session.refreshToken)).toBe(200);
    } finally {
      offsetMs = 0;
    }
    const listed = await listOwn(session.accessToken);
    expect(listed.map((s) => s.id)).toEqual([session.sessionId]);
    const seen = Date.parse(listed[0]!.lastSeenAt) - Date.parse(listed[0]!.createdAt);
    expect(seen).toBeGreaterThanOrEqual(59_000);
    expect(seen).toBeLessThan(70_000);
  });

  it('is refused for a revoked token like every route (401 TOKEN_REVOKED)', async () => {
    const org = await stack.seedOrganization();
    const session = await (await passwordSignIn(stack, { userId: org.adminId, email: org.adminEmail }))(org.organizationId);
    expect((await stack.request('POST', '/auth/logout', { token: session.accessToken })).status).toBe(204);
    const response = await stack.request('GET', '/auth/sessions', { token: session.accessToken });
    expect([response.status, await errorCode(response)]).toEqual([401, 'TOKEN_REVOKED']);
  });
});

describe('DELETE /auth/sessions/{sessionId}', () => {
  it("ends one of the caller's own sessions: revoked, audited without its id, denylisted, its refresh token dead", async () => {
    const org = await stack.seedOrganization();
    const signIn = await passwordSignIn(stack, { userId: org.adminId, email: org.adminEmail });
    const here = await signIn(org.organizationId);
    const there = await signIn(org.organizationId);
    const response = await stack.request('DELETE', `/auth/sessions/${there.sessionId.toUpperCase()}`, { token: here.accessToken });
    expect(response.status).toBe(204);
    expect(await revokedAt(there.sessionId)).toBeInstanceOf(Date);
    expect(await tokenAnswer(there.accessToken)).toBe('401 TOKEN_REVOKED');
    expect(await refreshAnswer(there.refreshToken)).toBe(401);
    expect(await stack.redis.ttl(stack.deps.keys.revokedSession(there.sessionId))).toBeGreaterThan(890);
    // The session the call came from goes on.
    expect(await tokenAnswer(here.accessToken)).toBe('live');
    expect((await listOwn(here.accessToken)).map((s) => s.id)).toEqual([here.sessionId]);
    const { rows } = await stack.db.query("SELECT * FROM audit_events WHERE action = 'session.revoked' AND actor_user_id = $1", [
      org.adminId,
    ]);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ target_id: org.adminId, details: { via: 'session-list' } });
    expect(JSON.stringify(rows)).not.toContain(there.sessionId);
    // A repeat (a lost reply) answers alike and audits nothing more.
    expect((await stack.request('DELETE', `/auth/sessions/${there.sessionId}`, { token: here.accessToken })).status).toBe(204);
    const again = await stack.db.query(
      "SELECT count(*)::int AS n FROM audit_events WHERE action = 'session.revoked' AND actor_user_id = $1",
      [org.adminId],
    );
    expect((again.rows[0] as { n: number }).n).toBe(1);
  });

  it('answers a session id of another user exactly as an unknown one (404), and that session still works', async () => {
    const org = await stack.seedOrganization();
    const attacker = await (await passwordSignIn(stack, { userId: org.adminId, email: org.adminEmail }))(org.organizationId);
    const victimUser = await newMember(org);
    const victim = await (await passwordSignIn(stack, victimUser))(org.organizationId);
    const borrowed = await stack.request('DELETE', `/auth/sessions/${victim.sessionId}`, { token: attacker.accessToken });
    const unknown = await stack.request('DELETE', `/auth/sessions/${uuidv7()}`, { token: attacker.accessToken });
    const answers = [`${borrowed.status} ${await borrowed.text()}`, `${unknown.status} ${await unknown.text()}`];
    expect(answers[0]).toMatch(/^404 .*"NOT_FOUND"/);
    expect(answers[1]).toBe(answers[0]);
    expect(await revokedAt(victim.sessionId)).toBeNull();
    expect(await stack.redis.exists(stack.deps.keys.revokedSession(victim.sessionId))).toBe(0);
    expect(await tokenAnswer(victim.accessToken)).toBe('live');
    expect(await refreshAnswer(victim.refreshToken)).toBe(200);
    expect((await stack.request('DELETE', '/auth/sessions/not-a-uuid', { token: attacker.accessToken })).status).toBe(400);
  });
});

describe("a token whose sid is another user's session", () => {
  it('logout ends that token alone: the other session stays live, with no denylist entry and no audit row', async () => {
    const org = await stack.seedOrganization();
    const victimUser = await newMember(org);
    const victim = await (await passwordSignIn(stack, victimUser))(org.organizationId);
    const borrowed = await stack.token({ userId: org.adminId, sessionId: victim.sessionId });
    expect((await stack.request('POST', '/auth/logout', { token: borrowed })).status).toBe(204);
    expect(await revokedAt(victim.sessionId)).toBeNull();
    expect(await stack.redis.exists(stack.deps.keys.revokedSession(victim.sessionId))).toBe(0);
    expect(await tokenAnswer(victim.accessToken)).toBe('live');
    expect(await refreshAnswer(victim.refreshToken)).toBe(200);
    const { rows } = await stack.db.query('SELECT user_id FROM sessions WHERE id = $1', [victim.sessionId]);
    expect(rows).toEqual([{ user_id: victimUser.userId }]);
    const audit = await stack.db.query(
      "SELECT count(*)::int AS n FROM audit_events WHERE action = 'session.revoked' AND actor_user_id = $1",
      [org.adminId],
    );
    expect((audit.rows[0] as { n: number }).n).toBe(0);
    // The token that asked is ended all the same, by its jti.
    expect(await tokenAnswer(borrowed)).toBe('401 TOKEN_REVOKED');
    expect(stack.logs.some((line) => line.includes('"session_owner_mismatch"') && line.includes(org.adminId))).toBe(true);
  });

  it("sign out everywhere ends the caller's own sessions and the token, never the session its sid names", async () => {
    const org = await stack.seedOrganization();
    const own = await (await passwordSignIn(stack, { userId: org.adminId, email: org.adminEmail }))(org.organizationId);
    const victimUser = await newMember(org);
    const victim = await (await passwordSignIn(stack, victimUser))(org.organizationId);
    const borrowed = await stack.token({ userId: org.adminId, sessionId: victim.sessionId });
    const response = await stack.request('POST', '/auth/sessions/revoke-all', { token: borrowed });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ revoked: 1, denylistPending: [] });
    expect(await tokenAnswer(own.accessToken)).toBe('401 TOKEN_REVOKED');
    expect(await tokenAnswer(borrowed)).toBe('401 TOKEN_REVOKED');
    expect(await revokedAt(victim.sessionId)).toBeNull();
    expect(await stack.redis.exists(stack.deps.keys.revokedSession(victim.sessionId))).toBe(0);
    expect(await tokenAnswer(victim.accessToken)).toBe('live');
    expect(await refreshAnswer(victim.refreshToken)).toBe(200);
  });

  it("the caller's own token (positive control) still ends its session on logout", async () => {
    const org = await stack.seedOrganization();
    const own = await (await passwordSignIn(stack, { userId: org.adminId, email: org.adminEmail }))(org.organizationId);
    const later = await stack.token({ userId: org.adminId, sessionId: own.sessionId });
    expect((await stack.request('POST', '/auth/logout', { token: later })).status).toBe(204);
    expect(await revokedAt(own.sessionId)).toBeInstanceOf(Date);
    expect(await tokenAnswer(own.accessToken)).toBe('401 TOKEN_REVOKED');
  });
});

describe('GET /orgs/{orgId}/members/{userId}/sessions', () => {
  it("shows an admin the member's live sessions opened in that organisation only, without `current`", async () => {
    const a = await stack.seedOrganization();
    const b = await stack.seedOrganization();
    const member = await newMember(a);
    await grant(member.userId, b.organizationId);
    const inA = await signInWithAgent(member, a.organizationId, 'Member/1.0');
    const inB = await signInWithAgent(member, b.organizationId, 'Member/2.0');

    const seenByA = await stack.request('GET', `/orgs/${a.organizationId}/members/${member.userId}/sessions`, { token: a.adminToken });
    expect(seenByA.status).toBe(200);
    const listedA = ((await seenByA.json()) as { sessions: ListedSession[] }).sessions;
    expect(listedA.map((s) => s.id)).toEqual([inA.sessionId]);
    expect(listedA[0]).toMatchObject({ organizationId: a.organizationId, userAgent: 'Member/1.0', method: 'password' });
    expect(listedA[0]).not.toHaveProperty('current');

    const seenByB = await stack.request('GET', `/orgs/${b.organizationId}/members/${member.userId.toUpperCase()}/sessions`, {
      token: b.adminToken,
    });
    expect(((await seenByB.json()) as { sessions: ListedSession[] }).sessions.map((s) => s.id)).toEqual([inB.sessionId]);
  });

  it('is 404 for a user who is no member of the organisation, whatever sessions they have elsewhere, and for an unknown id', async () => {
    const a = await stack.seedOrganization();
    const c = await stack.seedOrganization();
    const member = await newMember(a);
    await signInWithAgent(member, a.organizationId, 'Member/1.0');
    for (const userId of [member.userId, uuidv7()]) {
      const response = await stack.request('GET', `/orgs/${c.organizationId}/members/${userId}/sessions`, { token: c.adminToken });
      expect([response.status, await errorCode(response)]).toEqual([404, 'NOT_FOUND']);
    }
  });

  it('is 403 for anyone but an organisation-wide admin, and lists nothing to them', async () => {
    const a = await stack.seedOrganization();
    const member = await newMember(a);
    await signInWithAgent(member, a.organizationId, 'Member/1.0');
    const viewer = await stack.token({ userId: member.userId });
    const response = await stack.request('GET', `/orgs/${a.organizationId}/members/${member.userId}/sessions`, { token: viewer });
    expect([response.status, await errorCode(response)]).toEqual([403, 'FORBIDDEN']);
  });
});
