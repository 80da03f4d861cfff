// OIDC sign-in against a real OpenID provider (local/oidc/provider.ts), a fake one for the ID-token checks a real one
// never fails (test/support/fake-op.ts), and real Redis and PostgreSQL: the state is spent once and only by the browser
// that started it, the code exchanged with the state's random PKCE verifier, the ID token checked, the provider allowed
// for the organisation, the verified email linked within the state's organisation, and failure rows throttled.
import { createHash } from 'node:crypto';
import { beforeEach, afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeJwt } from 'jose';
import { uuidv7 } from 'uuidv7';
import { auditOidcFailure } from '../../lib/auth/oidc/failure-audit.ts';
import { readChallengeToken } from '../../lib/auth/mfa/challenge-token.ts';
import { base32Decode, sha256Hex, totpCode, totpStep } from '../../lib/crypto/index.ts';
import { randomBytes } from '../../lib/crypto/index.ts';
import { ipSubject, THROTTLE_LIMITS, throttleWindow } from '../../lib/runtime/throttle/index.ts';
import { composeApp, TEST_CLIENT_IP_HEADER } from '../../local/stack/app.ts';
import { createJsonLogger } from '../../lib/log/logger.ts';
import { CROWD_REDIS_TIMEOUT_MS } from '../support/crowd.ts';
import { startLocalOidcProvider, type LocalOidcProvider } from '../../local/oidc/provider.ts';
import { startFakeOp, type FakeOp, type FakeOpMode } from '../support/fake-op.ts';
import { CookieJar, signInThroughBrowser } from '../support/oidc.ts';
import { startStack, type TestStack } from '../support/stack.ts';
import { freshIp } from '../support/tenants.ts';

const APP_ORIGIN = 'http://127.0.0.1:8787';
const randomHex = () => Buffer.from(randomBytes(2)).toString('hex');
const BINDING_COOKIE = 'rs_oidc_binding';
const SECURE_CALLBACK = 'https://127.0.0.1:8787/auth/oidc/fakehttps/callback';
const callbackOf = (provider: string) => `${APP_ORIGIN}/auth/oidc/${provider}/callback`;
const FAILED_BODY = JSON.stringify({
  error: { code: 'OIDC_FAILED', message: 'the sign-in through the identity provider could not be completed; start it again' },
});

let stack: TestStack;
let op: LocalOidcProvider;
let fake: FakeOp;
/** Every answer of our app in this file, for the canary scan. */
const answers: string[] = [];

beforeAll(async () => {
  op = await startLocalOidcProvider({ redirectUri: callbackOf('local') });
  fake = await startFakeOp();
  const providers = [
    op.providerEntry('local'),
    fake.providerEntry('fake', callbackOf('fake')),
    // The same fake behind an https redirect URI: what a deployment's cookie looks like.
    fake.providerEntry('fakehttps', SECURE_CALLBACK),
  ];
  stack = await startStack({ env: { OIDC_PROVIDERS: JSON.stringify(providers) } });
});
afterAll(async () => {
  await stack?.close();
  await op?.close();
  await fake?.close();
});

type Org = Awaited<ReturnType<TestStack['seedOrganization']>>;

/** Each test calls from an address of its own, so the per-IP buckets (login-ip, oidc-audit-ip) of one never fill another's. */
let clientIp = freshIp();
beforeEach(() => {
  clientIp = freshIp();
});

/** Our app as a browser reaches it: `cookie` is that browser's cookie header for the URL ('' for a browser without any). */
async function send(url: URL, cookie: string, ip = clientIp, via: Pick<TestStack, 'app'> = stack): Promise<Response> {
  const headers: Record<string, string> = { [TEST_CLIENT_IP_HEADER]: ip, ...(cookie !== '' ? { cookie } : {}) };
  const response = await via.app.request(`${url.pathname}${url.search}`, { headers });
  const lines = [...response.headers.entries()].map(([name, value]) => `${name}: ${value}`);
  // /start's Location carries the state, and its Set-Cookie the binding, by design (their one way to the browser);
  // every other answer must carry neither.
  if (!url.pathname.endsWith('/start')) answers.push(`${lines.join('\n')}\n${await response.clone().text()}`);
  return response;
}

/** One request from the browser whose cookies are `jar` (none: a browser that never started this sign-in). */
async function app(url: URL, jar?: CookieJar, ip?: string): Promise<Response> {
  const response = await send(url, jar?.header(url) ?? '', ip);
  jar?.store(response);
  return response;
}

/** The organisation lists the provider (migrations/0016_oidc_provider_organizations.sql). */
async function allow(org: Org, ...providers: string[]): Promise<void> {
  for (const provider of providers) {
    await stack.db.query('INSERT INTO oidc_provider_organizations (organization_id, provider_id) VALUES ($1, $2)', [
      org.organizationId,
      provider,
    ]);
  }
}

async function failureRows(organizationId: string): Promise<Array<{ details: { provider: string; reason: string } }>> {
  const result = await stack.db.query(
    "SELECT details FROM audit_events WHERE organization_id = $1 AND action = 'auth.oidc_failed' ORDER BY id",
    [organizationId],
  );
  return result.rows as Array<{ details: { provider: string; reason: string } }>;
}

const startUrl = (organizationId: string, provider = 'local') =>
  new URL(`${APP_ORIGIN}/auth/oidc/${provider}/start?organizationId=${organizationId}`);

