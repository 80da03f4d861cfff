// A suspended organisation, enforced: every /orgs/{orgId} route of the OpenAPI document (walked, so a new one cannot be
// forgotten) answers its members 403 TENANT_SUSPENDED and outsiders 403 FORBIDDEN; every way of signing in to it, and
// choosing it as the active context, is refused with the same code; operators still act; reactivation restores access.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../../lib/http/app-error.ts';
import { openSession } from '../../lib/auth/sessions/open-session.ts';
import { issueDevLoginCode } from '../../lib/console/dev-login.ts';
import { base32Decode, totpCode, totpStep } from '../../lib/crypto/index.ts';
import { TEST_CLIENT_IP_HEADER } from '../../local/stack/app.ts';
import { startLocalOidcProvider, type LocalOidcProvider } from '../../local/oidc/provider.ts';
import { setPassword } from '../support/fixtures.ts';
import { planCached } from '../support/limiter-keys.ts';
import { memberFixtures, type Org } from '../support/members.ts';
import { signInThroughBrowser } from '../support/oidc.ts';
import { newOperator } from '../support/operators.ts';
import { everyAnswered, orgRoutes, walkOrgRoutes } from '../support/org-routes.ts';
import { errorCode } from '../support/sessions.ts';
import { startStack, type TestStack } from '../support/stack.ts';

const APP_ORIGIN = 'http://127.0.0.1:8787';
const operator = newOperator('olga');
// A clock that stands still (two minutes behind the real one): a TOTP code is computed for exactly the step the app
// sees, and a confirmation's step is never the one a verification uses.
const nowMs = Math.floor(Date.now() / 30_000) * 30_000 - 120_000 + 5_000;
const clock = { now: () => nowMs };

let stack: TestStack;
let provider: LocalOidcProvider;
let m: ReturnType<typeof memberFixtures>;
beforeAll(async () => {
  provider = await startLocalOidcProvider({ redirectUri: `${APP_ORIGIN}/auth/oidc/local/callback` });
  stack = await startStack({
    deps: { clock },
    env: { OPERATOR_TOKEN_HASHES: operator.entry, OIDC_PROVIDERS: JSON.stringify([provider.providerEntry('local')]) },
  });
  m = memberFixtures(stack);
});
afterAll(async () => {
  await stack?.close();
  await provider?.close();
});

const asOperator = (path: string, body?: unknown) =>
  stack.request('POST', path, { headers: { authorization: `Bearer ${operator.secret}` }, ...(body !== undefined ? { body } : {}) });
const suspend = (org: Org) => asOperator(`/ops/tenants/${org.organizationId}/suspend`, { reason: 'overdue invoices' });
const reactivate = (org: Org) => asOperator(`/ops/tenants/${org.organizationId}/reactivate`);

let ipCounter = 0;
const freshIp = () => `127.3.${Math.floor(++ipCounter / 250)}.${ipCounter % 250}`;
const login = (organizationId: string, email: string, password: string) =>
  stack.request('POST', '/auth/login', { body: { organizationId, email, password }, headers: { [TEST_CLIENT_IP_HEADER]: freshIp() } });

async function expectCode(response: Response, status: number, code: string): Promise<void> {
  expect([response.status, await errorCode(response)]).toEqual([status, code]);
}

const walk = (org: Org, token: string, ids: Record<string, string> = {}) => walkOrgRoutes(stack, org.organizationId, token, ids);
const every = everyAnswered;

