// A session belongs to one organisation: every way of signing in (password, MFA code, recovery code, OIDC, invite
// registration, the console's dev link, refresh) issues an access token whose `org` claim is the organisation its
// session row is bound to; an admin's session tools see every session bound to their organisation; and the security
// review's scenario — an identity provider trusted by one organisation signs its user in there, and that session tries
// to act in another organisation where the same user is an admin but which does not list the provider — is refused.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeJwt } from 'jose';
import { uuidv7 } from 'uuidv7';
import { issueDevLoginCode } from '../../lib/console/dev-login.ts';
import { base32Decode, totpCode, totpStep } from '../../lib/crypto/index.ts';
import type { OutgoingMessage } from '../../lib/notify/notifier.ts';
import { TEST_CLIENT_IP_HEADER } from '../../local/stack/app.ts';
import { startLocalOidcProvider, type LocalOidcProvider } from '../../local/oidc/provider.ts';
import { ConsoleClient } from '../support/console-client.ts';
import { setPassword } from '../support/fixtures.ts';
import { memberFixtures, type Org } from '../support/members.ts';
import { signInThroughBrowser } from '../support/oidc.ts';
import { errorCode, passwordSignIn } from '../support/sessions.ts';
import { newInvitee, startStack, type TestStack } from '../support/stack.ts';
import { freshIp } from '../support/tenants.ts';

const APP_ORIGIN = 'http://127.0.0.1:8787';
const LINK_BASE = 'https://app.runstate.test/invites/accept';
const sent: OutgoingMessage[] = [];

let stack: TestStack;
let op: LocalOidcProvider;
let m: ReturnType<typeof memberFixtures>;
beforeAll(async () => {
  op = await startLocalOidcProvider({ redirectUri: `${APP_ORIGIN}/auth/oidc/local/callback` });
  stack = await startStack({
    separateRevocationProxy: true,
    env: { OIDC_PROVIDERS: JSON.stringify([op.providerEntry('local')]), INVITE_LINK_BASE: LINK_BASE },
    deps: { notifier: { send: async (message) => void sent.push(message) } },
  });
  m = memberFixtures(stack);
});
afterAll(async () => {
  await stack?.close();
  await op?.close();
});

/** A user who is OrganizationAdmin of two organisations (`home` and `other`), each with an admin of its own as well. */
async function adminOfTwo() {
  const home = await stack.seedOrganization();
  const other = await stack.seedOrganization();
  const user = await m.addMember(home.organizationId, 'OrganizationAdmin');
  await m.grant(user.userId, other.organizationId, 'OrganizationAdmin');
  return { home, other, user };
}

/** The organisation the session row of the token's `sid` is bound to, as PostgreSQL holds it. */
async function rowOrganization(accessToken: string, db = stack.db): Promise<string | undefined> {
  const rows = await db.query<{ organization_id: string }>('SELECT organization_id FROM sessions WHERE id = $1', [
    decodeJwt(accessToken).sid,
  ]);
  return rows.rows[0]?.organization_id;
}

/** The token's `org` claim and its session row both name `organizationId`, and it acts there but not in `elsewhere`. */
async function expectBound(accessToken: string, organizationId: string, elsewhere: string): Promise<void> {
  expect(decodeJwt(accessToken).org).toBe(organizationId);
  expect(await rowOrganization(accessToken)).toBe(organizationId);
  const there = await stack.request('GET', `/orgs/${elsewhere}/members`, { token: accessToken });
  expect([there.status, await errorCode(there)]).toEqual([403, 'FORBIDDEN']);
}

const login = (organizationId: string, email: string, password: string) =>
  stack.request('POST', '/auth/login', { body: { organizationId, email, password }, headers: { [TEST_CLIENT_IP_HEADER]: freshIp() } });

/** Our app as a browser reaches it through the OIDC flow, from one address. */
function oidcSignIn(organizationId: string, email: string) {
  const ip = freshIp();
  return signInThroughBrowser(new URL(`${APP_ORIGIN}/auth/oidc/local/start?organizationId=${organizationId}`), {
    appOrigin: APP_ORIGIN,
    app: async (url, cookie) =>
      stack.app.request(`${url.pathname}${url.search}`, { headers: { [TEST_CLIENT_IP_HEADER]: ip, ...(cookie !== '' ? { cookie } : {}) } }),
    email,
  });
}

async function listProvider(org: Org, provider: string): Promise<void> {
  await stack.db.query('INSERT INTO oidc_provider_organizations (organization_id, provider_id) VALUES ($1, $2)', [
    org.organizationId,
    provider,
  ]);
}