/** The whole flow in one browser, up to our callback's answer. */
function signIn(org: Org, options: { provider?: string; email?: string; jar?: CookieJar } = {}) {
  return signInThroughBrowser(startUrl(org.organizationId, options.provider), {
    appOrigin: APP_ORIGIN,
    app: (url, cookie) => send(url, cookie),
    email: options.email ?? org.adminEmail,
    ...(options.jar !== undefined ? { appJar: options.jar } : {}),
  });
}

/** The flow up to the provider's redirect to our callback, not delivered yet, and the browser (jar) that started it. */
async function callbackFor(org: Org, provider = 'local'): Promise<{ callback: URL; jar: CookieJar }> {
  const { callbackUrl, appJar } = await signInThroughBrowser(startUrl(org.organizationId, provider), {
    appOrigin: APP_ORIGIN,
    app: (url, cookie) => send(url, cookie),
    email: org.adminEmail,
    stopAtCallback: true,
  });
  expect(callbackUrl).toBeDefined();
  return { callback: callbackUrl!, jar: appJar };
}

/** A fresh state issued by /start to the browser `jar` (a new one unless given); the provider never sees it. */
async function issuedState(org: Org, provider = 'local', jar = new CookieJar()): Promise<{ state: string; jar: CookieJar }> {
  const response = await app(startUrl(org.organizationId, provider), jar);
  expect(response.status).toBe(302);
  return { state: new URL(response.headers.get('location')!).searchParams.get('state')!, jar };
}

function withParams(url: URL, params: Record<string, string>): URL {
  const changed = new URL(url);
  for (const [name, value] of Object.entries(params)) changed.searchParams.set(name, value);
  return changed;
}

/** The reason of the last failed callback, as logged. */
function lastFailureReason(): string | undefined {
  const line = [...stack.logs].reverse().find((entry) => entry.includes('"event":"oidc_sign_in_failed"'));
  return line === undefined ? undefined : (JSON.parse(line) as { reason: string }).reason;
}

async function expectFailed(response: Response, reason: string): Promise<void> {
  expect(response.status).toBe(401);
  expect(await response.text()).toBe(FAILED_BODY);
  expect(response.headers.get('cache-control')).toBe('no-store');
  expect(lastFailureReason()).toBe(reason);
}

/** A new organisation that lists the local provider (and the fake), whose admin has an account at the local provider. */
async function localMember(): Promise<Org> {
  const org = await stack.seedOrganization();
  await allow(org, 'local', 'fake');
  op.addAccount(org.adminEmail);
  return org;
}

async function stateKeyOf(state: string): Promise<string> {
  const [key] = await stack.redis.keys(`*${await sha256Hex(state)}`);
  expect(key).toBeDefined();
  return key!;
}