describe('the /orgs routes of a suspended organisation', () => {
  it('answer every member 403 TENANT_SUSPENDED and every outsider 403 FORBIDDEN, change nothing, and come back on reactivation', async () => {
    const org = await stack.seedOrganization();
    const viewer = await m.addMember(org.organizationId, 'Viewer');
    const outletAccountant = await m.addMember(org.organizationId, 'Accountant', org.locationId);
    const outsider = await stack.seedOrganization();
    const routes = await orgRoutes(stack);
    // Today's routes are all there: members, invites, Syrve, exports, settings, branding, domains, member count, revoke.
    expect(routes.length).toBeGreaterThanOrEqual(20);
    expect(routes.map((r) => `${r.method} ${r.template}`)).toEqual(
      expect.arrayContaining(['GET /orgs/{orgId}/members', 'DELETE /orgs/{orgId}/members/{userId}', 'GET /orgs/{orgId}/settings']),
    );
    const before = await stack.db.query('SELECT count(*)::int AS n FROM audit_events WHERE organization_id = $1', [org.organizationId]);

    expect((await suspend(org)).status).toBe(200);
    const ids = { userId: viewer.userId };
    for (const token of [org.adminToken, viewer.token, outletAccountant.token]) {
      const lines = await walk(org, token, ids);
      expect(lines).toEqual(every(lines, 403, 'TENANT_SUSPENDED'));
    }
    // An outsider cannot tell a suspended organisation from any other they have no role in.
    const outsiderLines = await walk(org, outsider.adminToken, ids);
    expect(outsiderLines).toEqual(every(outsiderLines, 403, 'FORBIDDEN'));
    // Nothing was done: no member changed, no audit row but the operator's suspension.
    expect(await m.rolesOf(viewer.userId, org.organizationId)).toEqual([{ role_code: 'Viewer', location_id: null }]);
    const after = await stack.db.query('SELECT count(*)::int AS n FROM audit_events WHERE organization_id = $1', [org.organizationId]);
    expect(after.rows[0].n).toBe(before.rows[0].n + 1);
    // The suspended organisation's admin still has their own organisations' routes: only this one is closed.
    expect((await stack.request('GET', `/orgs/${outsider.organizationId}/members`, { token: outsider.adminToken })).status).toBe(200);

    expect((await reactivate(org)).status).toBe(200);
    expect((await m.list(org.organizationId, org.adminToken)).status).toBe(200);
    await expectCode(await m.list(org.organizationId, viewer.token), 403, 'FORBIDDEN');
  });

  it('the role check still costs one PostgreSQL query, the state riding in it', async () => {
    const org = await stack.seedOrganization();
    // The rate limiter's plan entry is filled once per organisation, apart from the role check: fill it first.
    await planCached(stack.deps, org.organizationId);
    stack.neonProxy.stats.reset();
    expect((await stack.request('GET', `/orgs/${org.organizationId}/invites`, { token: org.adminToken })).status).toBe(200);
    expect(stack.neonProxy.stats.httpRequests).toBe(1);
    expect((await suspend(org)).status).toBe(200);
    // Suspending drops the organisation's cache entries, the plan's with them; its refill would run beside the answer.
    await planCached(stack.deps, org.organizationId);
    stack.neonProxy.stats.reset();
    await expectCode(await stack.request('GET', `/orgs/${org.organizationId}/invites`, { token: org.adminToken }), 403, 'TENANT_SUSPENDED');
    expect(stack.neonProxy.stats.httpRequests).toBe(1);
  });

  it('operators still act on it: invalidate, suspend again, reactivate', async () => {
    const org = await stack.seedOrganization();
    expect((await suspend(org)).status).toBe(200);
    expect((await asOperator(`/ops/tenants/${org.organizationId}/cache/invalidate`)).status).toBe(200);
    expect(await (await suspend(org)).json()).toMatchObject({ state: 'suspended', previousState: 'suspended' });
    expect(await (await reactivate(org)).json()).toMatchObject({ state: 'active', previousState: 'suspended' });
  });
});