describe('every token sign-in issues carries the organisation of its session', () => {
  it('password sign-in, and each refresh of that session', async () => {
    const { home, other, user } = await adminOfTwo();
    const session = await (await passwordSignIn(stack, user))(other.organizationId);
    await expectBound(session.accessToken, other.organizationId, home.organizationId);
    const refreshed = await stack.request('POST', '/auth/refresh', { body: { refreshToken: session.refreshToken } });
    expect(refreshed.status).toBe(200);
    const tokens = (await refreshed.json()) as { accessToken: string; refreshToken: string };
    await expectBound(tokens.accessToken, other.organizationId, home.organizationId);
    expect(decodeJwt(tokens.accessToken).sid).toBe(session.sessionId);
  });

  it('a refresh binds the session of a token issued without the claim (before sessions were bound)', async () => {
    const { home, other, user } = await adminOfTwo();
    const session = await (await passwordSignIn(stack, user))(other.organizationId);
    // What an older build left: a token of the same session without `org` (in HS256 mode, accepted as unbound).
    const unbound = await stack.token({ userId: user.userId, sessionId: session.sessionId, email: user.email });
    expect(decodeJwt(unbound).org).toBeUndefined();
    expect((await stack.request('GET', `/orgs/${home.organizationId}/members`, { token: unbound })).status).toBe(200);
    const refreshed = await stack.request('POST', '/auth/refresh', { body: { refreshToken: session.refreshToken } });
    await expectBound(((await refreshed.json()) as { accessToken: string }).accessToken, other.organizationId, home.organizationId);
  });

  it('the MFA code after the password, and a recovery code in its place', async () => {
    const { home, other, user } = await adminOfTwo();
    const password = `pw-${uuidv7()}`;
    await setPassword(stack.db, user.userId, password);
    const enrolled = await stack.request('POST', '/auth/mfa/enrol', { token: user.token, body: { password } });
    expect(enrolled.status).toBe(201);
    const { secret } = (await enrolled.json()) as { secret: string };
    const code = (offset: number) => totpCode(base32Decode(secret), totpStep(Date.now()) + offset);
    const confirmed = await stack.request('POST', '/auth/mfa/enrol/confirm', { token: user.token, body: { code: await code(0) } });
    expect(confirmed.status).toBe(200);
    const { recoveryCodes } = (await confirmed.json()) as { recoveryCodes: string[] };
    const challenge = async () => {
      const response = await login(other.organizationId, user.email, password);
      const body = (await response.json()) as { status: string; challengeToken: string };
      expect(body.status).toBe('mfa-required');
      return body.challengeToken;
    };

    // The confirmation spent this step's code; the next step's is within the accepted drift.
    const verified = await stack.request('POST', '/auth/mfa/verify', { body: { challengeToken: await challenge(), code: await code(1) } });
    expect(verified.status).toBe(200);
    await expectBound(((await verified.json()) as { accessToken: string }).accessToken, other.organizationId, home.organizationId);

    const recovered = await stack.request('POST', '/auth/mfa/recover', {
      body: { challengeToken: await challenge(), recoveryCode: recoveryCodes[0] },
    });
    expect(recovered.status).toBe(200);
    await expectBound(((await recovered.json()) as { accessToken: string }).accessToken, other.organizationId, home.organizationId);
  });

  it('the OIDC callback', async () => {
    const { home, other, user } = await adminOfTwo();
    await listProvider(other, 'local');
    op.addAccount(user.email);
    const { response } = await oidcSignIn(other.organizationId, user.email);
    expect(response.status).toBe(200);
    const body = (await response.json()) as { accessToken: string; organizationId: string };
    expect(body.organizationId).toBe(other.organizationId);
    await expectBound(body.accessToken, other.organizationId, home.organizationId);
  });

  it("registration through an emailed invite: bound to the invite's organisation", async () => {
    const home = await stack.seedOrganization();
    const org = await stack.seedOrganization();
    const person = newInvitee();
    const created = await stack.request('POST', `/orgs/${org.organizationId}/invites`, {
      token: org.adminToken,
      body: { email: person.email, roleCode: 'Viewer', delivery: 'email' },
    });
    expect(created.status).toBe(201);
    const token = /#token=(\S+)/.exec(sent.filter((message) => message.to === person.email).at(-1)?.text ?? '')?.[1];
    expect(token).toBeDefined();
    const registered = await stack.request('POST', '/invites/register', {
      body: { token, password: `pw-${uuidv7()}` },
      headers: { [TEST_CLIENT_IP_HEADER]: freshIp() },
    });
    expect(registered.status).toBe(201);
    await expectBound(((await registered.json()) as { accessToken: string }).accessToken, org.organizationId, home.organizationId);
  });

  it("the console's dev link (APP_ENV=dev)", async () => {
    const dev = await startStack({ env: { APP_ENV: 'dev' } });
    try {
      const org = await dev.seedOrganization();
      const code = await issueDevLoginCode(
        dev.deps,
        { userId: org.adminId, organizationId: org.organizationId, email: org.adminEmail },
        'session-binding',
      );
      const ip = freshIp();
      const browser = new ConsoleClient(
        (path, init) => dev.app.request(path, { ...init, headers: { ...init.headers, [TEST_CLIENT_IP_HEADER]: ip } }),
        'http://localhost',
      );
      expect((await browser.send('GET', `/console/dev-login?code=${code}`)).status).toBe(303);
      const access = browser.cookies.get('rs_console_access')!.value;
      expect(decodeJwt(access).org).toBe(org.organizationId);
      expect(await rowOrganization(access, dev.db)).toBe(org.organizationId);
    } finally {
      await dev.close();
    }
  });
});

