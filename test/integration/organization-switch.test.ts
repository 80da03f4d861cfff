// Switching organisation (PUT /auth/context to another organisation by a bound session), against real Redis and
// PostgreSQL and a real OpenID provider listed by only one of two organisations: the target's sign-in rules are applied,
// the session and its refresh family move there in one transaction audited in the target, the tokens held before act in
// neither organisation, every refusal changes nothing, and of two switches racing one wins.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeJwt } from 'jose';
import { TEST_CLIENT_IP_HEADER } from '../../local/stack/app.ts';
import { startLocalOidcProvider, type LocalOidcProvider } from '../../local/oidc/provider.ts';
import { memberFixtures } from '../support/members.ts';
import { signInThroughBrowser } from '../support/oidc.ts';
import { errorCode, passwordSignIn, type SignedIn } from '../support/sessions.ts';
import { startStack, type TestStack } from '../support/stack.ts';
import { freshIp } from '../support/tenants.ts';

const APP_ORIGIN = 'http://127.0.0.1:8787';

let stack: TestStack;
let op: LocalOidcProvider;
let m: ReturnType<typeof memberFixtures>;
beforeAll(async () => {
  op = await startLocalOidcProvider({ redirectUri: `${APP_ORIGIN}/auth/oidc/local/callback` });
  stack = await startStack({ separateRevocationProxy: true, env: { OIDC_PROVIDERS: JSON.stringify([op.providerEntry('local')]) } });
  m = memberFixtures(stack);
});
afterAll(async () => {
  await stack?.close();
  await op?.close();
});

type Org = Awaited<ReturnType<TestStack['seedOrganization']>>;
interface SwitchBody {
  context: { organizationId: string; locationId: string | null; roleCode: string };
  session?: { status: string; accessToken: string; refreshToken: string; organizationId: string; userId: string };
}

/** An admin of `home` (listing the provider `local`) who is also an admin of `away` (which does not list it). */
async function adminOfTwo() {
  const home = await stack.seedOrganization();
  const away = await stack.seedOrganization();
  await stack.db.query(`INSERT INTO oidc_provider_organizations (organization_id, provider_id) VALUES ($1, 'local')`, [
    home.organizationId,
  ]);
  const admin = await m.addMember(home.organizationId, 'OrganizationAdmin');
  await m.grant(admin.userId, away.organizationId, 'OrganizationAdmin');
  const signIn = await passwordSignIn(stack, admin);
  return { home, away, admin, signIn };
}

/** A session of `email` opened in `org` through the local provider, as a browser does it. */
async function oidcSignIn(org: Org, email: string): Promise<SignedIn> {
  op.addAccount(email);
  const ip = freshIp();
  const { response } = await signInThroughBrowser(new URL(`${APP_ORIGIN}/auth/oidc/local/start?organizationId=${org.organizationId}`), {
    appOrigin: APP_ORIGIN,
    app: async (url, cookie) =>
      stack.app.request(`${url.pathname}${url.search}`, { headers: { [TEST_CLIENT_IP_HEADER]: ip, ...(cookie !== '' ? { cookie } : {}) } }),
    email,
  });
  expect(response.status).toBe(200);
  const tokens = (await response.json()) as { accessToken: string; refreshToken: string };
  return { sessionId: decodeJwt(tokens.accessToken).sid as string, ...tokens };
}

const put = (token: string, organizationId: string, locationId?: string) =>
  stack.request('PUT', '/auth/context', { token, body: { organizationId, ...(locationId !== undefined ? { locationId } : {}) } });
const refresh = (refreshToken: string) => stack.request('POST', '/auth/refresh', { body: { refreshToken } });
const members = (organizationId: string, token: string) => stack.request('GET', `/orgs/${organizationId}/members`, { token });

/** Everything a switch would change: the session row, its refresh tokens, and the audit rows naming it or its user. */
async function sessionState(sessionId: string, userId: string) {
  const session = await stack.db.query('SELECT organization_id, expires_at, last_seen_at, revoked_at FROM sessions WHERE id = $1', [
    sessionId,
  ]);
  const tokens = await stack.db.query(
    'SELECT token_hash, used_at, successor_hash FROM refresh_tokens WHERE session_id = $1 ORDER BY token_hash',
    [sessionId],
  );
  const audit = await stack.db.query('SELECT id FROM audit_events WHERE actor_user_id = $1 OR target_id = $2 ORDER BY id', [
    userId,
    sessionId,
  ]);
  const context = await stack.redis.get(stack.deps.keys.activeContext(userId, sessionId));
  return { session: session.rows, tokens: tokens.rows, audit: audit.rows, context };
}