describe('OIDC sign-in through the local provider', () => {
  it('the full flow signs in: the login body, no-store and no-referrer, the binding cookie set and cleared, audit rows, and an access token that works', async () => {
    const org = await localMember();
    const jar = new CookieJar();
    const start = await app(startUrl(org.organizationId), jar);
    expect(start.status).toBe(302);
    expect(start.headers.get('cache-control')).toBe('no-store');
    expect(start.headers.get('referrer-policy')).toBe('no-referrer');
    // Over plain http: no Secure and so no __Host- prefix; HttpOnly, Lax, and the callback's own path only.
    const [setCookie] = start.headers.getSetCookie();
    expect(setCookie).toMatch(
      new RegExp(`^${BINDING_COOKIE}=[A-Za-z0-9_-]{43}; Max-Age=600; Path=/auth/oidc/local/callback; HttpOnly; SameSite=Lax$`),
    );
    const location = new URL(start.headers.get('location')!);
    expect(location.origin).toBe(op.issuer);
    expect(Object.fromEntries(location.searchParams)).toMatchObject({
      response_type: 'code',
      client_id: op.clientId,
      redirect_uri: callbackOf('local'),
      scope: 'openid email',
      code_challenge_method: 'S256',
    });
    const state = location.searchParams.get('state')!;
    expect(state).toMatch(/^rso_[A-Za-z0-9_-]{43}$/);
    const stateKey = await stateKeyOf(state);
    expect(await stack.redis.ttl(stateKey)).toBeGreaterThanOrEqual(599);
    // The state keeps the SHA-256 of the cookie, never the cookie.
    const binding = jar.get(BINDING_COOKIE)!;
    const kept = JSON.parse((await stack.redis.get(stateKey))!) as Record<string, string>;
    expect(kept.browserHash).toBe(createHash('sha256').update(binding).digest('hex'));
    expect(JSON.stringify(kept)).not.toContain(binding);

    const { response } = await signInThroughBrowser(location, {
      appOrigin: APP_ORIGIN,
      app: (url, cookie) => send(url, cookie),
      email: org.adminEmail,
      appJar: jar,
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.headers.get('referrer-policy')).toBe('no-referrer');
    expect(response.headers.getSetCookie()).toEqual([
      expect.stringMatching(new RegExp(`^${BINDING_COOKIE}=; Max-Age=0; Path=/auth/oidc/local/callback; HttpOnly; SameSite=Lax`)),
    ]);
    expect(jar.get(BINDING_COOKIE)).toBeUndefined();
    const body = (await response.json()) as Record<string, unknown>;
    expect(Object.keys(body).sort()).toEqual(
      ['status', 'tokenType', 'accessToken', 'expiresInSeconds', 'refreshToken', 'userId', 'organizationId', 'sessionExpiresAtUtc'].sort(),
    );
    expect(body).toMatchObject({ status: 'signed-in', tokenType: 'Bearer', userId: org.adminId, organizationId: org.organizationId });
    const claims = decodeJwt(body.accessToken as string);
    expect(claims).toMatchObject({ sub: org.adminId, email: org.adminEmail, email_verified: true });
    expect((await stack.request('GET', `/orgs/${org.organizationId}/invites`, { token: body.accessToken as string })).status).toBe(200);
    expect(await stack.redis.exists(stateKey)).toBe(0);

    const audit = await stack.db.query(
      'SELECT action, details FROM audit_events WHERE organization_id = $1 AND actor_user_id = $2 ORDER BY action',
      [org.organizationId, org.adminId],
    );
    expect(audit.rows).toEqual([
      { action: 'auth.oidc_signed_in', details: { provider: 'local' } },
      { action: 'session.created', details: { method: 'oidc' } },
    ]);
    // The session records its provider: which organisations accept it depends on it (auth_sign_in_accepted).
    const session = await stack.db.query('SELECT method, provider_id FROM sessions WHERE id = $1', [claims.sid]);
    expect(session.rows).toEqual([{ method: 'oidc', provider_id: 'local' }]);
    const refreshed = await stack.request('POST', '/auth/refresh', { body: { refreshToken: body.refreshToken } });
    expect(refreshed.status).toBe(200);
  });

  it('a replayed callback (the same code and state again, from the same browser) fails', async () => {
    const org = await localMember();
    const { callback, jar } = await callbackFor(org);
    const cookie = jar.header(callback);
    expect((await app(callback, jar)).status).toBe(200);
    // The browser dropped the cleared cookie; a replay that kept it finds the state spent all the same.
    await expectFailed(await send(callback, cookie), 'state');
  });

  it("a provider's code delivered with another live state fails at the exchange (the PKCE verifier is the state's)", async () => {
    const org = await localMember();
    const { callback, jar } = await callbackFor(org);
    // A second start in the same browser: its cookie now binds the other state.
    const { state: otherState } = await issuedState(org, 'local', jar);
    await expectFailed(await app(withParams(callback, { state: otherState }), jar), 'code');
  });

  it('a wrong state fails with the one answer: never issued, malformed, missing, expired, or issued for another provider', async () => {
    const org = await localMember();
    const { callback, jar } = await callbackFor(org);
    // The browser's cookie as it was: each answer below clears it in a jar, and the last request must still carry it.
    const cookie = jar.header(callback);
    await expectFailed(await send(withParams(callback, { state: `rso_${'A'.repeat(43)}` }), cookie), 'state');
    await expectFailed(await send(withParams(callback, { state: 'not-a-state' }), cookie), 'state');
    const missing = new URL(callback);
    missing.searchParams.delete('state');
    await expectFailed(await send(missing, cookie), 'state');
    const forFake = await issuedState(org, 'fake');
    await expectFailed(await app(withParams(callback, { state: forFake.state }), forFake.jar), 'browser');
    // The fake's cookie lives on the fake's callback path: delivered with the cookie itself, it is the wrong provider.
    const fakeCookie = forFake.jar.header(new URL(callbackOf('fake')));
    await expectFailed(await send(withParams(callback, { state: forFake.state }), fakeCookie), 'provider-mismatch');
    const expired = await issuedState(org);
    await stack.redis.pexpire(await stateKeyOf(expired.state), 1);
    await new Promise((resolve) => setTimeout(resolve, 20));
    await expectFailed(await app(withParams(callback, { state: expired.state }), expired.jar), 'state');
    // A repeated parameter is not a callback at all: refused before any state is looked at.
    const doubled = new URL(`${callback.href}&state=${encodeURIComponent(callback.searchParams.get('state')!)}`);
    expect((await send(doubled, cookie)).status).toBe(400);
    // None of these spent the real state: delivered with its browser's cookie, the callback still signs in once.
    expect((await send(callback, cookie)).status).toBe(200);
  });

  it('50 parallel callbacks with one state from its browser: exactly one signs in (and none with a bad code)', async () => {
    const org = await localMember();
    const { callback, jar } = await callbackFor(org);
    const cookie = jar.header(callback);
    // Another instance on the same stores, with the crowd's Redis deadline: on a busy machine fifty callbacks in one
    // process made some losers wait past a production deadline for CPU alone, and answer 503 instead of 401.
    const crowd = composeApp(stack.env, { logger: createJsonLogger(() => undefined), redisTimeoutMs: CROWD_REDIS_TIMEOUT_MS });
    const statuses = await Promise.all(Array.from({ length: 50 }, () => send(callback, cookie, clientIp, crowd).then((r) => r.status)));
    expect(statuses.sort()).toEqual([200, ...Array<number>(49).fill(401)]);
    const sessions = await stack.db.query('SELECT count(*)::int AS n FROM sessions WHERE user_id = $1', [org.adminId]);
    expect(sessions.rows[0].n).toBe(1);

    const second = await callbackFor(org);
    const badCode = withParams(second.callback, { code: 'not-the-code' });
    const badCookie = second.jar.header(badCode);
    const badStatuses = await Promise.all(Array.from({ length: 50 }, () => send(badCode, badCookie).then((r) => r.status)));
    expect(badStatuses.filter((s) => s === 200)).toHaveLength(0);
  });

  it("a provider's error answer fails, and spends the state", async () => {
    const org = await localMember();
    const { state, jar } = await issuedState(org);
    const refused = new URL(`${callbackOf('local')}?error=access_denied&state=${state}&iss=${encodeURIComponent(op.issuer)}`);
    const cookie = jar.header(refused);
    await expectFailed(await send(refused, cookie), 'provider-error');
    await expectFailed(await send(refused, cookie), 'state');
  });

  it('an email the provider has not verified fails', async () => {
    const org = await stack.seedOrganization();
    await allow(org, 'local');
    op.addAccount(org.adminEmail, { emailVerified: false });
    const { callback, jar } = await callbackFor(org);
    await expectFailed(await app(callback, jar), 'email-unverified');
  });

  it("an email with no role in the state's organisation fails (nobody is created), audited in that organisation", async () => {
    const org = await localMember();
    const other = await stack.seedOrganization();
    await allow(other, 'local');
    // A member of `org` signing in to `other`, and a verified stranger.
    const intoOther = await signIn(other, { email: org.adminEmail });
    await expectFailed(intoOther.response, 'unlinked');
    const stranger = `stranger-${uuidv7()}@example.test`;
    op.addAccount(stranger);
    const unknown = await signIn(org, { email: stranger });
    await expectFailed(unknown.response, 'unlinked');
    expect((await stack.db.query('SELECT 1 FROM users WHERE email = $1', [stranger])).rowCount).toBe(0);
    expect(await failureRows(other.organizationId)).toEqual([{ details: { provider: 'local', reason: 'unlinked' } }]);
  });

  it('costs Redis one round trip per callback (the consume script) and two per start (the IP throttle, the SET)', async () => {
    const org = await localMember();
    const warm = await callbackFor(org);
    expect((await app(warm.callback, warm.jar)).status).toBe(200); // scripts loaded, metadata and keys cached
    const { callback, jar } = await callbackFor(org);
    stack.redisProxy.stats.reset();
    expect((await app(callback, jar)).status).toBe(200);
    expect(stack.redisProxy.stats.requests).toBe(1);
    stack.redisProxy.stats.reset();
    expect((await app(startUrl(org.organizationId))).status).toBe(302);
    expect(stack.redisProxy.stats.requests).toBe(2);
  });

  it('the callback is limited per address (an IPv6 caller per /64): past the limit a flood answers 429 before any state is read, and the real state still signs in from elsewhere', async () => {
    const org = await localMember();
    const { callback, jar } = await callbackFor(org);
    const cookie = jar.header(callback);
    const prefix = `2001:db8:${randomHex()}:${randomHex()}`;
    const flooder = `${prefix}::1`;
    const window = await throttleWindow(stack.deps, {
      action: 'oidc-callback',
      scope: { kind: 'platform', tag: 'oidc-callback' },
      subject: ipSubject(flooder),
    });
    // Three made-up states short of the limit: those three are counted and answered as any unknown state is.
    await stack.redis.set(window.key, String(window.limit - 3), 'EX', window.ttlSeconds);
    const made = () => withParams(callback, { state: `rso_${Buffer.from(randomBytes(32)).toString('base64url')}` });
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await send(made(), cookie, flooder)).status);
    expect(statuses).toEqual([401, 401, 401, 429, 429, 429]);
    // The real callback from another address of the same /64: refused the same way, its state neither read nor spent.
    stack.redisProxy.stats.reset();
    const refused = await send(callback, cookie, `${prefix}::2`);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(stack.redisProxy.stats.requests).toBe(1);
    expect(await stack.redis.exists(await stateKeyOf(callback.searchParams.get('state')!))).toBe(1);
    // Its browser, from an address that did not flood, signs in.
    expect((await send(callback, cookie)).status).toBe(200);
  });

  it('a user with confirmed MFA gets what POST /auth/login gives them, not a session from the provider alone', async () => {
    const org = await localMember();
    await stack.db.query(
      "INSERT INTO user_mfa (user_id, secret_ciphertext, secret_key_id, enrolled_at, confirmed_at) VALUES ($1, 'x', 'k', now(), now())",
      [org.adminId],
    );
    const { callback, jar } = await callbackFor(org);
    const response = await app(callback, jar);
    expect(response.status).toBe(200);
    const body = (await response.json()) as { status: string; challengeToken?: string; accessToken?: string };
    expect(body.status).toBe('mfa-required');
    expect(body.challengeToken).toMatch(/^rsm_/);
    expect(body.accessToken).toBeUndefined();
    expect((await stack.db.query('SELECT 1 FROM sessions WHERE user_id = $1', [org.adminId])).rowCount).toBe(0);
    // The half-finished login remembers the provider: the code opens an oidc+totp session of it, not a password's.
    const { userId, challengeId } = readChallengeToken(body.challengeToken!)!;
    const state = JSON.parse((await stack.redis.get(stack.deps.keys.authSessionState(userId, challengeId)))!) as Record<string, unknown>;
    expect(state.providerId).toBe('local');
  });

  it('unknown providers are 404, a bad organisation id 400', async () => {
    const org = await localMember();
    expect((await app(startUrl(org.organizationId, 'elsewhere'))).status).toBe(404);
    expect((await app(new URL(`${callbackOf('elsewhere')}?code=x&state=y`))).status).toBe(404);
    expect((await app(startUrl('not-a-uuid'))).status).toBe(400);
    expect((await app(new URL(`${startUrl(org.organizationId).href}&extra=1`))).status).toBe(400);
  });
});