describe("an admin's session tools see every session bound to their organisation", () => {
  it("Y's admin lists and revokes the member's session opened in Y; the one opened in X is not listed and keeps acting in X", async () => {
    const { home: x, other: y, user: member } = await adminOfTwo();
    const signIn = await passwordSignIn(stack, member);
    const inX = await signIn(x.organizationId);
    const inY = await signIn(y.organizationId);
    // The session opened in X cannot act in Y: nothing of X's is Y's admin's to end.
    const refused = await stack.request('GET', `/orgs/${y.organizationId}/members`, { token: inX.accessToken });
    expect([refused.status, await errorCode(refused)]).toEqual([403, 'FORBIDDEN']);

    const listed = await stack.request('GET', `/orgs/${y.organizationId}/members/${member.userId}/sessions`, { token: y.adminToken });
    expect(listed.status).toBe(200);
    const { sessions } = (await listed.json()) as { sessions: Array<{ id: string; organizationId: string }> };
    expect(sessions.map((s) => [s.id, s.organizationId])).toEqual([[inY.sessionId, y.organizationId]]);

    const revoked = await stack.request('POST', `/orgs/${y.organizationId}/members/${member.userId}/sessions/revoke`, {
      token: y.adminToken,
    });
    expect(await revoked.json()).toEqual({ revoked: 1, denylistPending: [] });
    const ended = await stack.request('GET', `/orgs/${y.organizationId}/members`, { token: inY.accessToken });
    expect([ended.status, await errorCode(ended)]).toEqual([401, 'TOKEN_REVOKED']);
    expect((await stack.request('GET', `/orgs/${x.organizationId}/members`, { token: inX.accessToken })).status).toBe(200);
    expect((await stack.request('POST', '/auth/refresh', { body: { refreshToken: inX.refreshToken } })).status).toBe(200);
  });
});

describe("the security review's scenario: an identity provider one organisation lists, another does not", () => {
  it("U signed in to X through X's provider cannot list Y's members, invite an admin into Y, or spend anything of Y's", async () => {
    const { home: x, other: y, user } = await adminOfTwo();
    await listProvider(x, 'local');
    op.addAccount(user.email);
    const { response } = await oidcSignIn(x.organizationId, user.email);
    expect(response.status).toBe(200);
    const { accessToken } = (await response.json()) as { accessToken: string };
    // The provider signs nobody in to Y: Y does not list it.
    expect((await stack.app.request(`/auth/oidc/local/start?organizationId=${y.organizationId}`)).status).toBe(404);

    stack.redisProxy.stats.reset();
    stack.revocationProxy.stats.reset();
    stack.neonProxy.stats.reset();
    const members = await stack.request('GET', `/orgs/${y.organizationId}/members`, { token: accessToken });
    expect([members.status, await errorCode(members)]).toEqual([403, 'FORBIDDEN']);
    const invite = await stack.request('POST', `/orgs/${y.organizationId}/invites`, {
      token: accessToken,
      body: { email: newInvitee().email, roleCode: 'OrganizationAdmin', delivery: 'none' },
    });
    expect([invite.status, await errorCode(invite)]).toEqual([403, 'FORBIDDEN']);
    expect(invite.headers.get('ratelimit')).toBeNull();
    expect({
      redis: stack.redisProxy.stats.commands,
      revocation: stack.revocationProxy.stats.commands,
      postgres: stack.neonProxy.stats.httpRequests,
    }).toEqual({ redis: 0, revocation: 0, postgres: 0 });
    expect(await stack.redis.keys(`*:org:{${y.organizationId}}:*`)).toEqual([]);
    const audit = await stack.db.query('SELECT count(*)::int AS n FROM audit_events WHERE organization_id = $1', [y.organizationId]);
    expect(audit.rows[0].n).toBe(0);
    const invites = await stack.request('GET', `/orgs/${y.organizationId}/invites`, { token: y.adminToken });
    expect(((await invites.json()) as { invites: unknown[] }).invites).toEqual([]);

    // The control: the same session acts in X, where the provider is listed.
    expect((await stack.request('GET', `/orgs/${x.organizationId}/members`, { token: accessToken })).status).toBe(200);
  });
});