describe('a switch to another organisation', () => {
  it('answers the context and new tokens bound to the target; the session, its refresh family and its context move, audited there', async () => {
    const { home, away, admin, signIn } = await adminOfTwo();
    const session = await signIn(home.organizationId);
    expect((await put(session.accessToken, home.organizationId)).status).toBe(200);
    const before = await stack.db.query('SELECT expires_at, last_seen_at FROM sessions WHERE id = $1', [session.sessionId]);

    const response = await put(session.accessToken, away.organizationId);
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    const body = (await response.json()) as SwitchBody;
    expect(body.context).toMatchObject({ organizationId: away.organizationId, locationId: null, roleCode: 'OrganizationAdmin' });
    expect(body.session).toMatchObject({ status: 'signed-in', userId: admin.userId, organizationId: away.organizationId });
    const claims = decodeJwt(body.session!.accessToken);
    expect(claims).toMatchObject({ sub: admin.userId, sid: session.sessionId, org: away.organizationId });
    expect(body.session!.refreshToken).not.toBe(session.refreshToken);

    // The row moved; its idle and absolute expiry did not.
    const after = await stack.db.query('SELECT organization_id, expires_at, last_seen_at FROM sessions WHERE id = $1', [session.sessionId]);
    expect(after.rows).toEqual([{ organization_id: away.organizationId, ...before.rows[0] }]);
    // Audited in the target, naming the session and the user; nothing names where it came from.
    const audit = await stack.db.query(
      "SELECT organization_id, actor_user_id, target_id, details FROM audit_events WHERE action = 'session.switched' AND actor_user_id = $1",
      [admin.userId],
    );
    expect(audit.rows).toEqual([
      { organization_id: away.organizationId, actor_user_id: admin.userId, target_id: session.sessionId, details: { method: 'password' } },
    ]);
    expect(JSON.stringify(audit.rows)).not.toContain(home.organizationId);
    // The context (a hint) points at the target.
    const context = JSON.parse((await stack.redis.get(stack.deps.keys.activeContext(admin.userId, session.sessionId)))!) as {
      organizationId: string;
    };
    expect(context.organizationId).toBe(away.organizationId);

    // The new tokens act in the target, and only there.
    expect((await members(away.organizationId, body.session!.accessToken)).status).toBe(200);
    expect(await errorCode(await members(home.organizationId, body.session!.accessToken))).toBe('FORBIDDEN');
    const refreshed = await refresh(body.session!.refreshToken);
    expect(refreshed.status).toBe(200);
    const next = (await refreshed.json()) as { accessToken: string; organizationId: string };
    expect(next.organizationId).toBe(away.organizationId);
    expect(decodeJwt(next.accessToken).org).toBe(away.organizationId);
  });

  it('leaves the tokens held before acting in neither organisation; the old refresh token is spent (presented again, it is reuse)', async () => {
    const { home, away, admin, signIn } = await adminOfTwo();
    const session = await signIn(home.organizationId);
    const body = (await (await put(session.accessToken, away.organizationId)).json()) as SwitchBody;

    // The old access token: in the old organisation its session row is no longer there; in the target its claim is not.
    expect(await errorCode(await members(home.organizationId, session.accessToken))).toBe('FORBIDDEN');
    expect(await errorCode(await members(away.organizationId, session.accessToken))).toBe('FORBIDDEN');
    // Nor does it choose a context in the old organisation, nor switch again: the session is not where it says.
    const stale = await put(session.accessToken, home.organizationId);
    expect(stale.status).toBe(403);
    expect(await errorCode(stale)).toBe('FORBIDDEN');
    expect(await errorCode(await put(session.accessToken, away.organizationId))).toBe('FORBIDDEN');
    // What it still does until it expires (≤ 15 min): the session's own routes, which act in no organisation.
    const own = await stack.request('GET', '/auth/sessions', { token: session.accessToken });
    expect(own.status).toBe(200);
    expect((await stack.request('GET', '/auth/memberships', { token: session.accessToken })).status).toBe(200);

    // The old refresh token mints nothing for the old organisation: spent by the switch, it is reuse, as after a refresh,
    // and the session ends (the legitimate client holds the new one).
    const old = await refresh(session.refreshToken);
    expect(old.status).toBe(401);
    expect(await errorCode(old)).toBe('REFRESH_INVALID');
    expect((await members(away.organizationId, body.session!.accessToken)).status).toBe(401);
    const audit = await stack.db.query(
      "SELECT organization_id FROM audit_events WHERE action = 'session.refresh_reused' AND actor_user_id = $1",
      [admin.userId],
    );
    expect(audit.rows).toEqual([{ organization_id: away.organizationId }]);
  });

  it('an OIDC session switches to an organisation that lists its provider', async () => {
    const { home, away, admin } = await adminOfTwo();
    await stack.db.query(`INSERT INTO oidc_provider_organizations (organization_id, provider_id) VALUES ($1, 'local')`, [
      away.organizationId,
    ]);
    const session = await oidcSignIn(home, admin.email);
    const response = await put(session.accessToken, away.organizationId);
    expect(response.status).toBe(200);
    const body = (await response.json()) as SwitchBody;
    expect(decodeJwt(body.session!.accessToken).org).toBe(away.organizationId);
    const row = await stack.db.query('SELECT organization_id, method, provider_id FROM sessions WHERE id = $1', [session.sessionId]);
    expect(row.rows).toEqual([{ organization_id: away.organizationId, method: 'oidc', provider_id: 'local' }]);
  });

  it('at an outlet of the target: the role held there is the hint', async () => {
    const { home, away, admin, signIn } = await adminOfTwo();
    const outlet = await m.addOutlet(away.organizationId);
    await m.grant(admin.userId, away.organizationId, 'Viewer', outlet);
    const session = await signIn(home.organizationId);
    const response = await put(session.accessToken, away.organizationId, outlet);
    expect(response.status).toBe(200);
    expect(((await response.json()) as SwitchBody).context).toMatchObject({
      organizationId: away.organizationId,
      locationId: outlet,
      roleCode: 'Viewer',
    });
  });
});