describe('signing in to a suspended organisation', () => {
  it('with a password: 403 TENANT_SUSPENDED for the right password only, and no session; works again on reactivation', async () => {
    const org = await stack.seedOrganization();
    await setPassword(stack.db, org.adminId, 'correct horse battery');
    expect((await suspend(org)).status).toBe(200);
    await expectCode(await login(org.organizationId, org.adminEmail, 'correct horse battery'), 403, 'TENANT_SUSPENDED');
    // A wrong password, or an email that is no member, learns nothing of the state.
    await expectCode(await login(org.organizationId, org.adminEmail, 'wrong password!'), 401, 'INVALID_CREDENTIALS');
    await expectCode(await login(org.organizationId, 'nobody@example.test', 'correct horse battery'), 401, 'INVALID_CREDENTIALS');
    expect((await stack.db.query('SELECT count(*)::int AS n FROM sessions WHERE user_id = $1', [org.adminId])).rows[0].n).toBe(0);
    expect((await reactivate(org)).status).toBe(200);
    expect((await login(org.organizationId, org.adminEmail, 'correct horse battery')).status).toBe(200);
  });

  it('with MFA: no challenge once suspended, and a challenge issued before the suspension does not sign in', async () => {
    const org = await stack.seedOrganization();
    await setPassword(stack.db, org.adminId, 'correct horse battery');
    const enrolled = await stack.request('POST', '/auth/mfa/enrol', { token: org.adminToken, body: { password: 'correct horse battery' } });
    const { secret } = (await enrolled.json()) as { secret: string };
    const code = (offset: number) => totpCode(base32Decode(secret), totpStep(clock.now()) + offset);
    expect((await stack.request('POST', '/auth/mfa/enrol/confirm', { token: org.adminToken, body: { code: await code(0) } })).status).toBe(
      200,
    );
    const challenged = await login(org.organizationId, org.adminEmail, 'correct horse battery');
    const { challengeToken } = (await challenged.json()) as { challengeToken: string };

    expect((await suspend(org)).status).toBe(200);
    await expectCode(await login(org.organizationId, org.adminEmail, 'correct horse battery'), 403, 'TENANT_SUSPENDED');
    const verified = await stack.request('POST', '/auth/mfa/verify', { body: { challengeToken, code: await code(1) } });
    await expectCode(verified, 403, 'TENANT_SUSPENDED');
    expect((await stack.db.query('SELECT count(*)::int AS n FROM sessions WHERE user_id = $1', [org.adminId])).rows[0].n).toBe(0);
  });

  it('through the OpenID provider: the callback is refused after every check, with no session', async () => {
    const org = await stack.seedOrganization();
    provider.addAccount(org.adminEmail);
    await stack.db.query("INSERT INTO oidc_provider_organizations (organization_id, provider_id) VALUES ($1, 'local')", [
      org.organizationId,
    ]);
    const app = async (url: URL, cookie: string) =>
      stack.app.request(`${url.pathname}${url.search}`, { headers: cookie !== '' ? { cookie } : {} });
    const start = new URL(`${APP_ORIGIN}/auth/oidc/local/start?organizationId=${org.organizationId}`);
    const { callbackUrl, appJar } = await signInThroughBrowser(start, {
      appOrigin: APP_ORIGIN,
      app,
      email: org.adminEmail,
      stopAtCallback: true,
    });
    expect((await suspend(org)).status).toBe(200);
    // Delivered from the browser that started it (its binding cookie), as the provider's redirect would be.
    const callback = await app(callbackUrl!, appJar.header(callbackUrl!));
    await expectCode(callback, 403, 'TENANT_SUSPENDED');
    expect(callback.headers.get('cache-control')).toBe('no-store');
    expect((await stack.db.query('SELECT count(*)::int AS n FROM sessions WHERE user_id = $1', [org.adminId])).rows[0].n).toBe(0);
    // Reactivated, the same flow signs in.
    expect((await reactivate(org)).status).toBe(200);
    const again = await signInThroughBrowser(start, { appOrigin: APP_ORIGIN, app, email: org.adminEmail });
    expect(again.response.status).toBe(200);
  });

  it("through the console's dev link (APP_ENV=dev): 403 TENANT_SUSPENDED and no session", async () => {
    const dev = await startStack({ env: { APP_ENV: 'dev' } });
    try {
      const org = await dev.seedOrganization();
      await dev.db.query(`UPDATE organizations SET state = 'suspended', suspension_reason = 'test' WHERE id = $1`, [org.organizationId]);
      const code = await issueDevLoginCode(
        dev.deps,
        { userId: org.adminId, organizationId: org.organizationId, email: org.adminEmail },
        'dev-1',
      );
      await expectCode(await dev.request('GET', `/console/dev-login?code=${code}`), 403, 'TENANT_SUSPENDED');
      expect((await dev.db.query('SELECT count(*)::int AS n FROM sessions WHERE user_id = $1', [org.adminId])).rows[0].n).toBe(0);
    } finally {
      await dev.close();
    }
  });

  it('a suspension landing after a sign-in read the state still stops the session: the insert itself refuses it', async () => {
    const org = await stack.seedOrganization();
    await stack.db.query(`UPDATE organizations SET state = 'suspended', suspension_reason = 'test' WHERE id = $1`, [org.organizationId]);
    // What every sign-in path calls once its own checks passed (the password's, the code's, the provider's).
    const opened = openSession(stack.deps, {
      userId: org.adminId,
      email: org.adminEmail,
      organizationId: org.organizationId,
      method: 'password',
      userAgent: undefined,
      correlationId: 'race-1',
    });
    await expect(opened).rejects.toBeInstanceOf(AppError);
    await expect(opened).rejects.toMatchObject({ status: 403, code: 'TENANT_SUSPENDED' });
    const rows = await stack.db.query(`SELECT count(*)::int AS n FROM audit_events WHERE correlation_id = 'race-1'`);
    expect(rows.rows[0].n).toBe(0);
  });
});

describe('the active context', () => {
  it('cannot be set to a suspended organisation by a member (TENANT_SUSPENDED) or an outsider (FORBIDDEN)', async () => {
    const org = await stack.seedOrganization();
    const outsider = await stack.seedOrganization();
    const put = (token: string) => stack.request('PUT', '/auth/context', { token, body: { organizationId: org.organizationId } });
    expect((await suspend(org)).status).toBe(200);
    await expectCode(await put(org.adminToken), 403, 'TENANT_SUSPENDED');
    await expectCode(await put(outsider.adminToken), 403, 'FORBIDDEN');
    expect((await reactivate(org)).status).toBe(200);
    expect((await put(org.adminToken)).status).toBe(200);
  });
});