describe('the state is bound to the browser that started it', () => {
  it('a callback URL replayed from another browser (no cookie, or its own) is refused, spends nothing, and the real browser still signs in', async () => {
    const org = await localMember();
    const { callback, jar } = await callbackFor(org);
    const stateKey = await stateKeyOf(callback.searchParams.get('state')!);
    // Another browser: none of our cookies at all, then one with a binding cookie of its own sign-in.
    const refused = await app(callback, new CookieJar(), freshIp());
    // A refusal clears the cookie too: every answer of the callback does.
    expect(refused.headers.getSetCookie()).toEqual([
      expect.stringMatching(new RegExp(`^${BINDING_COOKIE}=; Max-Age=0; Path=/auth/oidc/local/callback;`)),
    ]);
    await expectFailed(refused, 'browser');
    const attacker = await issuedState(org);
    await expectFailed(await app(callback, attacker.jar, freshIp()), 'browser');
    // A cookie of the right name and shape but not this state's.
    await expectFailed(await send(callback, `${BINDING_COOKIE}=${'A'.repeat(43)}`, freshIp()), 'browser');
    expect(await stack.redis.exists(stateKey)).toBe(1);
    expect((await stack.db.query('SELECT count(*)::int AS n FROM sessions WHERE user_id = $1', [org.adminId])).rows[0].n).toBe(0);
    expect((await failureRows(org.organizationId)).map((row) => row.details.reason)).toEqual(['browser', 'browser', 'browser']);
    // The browser that started it completes it, once.
    const response = await app(callback, jar);
    expect(response.status).toBe(200);
    expect(((await response.json()) as { userId: string }).userId).toBe(org.adminId);
    expect(await stack.redis.exists(stateKey)).toBe(0);
  });
});