describe('a refused switch changes nothing', () => {
  async function expectRefusedUnchanged(session: SignedIn, userId: string, target: string, code: string, home: Org) {
    const before = await sessionState(session.sessionId, userId);
    const response = await put(session.accessToken, target);
    expect([response.status, await errorCode(response)]).toEqual([403, code]);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(await sessionState(session.sessionId, userId)).toEqual(before);
    // The session still acts where it was, and its refresh token still works (and moves nothing).
    expect((await members(home.organizationId, session.accessToken)).status).toBe(200);
  }

  it('no role there, or a deleted target: 403 FORBIDDEN', async () => {
    const { home, admin, signIn } = await adminOfTwo();
    const session = await signIn(home.organizationId);
    expect((await put(session.accessToken, home.organizationId)).status).toBe(200);
    const stranger = await stack.seedOrganization();
    await expectRefusedUnchanged(session, admin.userId, stranger.organizationId, 'FORBIDDEN', home);
    const deleted = await stack.seedOrganization();
    await m.grant(admin.userId, deleted.organizationId, 'OrganizationAdmin');
    await stack.db.query("UPDATE organizations SET state = 'deleted' WHERE id = $1", [deleted.organizationId]);
    await expectRefusedUnchanged(session, admin.userId, deleted.organizationId, 'FORBIDDEN', home);
    // An outlet-only member switching to the organisation's level has no role there either.
    const outletOnly = await stack.seedOrganization();
    await m.grant(admin.userId, outletOnly.organizationId, 'Viewer', outletOnly.locationId);
    await expectRefusedUnchanged(session, admin.userId, outletOnly.organizationId, 'FORBIDDEN', home);
    expect((await refresh(session.refreshToken)).status).toBe(200);
  });

  it('a suspended target: 403 TENANT_SUSPENDED', async () => {
    const { home, away, admin, signIn } = await adminOfTwo();
    const session = await signIn(home.organizationId);
    await stack.db.query("UPDATE organizations SET state = 'suspended', suspension_reason = 'unpaid' WHERE id = $1", [away.organizationId]);
    await expectRefusedUnchanged(session, admin.userId, away.organizationId, 'TENANT_SUSPENDED', home);
  });

  it('an OIDC session to an organisation that does not list its provider: 403 SIGN_IN_REQUIRED', async () => {
    const { home, away, admin } = await adminOfTwo();
    const session = await oidcSignIn(home, admin.email);
    await expectRefusedUnchanged(session, admin.userId, away.organizationId, 'SIGN_IN_REQUIRED', home);
    const refreshed = await refresh(session.refreshToken);
    expect(refreshed.status).toBe(200);
    expect(((await refreshed.json()) as { organizationId: string }).organizationId).toBe(home.organizationId);
  });
});

describe('within the same organisation', () => {
  it('another outlet answers {context} as before: no tokens, nothing moved', async () => {
    const { home, signIn } = await adminOfTwo();
    const session = await signIn(home.organizationId);
    const response = await put(session.accessToken, home.organizationId, home.locationId);
    expect(response.status).toBe(200);
    expect(Object.keys((await response.json()) as object)).toEqual(['context']);
    expect(await stack.db.query('SELECT 1 FROM audit_events WHERE target_id = $1', [session.sessionId])).toMatchObject({ rowCount: 0 });
  });
});

