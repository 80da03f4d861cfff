// OIDC sign-in against a real OpenID provider (local/oidc/provider.ts), a fake one for the ID-token checks a real one
// never fails (test/support/fake-op.ts), and real Redis and PostgreSQL: the state is spent once, the code exchanged
// with the derived PKCE verifier, the ID token checked, the verified email linked within the state's organisation.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeJwt } from 'jose';
import { uuidv7 } from 'uuidv7';
import { pkceVerifierFor } from '../../lib/auth/oidc/derived-secrets.ts';
import { sha256Hex } from '../../lib/crypto/index.ts';
import { startLocalOidcProvider, type LocalOidcProvider } from '../../local/oidc/provider.ts';
import { startFakeOp, type FakeOp, type FakeOpMode } from '../support/fake-op.ts';
import { TEST_INDEX_HASH_KEY } from '../support/fixtures.ts';
import { signInThroughBrowser } from '../support/oidc.ts';
import { startStack, type TestStack } from '../support/stack.ts';

const APP_ORIGIN = 'http://127.0.0.1:8787';
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
  const providers = [op.providerEntry('local'), fake.providerEntry('fake', callbackOf('fake'))];
  stack = await startStack({ env: { OIDC_PROVIDERS: JSON.stringify(providers) } });
});
afterAll(async () => {
  await stack?.close();
  await op?.close();
  await fake?.close();
});

type Org = Awaited<ReturnType<TestStack['seedOrganization']>>;

async function app(url: URL): Promise<Response> {
  const response = await stack.app.request(`${url.pathname}${url.search}`);
  const headers = [...response.headers.entries()].map(([name, value]) => `${name}: ${value}`);
  // /start's Location carries the state by design (its one way to the browser); every other answer must carry none.
  if (!url.pathname.endsWith('/start')) answers.push(`${headers.join('\n')}\n${await response.clone().text()}`);
  return response;
}

const startUrl = (organizationId: string, provider = 'local') =>
  new URL(`${APP_ORIGIN}/auth/oidc/${provider}/start?organizationId=${organizationId}`);

/** The flow up to the provider's redirect to our callback, not delivered yet. */
async function callbackFor(org: Org, provider = 'local'): Promise<URL> {
  const { callbackUrl } = await signInThroughBrowser(startUrl(org.organizationId, provider), {
    appOrigin: APP_ORIGIN,
    app,
    email: org.adminEmail,
    stopAtCallback: true,
  });
  expect(callbackUrl).toBeDefined();
  return callbackUrl!;
}