describe('the binding cookie of an https deployment', () => {
  it('is __Host- prefixed, Secure, Path=/, HttpOnly and Lax, required at the callback and cleared there', async () => {
    const org = await stack.seedOrganization();
    await allow(org, 'fakehttps');
    fake.mode = 'ok';
    fake.email = org.adminEmail;
    const jar = new CookieJar();
    const start = await app(startUrl(org.organizationId, 'fakehttps'), jar);
    expect(start.status).toBe(302);
    expect(start.headers.getSetCookie()).toEqual([
      expect.stringMatching(
        new RegExp(`^__Host-${BINDING_COOKIE}=[A-Za-z0-9_-]{43}; Max-Age=600; Path=/; HttpOnly; Secure; SameSite=Lax$`),
      ),
    ]);
    // The fake approves at once: its redirect goes to the https callback, which the in-process app answers by path.
    const toCallback = await fetch(new URL(start.headers.get('location')!), { redirect: 'manual' });
    const callback = new URL(toCallback.headers.get('location')!);
    expect(callback.href.startsWith(SECURE_CALLBACK)).toBe(true);
    await expectFailed(await app(callback, new CookieJar()), 'browser');
    const response = await app(callback, jar);
    expect(response.status).toBe(200);
    expect(response.headers.getSetCookie()).toEqual([
      expect.stringMatching(new RegExp(`^__Host-${BINDING_COOKIE}=; Max-Age=0; Path=/; HttpOnly; Secure; SameSite=Lax`)),
    ]);
  });
});

describe('providers are tied to organisations', () => {
  it("a tenant's own provider cannot start a sign-in to another tenant, and asserting another tenant's member signs nobody in", async () => {
    // Tenant A brings its own provider (the fake, which asserts whatever verified email it is told to); tenant B does not list it.
    const tenantA = await stack.seedOrganization();
    await allow(tenantA, 'fake');
    const tenantB = await stack.seedOrganization();
    await allow(tenantB, 'local');
    fake.mode = 'ok';
    fake.email = tenantB.adminEmail;
    const before = fake.tokensIssued;
    stack.redisProxy.stats.reset();
    const intoB = await app(startUrl(tenantB.organizationId, 'fake'));
    expect(intoB.status).toBe(404);
    expect(await intoB.json()).toEqual({ error: { code: 'NOT_FOUND', message: 'no such OpenID provider for this organisation' } });
    expect(stack.redisProxy.stats.requests).toBe(0);
    // Through tenant A's own door, B's admin is no member of A: refused, and audited in A only.
    const { response } = await signIn(tenantA, { provider: 'fake', email: tenantB.adminEmail });
    expect(fake.tokensIssued).toBe(before + 1);
    await expectFailed(response, 'unlinked');
    expect((await stack.db.query('SELECT count(*)::int AS n FROM sessions WHERE user_id = $1', [tenantB.adminId])).rows[0].n).toBe(0);
    expect(await failureRows(tenantB.organizationId)).toEqual([]);
    expect(await failureRows(tenantA.organizationId)).toEqual([{ details: { provider: 'fake', reason: 'unlinked' } }]);
  });

  it('the callback checks again: a provider the organisation dropped while its sign-in page was open signs nobody in', async () => {
    const org = await stack.seedOrganization();
    await allow(org, 'fake');
    fake.mode = 'ok';
    fake.email = org.adminEmail;
    const jar = new CookieJar();
    const started = await app(startUrl(org.organizationId, 'fake'), jar);
    expect(started.status).toBe(302);
    // The fake approves at once: its redirect back to our callback carries a code for this state.
    const toCallback = await fetch(new URL(started.headers.get('location')!), { redirect: 'manual' });
    await stack.db.query('DELETE FROM oidc_provider_organizations WHERE organization_id = $1', [org.organizationId]);
    const answer = await app(new URL(toCallback.headers.get('location')!), jar);
    await expectFailed(answer, 'provider-not-allowed');
    expect((await stack.db.query('SELECT count(*)::int AS n FROM sessions WHERE user_id = $1', [org.adminId])).rows[0].n).toBe(0);
  });
});