describe('two switches racing', () => {
  it('end with one winner; the losers are refused and their tokens act nowhere', async () => {
    const { home, away, admin, signIn } = await adminOfTwo();
    const third = await stack.seedOrganization();
    await m.grant(admin.userId, third.organizationId, 'OrganizationAdmin');
    const session = await signIn(home.organizationId);
    // Two access tokens of the one session (the second from a refresh), both bound to home, switching to two targets.
    const second = (await (await refresh(session.refreshToken)).json()) as { accessToken: string };
    const targets = [away.organizationId, third.organizationId, away.organizationId, third.organizationId];
    const tokens = [session.accessToken, second.accessToken, second.accessToken, session.accessToken];
    const responses = await Promise.all(targets.map((target, i) => put(tokens[i]!, target)));
    const statuses = responses.map((response) => response.status);
    expect(statuses.filter((status) => status === 200)).toHaveLength(1);
    expect(statuses.filter((status) => status === 403)).toHaveLength(3);
    const winner = statuses.indexOf(200);
    const body = (await responses[winner]!.json()) as SwitchBody;
    for (const [i, response] of responses.entries()) if (i !== winner) expect(await errorCode(response)).toBe('FORBIDDEN');
    const row = await stack.db.query('SELECT organization_id FROM sessions WHERE id = $1', [session.sessionId]);
    expect(row.rows).toEqual([{ organization_id: targets[winner] }]);
    expect(
      (await stack.db.query("SELECT 1 FROM audit_events WHERE action = 'session.switched' AND target_id = $1", [session.sessionId]))
        .rowCount,
    ).toBe(1);
    // One live refresh token: the winner's.
    const live = await stack.db.query('SELECT count(*)::int AS n FROM refresh_tokens WHERE session_id = $1 AND used_at IS NULL', [
      session.sessionId,
    ]);
    expect(live.rows).toEqual([{ n: 1 }]);
    // The losers' tokens (bound to home) act in no organisation; the winner's acts in its target.
    const loser = targets.find((target) => target !== targets[winner])!;
    for (const token of [session.accessToken, second.accessToken]) {
      expect((await members(home.organizationId, token)).status).toBe(403);
      expect((await members(loser, token)).status).toBe(403);
    }
    expect((await members(targets[winner]!, body.session!.accessToken)).status).toBe(200);
  });
});

describe('GET /auth/memberships', () => {
  type Listed = { memberships: Array<{ organizationId: string; switchable: boolean }> };
  const marks = async (token: string) => {
    const response = await stack.request('GET', '/auth/memberships', { token });
    expect(response.status).toBe(200);
    return Object.fromEntries(((await response.json()) as Listed).memberships.map((m) => [m.organizationId, m.switchable]));
  };

  it('marks the organisations a switch reaches without a new sign-in, by the same rule the switch applies', async () => {
    const { home, away, admin, signIn } = await adminOfTwo();
    const listing = await stack.seedOrganization();
    await stack.db.query(`INSERT INTO oidc_provider_organizations (organization_id, provider_id) VALUES ($1, 'local')`, [
      listing.organizationId,
    ]);
    await m.grant(admin.userId, listing.organizationId, 'Viewer');
    const suspended = await stack.seedOrganization();
    await m.grant(admin.userId, suspended.organizationId, 'Viewer');
    await stack.db.query("UPDATE organizations SET state = 'suspended', suspension_reason = 'unpaid' WHERE id = $1", [
      suspended.organizationId,
    ]);

    // A password session reaches every active one.
    const password = await signIn(home.organizationId);
    expect(await marks(password.accessToken)).toEqual({
      [home.organizationId]: true,
      [away.organizationId]: true,
      [listing.organizationId]: true,
      [suspended.organizationId]: false,
    });
    // An OIDC session only those that list its provider.
    const oidc = await oidcSignIn(home, admin.email);
    const oidcMarks = await marks(oidc.accessToken);
    expect(oidcMarks).toEqual({
      [home.organizationId]: true,
      [away.organizationId]: false,
      [listing.organizationId]: true,
      [suspended.organizationId]: false,
    });
    // Each mark is what the switch answers.
    expect(await errorCode(await put(oidc.accessToken, away.organizationId))).toBe('SIGN_IN_REQUIRED');
    const switched = await put(oidc.accessToken, listing.organizationId);
    expect(switched.status).toBe(200);
    // A token from before the switch reaches nothing; the new one reaches what the session's sign-in allows.
    expect(Object.values(await marks(oidc.accessToken)).every((mark) => !mark)).toBe(true);
    expect(await marks(((await switched.json()) as SwitchBody).session!.accessToken)).toEqual(oidcMarks);
  });
});