/** A fresh state issued by /start (the provider never sees it). */
async function issuedState(org: Org, provider = 'local'): Promise<string> {
  const response = await app(startUrl(org.organizationId, provider));
  expect(response.status).toBe(302);
  return new URL(response.headers.get('location')!).searchParams.get('state')!;
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

async function localMember(): Promise<Org> {
  const org = await stack.seedOrganization();
  op.addAccount(org.adminEmail);
  return org;
}

describe('OIDC sign-in through the local provider', () => {
  it('the full flow signs in: the login body, no-store and no-referrer, audit rows, and an access token that works', async () => {
    const org = await localMember();
    const start = await app(startUrl(org.organizationId));
    expect(start.status).toBe(302);
    expect(start.headers.get('cache-control')).toBe('no-store');
    expect(start.headers.get('referrer-policy')).toBe('no-referrer');
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
    const [stateKey] = await stack.redis.keys(`*${await sha256Hex(state)}`);
    expect(await stack.redis.ttl(stateKey!)).toBeGreaterThanOrEqual(599);

    const { response } = await signInThroughBrowser(location, { appOrigin: APP_ORIGIN, app, email: org.adminEmail });
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.headers.get('referrer-policy')).toBe('no-referrer');
    const body = (await response.json()) as Record<string, unknown>;
    expect(Object.keys(body).sort()).toEqual(
      ['status', 'tokenType', 'accessToken', 'expiresInSeconds', 'refreshToken', 'userId', 'organizationId', 'sessionExpiresAtUtc'].sort(),
    );
    expect(body).toMatchObject({ status: 'signed-in', tokenType: 'Bearer', userId: org.adminId, organizationId: org.organizationId });
    const claims = decodeJwt(body.accessToken as string);
    expect(claims).toMatchObject({ sub: org.adminId, email: org.adminEmail, email_verified: true });
    expect((await stack.request('GET', `/orgs/${org.organizationId}/invites`, { token: body.accessToken as string })).status).toBe(200);
    expect(await stack.redis.exists(stateKey!)).toBe(0);

    const audit = await stack.db.query(
      'SELECT action, details FROM audit_events WHERE organization_id = $1 AND actor_user_id = $2 ORDER BY action',
      [org.organizationId, org.adminId],
    );
    expect(audit.rows).toEqual([
      { action: 'auth.oidc_signed_in', details: { provider: 'local' } },
      { action: 'session.created', details: { method: 'oidc' } },
    ]);
    const refreshed = await stack.request('POST', '/auth/refresh', { body: { refreshToken: body.refreshToken } });
    expect(refreshed.status).toBe(200);
  });

  it('a replayed callback (the same code and state again) fails', async () => {
    const org = await localMember();
    const callback = await callbackFor(org);
    expect((await app(callback)).status).toBe(200);
    await expectFailed(await app(callback), 'state');
  });

  it("a provider's code delivered with another live state fails at the exchange (the PKCE verifier is the state's)", async () => {
    const org = await localMember();
    const callback = await callbackFor(org);
    const otherState = await issuedState(org);
    await expectFailed(await app(withParams(callback, { state: otherState })), 'code');
  });

  it('a wrong state fails with the one answer: never issued, malformed, missing, expired, or issued for another provider', async () => {
    const org = await localMember();
    const callback = await callbackFor(org);
    await expectFailed(await app(withParams(callback, { state: `rso_${'A'.repeat(43)}` })), 'state');
    await expectFailed(await app(withParams(callback, { state: 'not-a-state' })), 'state');
    const missing = new URL(callback);
    missing.searchParams.delete('state');
    await expectFailed(await app(missing), 'state');
    await expectFailed(await app(withParams(callback, { state: await issuedState(org, 'fake') })), 'provider-mismatch');
    const expired = await issuedState(org);
    const [expiredKey] = await stack.redis.keys(`*${await sha256Hex(expired)}`);
    await stack.redis.pexpire(expiredKey!, 1);
    await new Promise((resolve) => setTimeout(resolve, 20));
    await expectFailed(await app(withParams(callback, { state: expired })), 'state');
    // A repeated parameter is not a callback at all: refused before any state is looked at.
    const doubled = new URL(`${callback.href}&state=${encodeURIComponent(callback.searchParams.get('state')!)}`);
    expect((await app(doubled)).status).toBe(400);
    // None of these spent the real state: the callback still signs in once.
    expect((await app(callback)).status).toBe(200);
  });

  it('50 parallel callbacks with one state: exactly one signs in (and none with a bad code)', async () => {
    const org = await localMember();
    const callback = await callbackFor(org);
    const statuses = await Promise.all(Array.from({ length: 50 }, () => app(callback).then((r) => r.status)));
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 401)).toHaveLength(49);
    const sessions = await stack.db.query('SELECT count(*)::int AS n FROM sessions WHERE user_id = $1', [org.adminId]);
    expect(sessions.rows[0].n).toBe(1);

    const badCode = withParams(await callbackFor(org), { code: 'not-the-code' });
    const badStatuses = await Promise.all(Array.from({ length: 50 }, () => app(badCode).then((r) => r.status)));
    expect(badStatuses.filter((s) => s === 200)).toHaveLength(0);
  });

  it("a provider's error answer fails, and spends the state", async () => {
    const org = await localMember();
    const state = await issuedState(org);
    const refused = new URL(`${callbackOf('local')}?error=access_denied&state=${state}&iss=${encodeURIComponent(op.issuer)}`);
    await expectFailed(await app(refused), 'provider-error');
    await expectFailed(await app(refused), 'state');
  });

  it('an email the provider has not verified fails', async () => {
    const org = await stack.seedOrganization();
    op.addAccount(org.adminEmail, { emailVerified: false });
    await expectFailed(await app(await callbackFor(org)), 'email-unverified');
  });

  it("an email with no role in the state's organisation fails (nobody is created), audited in that organisation", async () => {
    const org = await localMember();
    const other = await stack.seedOrganization();
    // A member of `org` signing in to `other`, and a verified stranger.
    const intoOther = await signInThroughBrowser(startUrl(other.organizationId), { appOrigin: APP_ORIGIN, app, email: org.adminEmail });
    await expectFailed(intoOther.response, 'unlinked');
    const stranger = `stranger-${uuidv7()}@example.test`;
    op.addAccount(stranger);
    const unknown = await signInThroughBrowser(startUrl(org.organizationId), { appOrigin: APP_ORIGIN, app, email: stranger });
    await expectFailed(unknown.response, 'unlinked');
    expect((await stack.db.query('SELECT 1 FROM users WHERE email = $1', [stranger])).rowCount).toBe(0);
    const audit = await stack.db.query("SELECT details FROM audit_events WHERE organization_id = $1 AND action = 'auth.oidc_failed'", [
      other.organizationId,
    ]);
    expect(audit.rows).toEqual([{ details: { provider: 'local', reason: 'unlinked' } }]);
  });

  it('costs Redis one round trip per callback (the consume script) and two per start (the IP throttle, the SET)', async () => {
    const org = await localMember();
    expect((await app(await callbackFor(org))).status).toBe(200); // scripts loaded, metadata and keys cached
    const callback = await callbackFor(org);
    stack.redisProxy.stats.reset();
    expect((await app(callback)).status).toBe(200);
    expect(stack.redisProxy.stats.requests).toBe(1);
    stack.redisProxy.stats.reset();
    expect((await app(startUrl(org.organizationId))).status).toBe(302);
    expect(stack.redisProxy.stats.requests).toBe(2);
  });

  it('a user with confirmed MFA gets what POST /auth/login gives them, not a session from the provider alone', async () => {
    const org = await localMember();
    await stack.db.query(
      "INSERT INTO user_mfa (user_id, secret_ciphertext, secret_key_id, enrolled_at, confirmed_at) VALUES ($1, 'x', 'k', now(), now())",
      [org.adminId],
    );
    const response = await app(await callbackFor(org));
    expect(response.status).toBe(200);
    const body = (await response.json()) as { status: string; challengeToken?: string; accessToken?: string };
    expect(body.status).toBe('mfa-required');
    expect(body.challengeToken).toMatch(/^rsm_/);
    expect(body.accessToken).toBeUndefined();
    expect((await stack.db.query('SELECT 1 FROM sessions WHERE user_id = $1', [org.adminId])).rowCount).toBe(0);
  });

  it('unknown providers are 404, a bad organisation id 400', async () => {
    const org = await localMember();
    expect((await app(startUrl(org.organizationId, 'elsewhere'))).status).toBe(404);
    expect((await app(new URL(`${callbackOf('elsewhere')}?code=x&state=y`))).status).toBe(404);
    expect((await app(startUrl('not-a-uuid'))).status).toBe(400);
    expect((await app(new URL(`${startUrl(org.organizationId).href}&extra=1`))).status).toBe(400);
  });
});