describe('an unknown organisation at start', () => {
  it('is 404 NOT_FOUND and writes nothing: no Redis command at all, no audit row', async () => {
    const nobody = uuidv7();
    stack.redisProxy.stats.reset();
    const response = await app(startUrl(nobody));
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ error: { code: 'NOT_FOUND', message: 'no such OpenID provider for this organisation' } });
    expect(response.headers.getSetCookie()).toEqual([]);
    expect(stack.redisProxy.stats.requests).toBe(0);
    expect((await stack.db.query('SELECT count(*)::int AS n FROM audit_events WHERE organization_id = $1', [nobody])).rows[0].n).toBe(0);
    // A state naming it is never issued, so no callback can attribute a failure to it either.
    await expectFailed(await app(new URL(`${callbackOf('local')}?error=access_denied&state=rso_${'B'.repeat(43)}`)), 'state');
    expect((await stack.db.query('SELECT count(*)::int AS n FROM audit_events WHERE organization_id = $1', [nobody])).rows[0].n).toBe(0);
  });

  it('an existing organisation that does not list the provider gets the same answer, and nothing written', async () => {
    const org = await stack.seedOrganization();
    stack.redisProxy.stats.reset();
    const response = await app(startUrl(org.organizationId));
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ error: { code: 'NOT_FOUND', message: 'no such OpenID provider for this organisation' } });
    expect(stack.redisProxy.stats.requests).toBe(0);
  });

  it('a failure row is never written for an organisation that does not exist', async () => {
    const nobody = uuidv7();
    const outcome = await auditOidcFailure(stack.deps, {
      providerId: 'local',
      organizationId: nobody,
      reason: 'state',
      clientIp: freshIp(),
      correlationId: 'test',
    });
    expect(outcome).toBe('no-organization');
    expect((await stack.db.query('SELECT count(*)::int AS n FROM audit_events WHERE organization_id = $1', [nobody])).rows[0].n).toBe(0);
  });
});

describe("the organisation's sign-in policy", () => {
  const setPolicy = (org: Org, requireMfa: boolean, methods: string[]) =>
    stack.db.query('UPDATE organizations SET sign_in_require_mfa = $2, sign_in_methods = $3 WHERE id = $1', [
      org.organizationId,
      requireMfa,
      methods,
    ]);

  it('forbidding OpenID sign-in refuses the start 403 SIGN_IN_METHOD_NOT_ALLOWED, and nothing is written', async () => {
    const org = await localMember();
    await setPolicy(org, false, ['password']);
    stack.redisProxy.stats.reset();
    const response = await app(startUrl(org.organizationId));
    expect([response.status, ((await response.json()) as { error: { code: string } }).error.code]).toEqual([
      403,
      'SIGN_IN_METHOD_NOT_ALLOWED',
    ]);
    expect(response.headers.getSetCookie()).toEqual([]);
    expect(stack.redisProxy.stats.requests).toBe(0);
  });

  it('forbidden while the sign-in page was open, the callback is refused 403 and opens no session', async () => {
    const org = await localMember();
    const { callback, jar } = await callbackFor(org);
    await setPolicy(org, false, ['password']);
    const response = await app(callback, jar);
    expect([response.status, ((await response.json()) as { error: { code: string } }).error.code]).toEqual([
      403,
      'SIGN_IN_METHOD_NOT_ALLOWED',
    ]);
    expect((await stack.db.query('SELECT 1 FROM sessions WHERE user_id = $1', [org.adminId])).rowCount).toBe(0);
  });

  it('requiring MFA, a member without a factor gets an enrolment token, and the session it opens is oidc+totp of the provider', async () => {
    const org = await localMember();
    await setPolicy(org, true, ['oidc']);
    const { callback, jar } = await callbackFor(org);
    const response = await app(callback, jar);
    expect(response.status).toBe(200);
    const body = (await response.json()) as { status: string; enrolmentToken: string; accessToken?: string };
    expect(body.status).toBe('mfa-enrolment-required');
    expect(body.accessToken).toBeUndefined();
    expect((await stack.db.query('SELECT 1 FROM sessions WHERE user_id = $1', [org.adminId])).rowCount).toBe(0);
    const started = await stack.request('POST', '/auth/mfa/enrolment/totp', { body: { enrolmentToken: body.enrolmentToken } });
    expect(started.status).toBe(201);
    const { secret } = (await started.json()) as { secret: string };
    const code = await totpCode(base32Decode(secret), totpStep(Date.now()));
    const confirmed = await stack.request('POST', '/auth/mfa/enrolment/totp/confirm', {
      body: { enrolmentToken: body.enrolmentToken, code },
    });
    expect(confirmed.status).toBe(200);
    const sessions = await stack.db.query('SELECT method, provider_id, organization_id FROM sessions WHERE user_id = $1', [org.adminId]);
    expect(sessions.rows).toEqual([{ method: 'oidc+totp', provider_id: 'local', organization_id: org.organizationId }]);
  });
});

describe('an audit flood', () => {
  it('is throttled per address and per organisation: the rows stay bounded while every refusal still answers 401', async () => {
    const org = await localMember();
    const perIp = THROTTLE_LIMITS['oidc-audit-ip'].limit;
    const perOrg = THROTTLE_LIMITS['oidc-audit-org'].limit;
    // One live state, replayed without its cookie: refused each time and never spent, so it can be replayed at will.
    const { state } = await issuedState(org);
    const replay = new URL(`${callbackOf('local')}?error=access_denied&state=${state}`);
    const flooder = freshIp();
    for (let i = 0; i < perIp + 5; i++) await expectFailed(await app(replay, undefined, flooder), 'browser');
    expect(await failureRows(org.organizationId)).toHaveLength(perIp);
    expect(stack.logs.some((line) => line.includes('"event":"oidc_audit_throttled"'))).toBe(true);
    // Many addresses: the organisation's own bucket caps the rows whatever their number.
    const statuses: number[] = [];
    for (let batch = 0; batch < (perOrg - perIp + 10) / 10; batch++) {
      const answers = await Promise.all(Array.from({ length: 10 }, () => app(replay, undefined, freshIp()).then((r) => r.status)));
      statuses.push(...answers);
    }
    expect(new Set(statuses)).toEqual(new Set([401]));
    expect(await failureRows(org.organizationId)).toHaveLength(perOrg);
    // Another organisation's trail is untouched by it.
    const other = await localMember();
    const { callback, jar } = await callbackFor(other);
    await expectFailed(await app(withParams(callback, { code: 'not-the-code' }), jar), 'code');
    expect(await failureRows(other.organizationId)).toEqual([{ details: { provider: 'local', reason: 'code' } }]);
  });
});

describe('the PKCE verifier', () => {
  it('is random per start, kept only in the state, and the token request carries it (seen at the provider)', async () => {
    const org = await stack.seedOrganization();
    await allow(org, 'fake');
    fake.mode = 'ok';
    fake.email = org.adminEmail;
    const verifiers: string[] = [];
    for (let i = 0; i < 2; i++) {
      const jar = new CookieJar();
      const start = await app(startUrl(org.organizationId, 'fake'), jar);
      const location = new URL(start.headers.get('location')!);
      const state = location.searchParams.get('state')!;
      const kept = JSON.parse((await stack.redis.get(await stateKeyOf(state)))!) as { pkceVerifier: string; nonce: string };
      expect(kept.pkceVerifier).toMatch(/^[A-Za-z0-9_-]{43,128}$/);
      expect(location.searchParams.get('code_challenge')).toBe(createHash('sha256').update(kept.pkceVerifier).digest('base64url'));
      expect(location.searchParams.get('nonce')).toBe(kept.nonce);
      const { response } = await signInThroughBrowser(location, {
        appOrigin: APP_ORIGIN,
        app: (url, cookie) => send(url, cookie),
        email: org.adminEmail,
        appJar: jar,
      });
      expect(response.status).toBe(200);
      const exchange = fake.exchanges.at(-1)!;
      expect(exchange.state).toBe(state);
      expect(exchange.codeVerifier).toBe(kept.pkceVerifier);
      expect(exchange.codeChallenge).toBe(location.searchParams.get('code_challenge'));
      verifiers.push(kept.pkceVerifier);
    }
    expect(new Set(verifiers).size).toBe(2);
  });
});

describe('ID tokens a real provider would not send (the fake provider)', () => {
  async function throughFake(mode: FakeOpMode): Promise<{ response: Response; org: Org }> {
    const org = await stack.seedOrganization();
    await allow(org, 'fake');
    fake.mode = mode;
    fake.email = org.adminEmail;
    const before = fake.tokensIssued;
    const { response } = await signIn(org, { provider: 'fake' });
    // The exchange happened (PKCE verified by the fake): what fails below is our check of the ID token.
    expect(fake.tokensIssued).toBe(before + 1);
    return { response, org };
  }

  it('a correct ID token signs in (the control)', async () => {
    const { response, org } = await throughFake('ok');
    expect(response.status).toBe(200);
    expect(((await response.json()) as { userId: string }).userId).toBe(org.adminId);
  });

  it.each([
    ['wrong-nonce', 'nonce'],
    ['wrong-audience', 'audience'],
    ['bad-signature', 'signature'],
    ['expired', 'expired'],
  ] as const)('an ID token with a %s fails (%s)', async (mode, reason) => {
    const { response } = await throughFake(mode);
    await expectFailed(response, reason);
  });
});