describe('ID tokens a real provider would not send (the fake provider)', () => {
  async function throughFake(mode: FakeOpMode): Promise<{ response: Response; org: Org }> {
    const org = await stack.seedOrganization();
    fake.mode = mode;
    fake.email = org.adminEmail;
    const before = fake.tokensIssued;
    const { response } = await signInThroughBrowser(startUrl(org.organizationId, 'fake'), {
      appOrigin: APP_ORIGIN,
      app,
      email: org.adminEmail,
    });
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
    const callback = await callbackFor(org);
    stack.redisProxy.faults.set({ refuse: true });
    try {
      const response = await app(callback);
      expect(response.status).toBe(503);
      expect(response.headers.get('retry-after')).not.toBeNull();
      const start = await app(startUrl(org.organizationId));
      expect(start.status).toBe(503);
    } finally {
      stack.redisProxy.faults.clear();
    }
    const sessions = await stack.db.query('SELECT count(*)::int AS n FROM sessions WHERE user_id = $1', [org.adminId]);
    expect(sessions.rows[0].n).toBe(0);
    expect((await app(callback)).status).toBe(200);
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
    const flow = await signInThroughBrowser(startUrl(org.organizationId), { appOrigin: APP_ORIGIN, app, email: org.adminEmail });
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
  it('the PKCE verifier, the state, the code and the client secret are in no key, value, row, log or answer', async () => {
    const org = await localMember();
    const callback = await callbackFor(org);
    const state = callback.searchParams.get('state')!;
    const code = callback.searchParams.get('code')!;
    const verifier = await pkceVerifierFor(TEST_INDEX_HASH_KEY, state);
    const clientSecret = op.providerEntry('local').clientSecret;
    expect(verifier).toMatch(/^[A-Za-z0-9_-]{43}$/);

    // While the state lives: Redis holds its hash (the key), never the state or the verifier.
    const live = await redisDump();
    expect(live).toContain(await sha256Hex(state));
    for (const secret of [state, verifier, clientSecret]) expect(leakForms(secret).filter((form) => live.includes(form))).toEqual([]);

    // Its whole life: signed in, replayed, and a provider error on another state.
    expect((await app(callback)).status).toBe(200);
    await app(callback);
    await app(new URL(`${callbackOf('local')}?error=access_denied&state=${await issuedState(org)}`));
    const haystack = await everything();
    expect(haystack).toContain(org.adminId);
    for (const secret of [state, verifier, code, clientSecret]) {
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