describe('Redis down', () => {
  it('the callback fails closed with 503, spends nothing, and signs in once Redis is back', async () => {
    const org = await localMember();
    const { callback, jar } = await callbackFor(org);
    const cookie = jar.header(callback);
    stack.redisProxy.faults.set({ refuse: true });
    try {
      const response = await send(callback, cookie);
      expect(response.status).toBe(503);
      expect(response.headers.get('retry-after')).not.toBeNull();
      const start = await app(startUrl(org.organizationId));
      expect(start.status).toBe(503);
    } finally {
      stack.redisProxy.faults.clear();
    }
    const sessions = await stack.db.query('SELECT count(*)::int AS n FROM sessions WHERE user_id = $1', [org.adminId]);
    expect(sessions.rows[0].n).toBe(0);
    expect((await send(callback, cookie)).status).toBe(200);
  });
});

describe('the local provider', () => {
  it('listens on loopback, refuses a foreign Host name, and signs in no account it does not hold', async () => {
    expect(new URL(op.issuer).hostname).toBe('127.0.0.1');
    const discovery = `${op.issuer}/.well-known/openid-configuration`;
    expect((await fetch(discovery)).status).toBe(200);
    const { request } = await import('node:http');
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(discovery, { headers: { host: 'rebound.example.test' } }, (res) => resolve(res.statusCode ?? 0));
      req.on('error', reject);
      req.end();
    });
    expect(status).toBe(421);
    const org = await stack.seedOrganization();
    await allow(org, 'local');
    const flow = await signIn(org);
    expect(flow.callbackUrl).toBeUndefined();
    expect(flow.response.status).toBeGreaterThanOrEqual(400);
  });
});

/** Every form a secret could leak in: plain, base64, base64url, URL-encoded, hex. */
function leakForms(secret: string): string[] {
  const bytes = Buffer.from(secret);
  return [secret, bytes.toString('base64'), bytes.toString('base64url'), encodeURIComponent(secret), bytes.toString('hex')];
}

async function redisDump(): Promise<string> {
  const keys = await stack.redis.keys('*');
  const values = await Promise.all(keys.map((key) => stack.redis.dumpBuffer(key)));
  return [keys.join('\n'), ...values.map((value) => value?.toString('latin1') ?? '')].join('\n');
}

async function everything(): Promise<string> {
  const tables = await stack.db.query("SELECT tablename FROM pg_tables WHERE schemaname = 'public'");
  const rows: string[] = [];
  for (const { tablename } of tables.rows as Array<{ tablename: string }>) {
    rows.push(JSON.stringify((await stack.db.query(`SELECT * FROM "${tablename}"`)).rows));
  }
  return [await redisDump(), ...rows, ...stack.logs, ...answers].join('\n');
}

describe('canary', () => {
  it('the state, the binding cookie, the code and the client secret are in no key, value, row, log or answer; the PKCE verifier only in its state while it lives', async () => {
    const org = await localMember();
    const { callback, jar } = await callbackFor(org);
    const state = callback.searchParams.get('state')!;
    const code = callback.searchParams.get('code')!;
    const binding = jar.get(BINDING_COOKIE)!;
    const stateKey = await stateKeyOf(state);
    const verifier = (JSON.parse((await stack.redis.get(stateKey))!) as { pkceVerifier: string }).pkceVerifier;
    const clientSecret = op.providerEntry('local').clientSecret;
    expect(verifier).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(binding).toMatch(/^[A-Za-z0-9_-]{43}$/);

    // While the state lives: Redis holds its hash (the key) and the binding's hash, never the state or the cookie; the
    // verifier is in the state's value and in no key.
    const live = await redisDump();
    expect(live).toContain(await sha256Hex(state));
    for (const secret of [state, binding, clientSecret]) expect(leakForms(secret).filter((form) => live.includes(form))).toEqual([]);
    expect((await stack.redis.keys('*')).filter((key) => key.includes(verifier))).toEqual([]);

    // Its whole life: signed in, replayed (from this browser and from another), and a provider error on another state.
    const cookie = jar.header(callback);
    expect((await app(callback, jar)).status).toBe(200);
    await send(callback, cookie);
    await app(callback);
    const other = await issuedState(org);
    await app(new URL(`${callbackOf('local')}?error=access_denied&state=${other.state}`), other.jar);
    const haystack = await everything();
    expect(haystack).toContain(org.adminId);
    for (const secret of [state, binding, verifier, code, clientSecret]) {
      expect(leakForms(secret).filter((form) => haystack.includes(form))).toEqual([]);
    }
  });

  it('the scan finds a planted canary in every store it reads (positive control)', async () => {
    const planted = `rso_${'C'.repeat(43)}`;
    await stack.redis.set(`control:${Buffer.from(planted).toString('base64')}`, 'x', 'EX', 60);
    stack.logs.push(JSON.stringify({ event: 'control', value: encodeURIComponent(planted) }));
    answers.push(Buffer.from(planted).toString('hex'));
    try {
      const haystack = await everything();
      const found = leakForms(planted).filter((form) => haystack.includes(form));
      // Planted in a key (base64), a log line (plain) and an answer (hex): each is found where it was put.
      expect(found).toEqual(
        expect.arrayContaining([planted, Buffer.from(planted).toString('base64'), Buffer.from(planted).toString('hex')]),
      );
    } finally {
      await stack.redis.del(`control:${Buffer.from(planted).toString('base64')}`);
      stack.logs.pop();
      answers.pop();
    }
  });
});
