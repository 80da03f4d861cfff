// The console over plain HTTP (the browser tests are in test/browser/): its CSP and headers, the CSRF defence of every
// state-changing request, cookies that hold the session (HttpOnly, SameSite=Strict, scoped to /console) and never reach
// a body, API answers handed back as the API words them, refresh and logout, MFA, the dev link, and off unless enabled.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeJwt } from 'jose';
import { uuidv7 } from 'uuidv7';
import { base32Decode, totpCode, totpStep } from '../../lib/crypto/index.ts';
import { devLoginSchema, issueDevLoginCode } from '../../lib/console/dev-login.ts';
import { CONSOLE_CSP } from '../../lib/console/security-headers.ts';
import { singleUse } from '../../lib/runtime/single-use/index.ts';
import { TEST_CLIENT_IP_HEADER } from '../../local/stack/app.ts';
import { ConsoleClient } from '../support/console-client.ts';
import { setPassword } from '../support/fixtures.ts';
import { testPasskey, type RegistrationOptions } from '../support/passkey-authenticator.ts';
import { startStack, type TestStack } from '../support/stack.ts';

const ORIGIN = 'http://localhost';

let stack: TestStack;
let off: TestStack;
beforeAll(async () => {
  stack = await startStack({ env: { CONSOLE_ENABLED: 'true' } });
  off = await startStack();
});
afterAll(async () => {
  await stack?.close();
  await off?.close();
});

type Org = Awaited<ReturnType<TestStack['seedOrganization']>>;
type ErrorBody = { error: { code: string; message: string } };

let ipCounter = 0;
const freshIp = () => `127.3.${Math.floor(++ipCounter / 250)}.${ipCounter % 250}`;

function client(s: TestStack = stack): ConsoleClient {
  // One address per client, so the sign-in throttles of one test never answer for another.
  const ip = freshIp();
  return new ConsoleClient(
    (path, init) => s.app.request(path, { ...init, headers: { ...init.headers, [TEST_CLIENT_IP_HEADER]: ip } }),
    ORIGIN,
  );
}

async function withPassword(org: Org): Promise<string> {
  const password = `canary-password-${uuidv7()}`;
  await setPassword(stack.db, org.adminId, password);
  return password;
}

/** A console client signed in as the organisation's admin through POST /console/session. */
async function signedIn(org: Org): Promise<{ console: ConsoleClient; password: string }> {
  const password = await withPassword(org);
  const console = client();
  await console.openPage();
  const response = await console.send('POST', '/console/session', {
    body: { organizationId: org.organizationId, email: org.adminEmail, password },
  });
  expect(response.status).toBe(200);
  return { console, password };
}

describe('the page and its headers', () => {
  it('serves the shell, its script and its stylesheet with the strict CSP, and every console answer carries it', async () => {
    const console = client();
    const page = await console.openPage();
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await page.text();
    // Nothing inline: the one script and the one stylesheet come from /console itself.
    expect(html).toContain('<script defer src="/console/assets/webauthn.js"></script>');
    expect(html).toContain('<script defer src="/console/assets/ua-parser.js"></script>');
    expect(html).toContain('<script type="module" src="/console/assets/console.js"></script>');
    expect(html).not.toMatch(/<script(?![^>]*\ssrc=)[^>]*>/);
    expect(html).not.toMatch(/\sstyle=|<style/);
    expect(console.csrfToken).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const js = await console.send('GET', '/console/assets/console.js');
    const css = await console.send('GET', '/console/assets/console.css');
    const webauthn = await console.send('GET', '/console/assets/webauthn.js');
    const uaParser = await console.send('GET', '/console/assets/ua-parser.js');
    const api = await console.send('GET', '/console/api/auth/memberships');
    const unknown = await console.send('GET', '/console/nothing-here');
    expect(js.headers.get('content-type')).toMatch(/^text\/javascript/);
    expect(css.headers.get('content-type')).toMatch(/^text\/css/);
    // @simplewebauthn/browser's own bundle, as the package ships it.
    expect(webauthn.headers.get('content-type')).toMatch(/^text\/javascript/);
    expect(await webauthn.text()).toMatch(/^\/\* \[@simplewebauthn\/browser@13\.3\.0\] \*\//);
    // ua-parser-js's own browser build (1.x, MIT), as the package ships it.
    expect(uaParser.headers.get('content-type')).toMatch(/^text\/javascript/);
    expect(await uaParser.text()).toMatch(/^\(function \(exports, module, define\) \{\n\/\* UAParser\.js v1\.0\.41\n/);
    expect(api.status).toBe(401);
    expect(unknown.status).toBe(404);
    for (const response of [page, js, css, webauthn, uaParser, api, unknown]) {
      expect(response.headers.get('content-security-policy')).toBe(CONSOLE_CSP);
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
      expect(response.headers.get('x-frame-options')).toBe('DENY');
      expect(response.headers.get('referrer-policy')).toBe('no-referrer');
    }
    expect(CONSOLE_CSP).toBe(
      "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
    );
    expect(page.headers.get('cache-control')).toBe('no-store');
    expect(js.headers.get('cache-control')).toBe('no-cache');
  });

  it('issues the CSRF cookie HttpOnly, SameSite=Strict, scoped to /console, and not Secure over http in test', async () => {
    const console = client();
    await console.openPage();
    const csrf = console.cookies.get('rs_console_csrf')!;
    expect(csrf.path).toBe('/console');
    expect(csrf.attributes).toEqual(expect.arrayContaining(['httponly', 'samesite=strict']));
    expect(csrf.attributes).not.toContain('secure');
    // The page gets the HMAC of the cookie, never the cookie's value.
    expect(console.csrfToken).not.toBe(csrf.value);
  });

  it('is off unless CONSOLE_ENABLED says so outside dev: every console path is the 404 of an unknown route', async () => {
    for (const path of ['/console', '/console/assets/console.js', '/console/api/auth/memberships', '/console/dev-login?code=x']) {
      const response = await off.app.request(path);
      expect(response.status, path).toBe(404);
      expect(await response.json()).toEqual({ error: { code: 'NOT_FOUND', message: 'no such route' } });
    }
    expect((await off.app.request('/console/session', { method: 'POST' })).status).toBe(404);
  });
});

describe('CSRF', () => {
  it('refuses a state-changing request without the token, with a wrong one, from another site or origin: 403, nothing done', async () => {
    const org = await stack.seedOrganization();
    const { console } = await signedIn(org);
    const path = `/console/api/orgs/${org.organizationId}/invites`;
    const body = { email: `csrf-${uuidv7().slice(-8)}@example.test`, roleCode: 'Viewer' };
    const refusals = [
      await console.send('POST', path, { body, csrf: false }),
      await console.send('POST', path, { body, headers: { 'x-csrf-token': 'A'.repeat(43) } }),
      await console.send('POST', path, { body, headers: { 'sec-fetch-site': 'cross-site' } }),
      await console.send('POST', path, { body, headers: { 'sec-fetch-site': 'same-site' } }),
      await console.send('POST', path, { body, headers: { origin: 'https://evil.example' } }),
      await console.send('DELETE', `/console/api/orgs/${org.organizationId}/invites/${uuidv7()}`, { csrf: false }),
      await console.send('POST', '/console/session/logout', { csrf: false }),
    ];
    for (const response of refusals) {
      expect(response.status).toBe(403);
      const answer = (await response.json()) as ErrorBody;
      expect(answer.error.code).toBe('CSRF_REFUSED');
      expect(response.headers.get('content-security-policy')).toBe(CONSOLE_CSP);
    }
    const listed = await stack.request('GET', `/orgs/${org.organizationId}/invites`, { token: org.adminToken });
    expect(((await listed.json()) as { invites: unknown[] }).invites).toEqual([]);
    // The refused logout left the session working.
    expect((await console.send('GET', `/console/api/orgs/${org.organizationId}/invites`)).status).toBe(200);
    // With the token, from the page's own origin, the same request goes through.
    expect((await console.send('POST', path, { body })).status).toBe(201);
  });

  it('refuses a sign-in without the token too (no login CSRF), and a CSRF cookie of another browser does not fit', async () => {
    const org = await stack.seedOrganization();
    const password = await withPassword(org);
    const credentials = { organizationId: org.organizationId, email: org.adminEmail, password };
    const noPage = client();
    expect((await noPage.send('POST', '/console/session', { body: credentials })).status).toBe(403);
    const mine = client();
    await mine.openPage();
    const theirs = client();
    await theirs.openPage();
    mine.csrfToken = theirs.csrfToken;
    expect((await mine.send('POST', '/console/session', { body: credentials })).status).toBe(403);
    expect(mine.cookies.has('rs_console_access')).toBe(false);
  });

  it('lets GETs through without the token: they change nothing', async () => {
    const org = await stack.seedOrganization();
    const { console } = await signedIn(org);
    const response = await console.send('GET', `/console/api/orgs/${org.organizationId}/invites`, { csrf: false });
    expect(response.status).toBe(200);
  });
});

describe('switching organisation', () => {
  /** The signed-in admin of `org` is also an admin of a second organisation, which does not list the provider `local`. */
  async function adminOfTwo(org: Org): Promise<Org> {
    const away = await stack.seedOrganization();
    await stack.db.query(
      "INSERT INTO role_assignments (id, user_id, organization_id, location_id, role_code) VALUES ($1, $2, $3, NULL, 'OrganizationAdmin')",
      [uuidv7(), org.adminId, away.organizationId],
    );
    return away;
  }

  it('through its own route: the new tokens land in the cookies, never in the page, and act in the target', async () => {
    const org = await stack.seedOrganization();
    const away = await adminOfTwo(org);
    const { console } = await signedIn(org);
    const before = { access: console.cookies.get('rs_console_access')!.value, refresh: console.cookies.get('rs_console_refresh')!.value };
    // The page's generic way to the API does not switch: its answer would carry the tokens.
    const direct = await console.send('PUT', '/console/api/auth/context', { body: { organizationId: away.organizationId } });
    expect(direct.status).toBe(404);

    const response = await console.send('PUT', '/console/session/context', { body: { organizationId: away.organizationId } });
    expect(response.status).toBe(200);
    const text = await response.text();
    const access = console.cookies.get('rs_console_access')!.value;
    const refresh = console.cookies.get('rs_console_refresh')!.value;
    expect(access).not.toBe(before.access);
    expect(refresh).not.toBe(before.refresh);
    expect(decodeJwt(access).org).toBe(away.organizationId);
    for (const secret of [access, refresh, before.access, before.refresh]) expect(text).not.toContain(secret);
    expect(JSON.parse(text)).toEqual({
      context: expect.objectContaining({ organizationId: away.organizationId, roleCode: 'OrganizationAdmin' }),
      session: { status: 'signed-in', userId: org.adminId, organizationId: away.organizationId, sessionExpiresAtUtc: expect.any(String) },
    });
    expect((await console.send('GET', `/console/api/orgs/${away.organizationId}/members`)).status).toBe(200);
    expect((await console.send('GET', `/console/api/orgs/${org.organizationId}/members`)).status).toBe(403);
    // The refresh cookie is the new head of the family: the console refreshes with it, in the target.
    const refreshed = await console.send('POST', '/console/session/refresh');
    expect(refreshed.status).toBe(200);
    expect(((await refreshed.json()) as { organizationId: string }).organizationId).toBe(away.organizationId);
    // Within the organisation now bound: {context} only, the cookies untouched.
    const kept = console.cookies.get('rs_console_access')!.value;
    const within = await console.send('PUT', '/console/session/context', { body: { organizationId: away.organizationId } });
    expect(Object.keys((await within.json()) as object)).toEqual(['context']);
    expect(console.cookies.get('rs_console_access')!.value).toBe(kept);
  });

  it("hands on the API's refusal, SIGN_IN_REQUIRED included, and keeps the cookies", async () => {
    const org = await stack.seedOrganization();
    const away = await adminOfTwo(org);
    const { console } = await signedIn(org);
    // A password session is accepted everywhere; make this one a provider's, which `away` does not list.
    const sid = decodeJwt(console.cookies.get('rs_console_access')!.value).sid as string;
    await stack.db.query("UPDATE sessions SET method = 'oidc', provider_id = 'local' WHERE id = $1", [sid]);
    const before = console.cookies.get('rs_console_access')!.value;
    const response = await console.send('PUT', '/console/session/context', { body: { organizationId: away.organizationId } });
    expect(response.status).toBe(403);
    expect(((await response.json()) as ErrorBody).error.code).toBe('SIGN_IN_REQUIRED');
    expect(console.cookies.get('rs_console_access')!.value).toBe(before);
    const stranger = await stack.seedOrganization();
    const refused = await console.send('PUT', '/console/session/context', { body: { organizationId: stranger.organizationId } });
    expect(((await refused.json()) as ErrorBody).error.code).toBe('FORBIDDEN');
    // Without the CSRF token it is refused like every state-changing console request.
    const forged = await console.send('PUT', '/console/session/context', { body: { organizationId: away.organizationId }, csrf: false });
    expect(forged.status).toBe(403);
  });
});

describe('the session in cookies', () => {
  it('signs in with the password: HttpOnly SameSite=Strict cookies scoped to /console, no token or password in any body', async () => {
    const org = await stack.seedOrganization();
    const { console, password } = await signedIn(org);
    const access = console.cookies.get('rs_console_access')!;
    const refresh = console.cookies.get('rs_console_refresh')!;
    expect(access.path).toBe('/console');
    expect(refresh.path).toBe('/console/session');
    for (const cookie of [access, refresh]) {
      expect(cookie.attributes).toEqual(expect.arrayContaining(['httponly', 'samesite=strict']));
      expect(cookie.attributes.some((a) => a.startsWith('max-age='))).toBe(true);
    }
    expect(decodeJwt(access.value).sub).toBe(org.adminId);
    // The page's answers: who and until when, never a token or the password.
    const session = await console.send('POST', '/console/session', {
      body: { organizationId: org.organizationId, email: org.adminEmail, password },
    });
    const text = await session.text();
    const again = console.cookies.get('rs_console_access')!;
    for (const secret of [access.value, refresh.value, again.value, console.cookies.get('rs_console_refresh')!.value, password]) {
      expect(text).not.toContain(secret);
    }
    expect(JSON.parse(text)).toMatchObject({ status: 'signed-in', userId: org.adminId, organizationId: org.organizationId });
    const memberships = await console.send('GET', '/console/api/auth/memberships');
    expect(await memberships.json()).toEqual({
      memberships: [
        {
          organizationId: org.organizationId,
          name: 'Test org',
          roleCode: 'OrganizationAdmin',
          switchable: true,
          locations: [{ locationId: org.locationId, name: 'Main', roleCode: null }],
        },
      ],
    });
  });

  it('hands API answers back as the API words them: status, body, headers; the refusal of another tenant is its 403', async () => {
    const org = await stack.seedOrganization();
    const other = await stack.seedOrganization();
    const { console } = await signedIn(org);
    const viaConsole = await console.send('GET', `/console/api/orgs/${other.organizationId}/invites`);
    const direct = await stack.request('GET', `/orgs/${other.organizationId}/invites`, { token: org.adminToken });
    expect(viaConsole.status).toBe(403);
    expect(await viaConsole.json()).toEqual(await direct.json());
    const bad = await console.send('POST', `/console/api/orgs/${org.organizationId}/invites`, { body: { email: 'not-an-email' } });
    const badDirect = await stack.request('POST', `/orgs/${org.organizationId}/invites`, {
      token: org.adminToken,
      body: { email: 'not-an-email' },
    });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual(await badDirect.json());
    // One correlation id for the console's answer and the API call behind it.
    const traced = await console.send('GET', `/console/api/orgs/${org.organizationId}/invites`, {
      headers: { 'x-correlation-id': 'console-trace-1' },
    });
    expect(traced.headers.get('x-correlation-id')).toBe('console-trace-1');
    expect(traced.headers.get('set-cookie')).toBeNull();
  });

  it('reaches only the routes the page needs: sign-in, refresh, handoff and traversal out of them are 404', async () => {
    const org = await stack.seedOrganization();
    const { console } = await signedIn(org);
    for (const [method, path] of [
      ['POST', '/console/api/auth/login'],
      ['POST', '/console/api/auth/refresh'],
      ['POST', '/console/api/auth/handoff'],
      ['POST', '/console/api/auth/mfa/verify'],
      ['POST', '/console/api/auth/sessions/revoke-all'],
      ['GET', '/console/api/orgs/../auth/login'],
      ['GET', '/console/api/orgs/%2e%2e/auth/handoff'],
      ['GET', `/console/api/orgs/${org.organizationId}%2Finvites`],
      ['GET', '/console/api/openapi.json'],
    ] as const) {
      const response = await console.send(method, path, method === 'POST' ? { body: {} } : {});
      expect(response.status, path).toBe(404);
      expect(((await response.json()) as ErrorBody).error.code, path).toBe('NOT_FOUND');
    }
  });

  it('registers, lists, renames and removes a passkey through /console/api, and signs in with it through /console/session/passkey', async () => {
    const org = await stack.seedOrganization();
    const { console, password } = await signedIn(org);
    const options = await console.send('POST', '/console/api/auth/passkeys/registration/options', { body: { password } });
    expect(options.status).toBe(200);
    const passkey = await testPasskey();
    const response = await passkey.register((await options.json()) as RegistrationOptions);
    const registered = await console.send('POST', '/console/api/auth/passkeys/registration/verify', { body: { response, name: 'Laptop' } });
    expect(registered.status).toBe(201);
    const { passkeyId } = ((await registered.json()) as { passkey: { passkeyId: string } }).passkey;
    const renamed = await console.send('PATCH', `/console/api/auth/passkeys/${passkeyId}`, { body: { name: 'Work laptop' } });
    expect(renamed.status).toBe(200);
    const listed = (await (await console.send('GET', '/console/api/auth/passkeys')).json()) as { passkeys: Array<{ name: string }> };
    expect(listed.passkeys.map((p) => p.name)).toEqual(['Work laptop']);

    // Another browser signs in with it: the verify answers tokens, so /console/api does not reach it; the console's own
    // route keeps them in cookies as a password sign-in does.
    const other = client();
    await other.openPage();
    expect((await other.send('POST', '/console/api/auth/passkeys/authentication/verify', { body: {} })).status).toBe(404);
    const signInOptions = await other.send('POST', '/console/api/auth/passkeys/authentication/options', {
      body: { organizationId: org.organizationId },
    });
    expect(signInOptions.status).toBe(200);
    const assertion = await passkey.assert(((await signInOptions.json()) as { challenge: string }).challenge);
    const session = await other.send('POST', '/console/session/passkey', {
      body: { organizationId: org.organizationId, response: assertion },
    });
    expect(session.status).toBe(200);
    const text = await session.text();
    const access = other.cookies.get('rs_console_access')!;
    const refresh = other.cookies.get('rs_console_refresh')!;
    for (const secret of [access.value, refresh.value]) expect(text).not.toContain(secret);
    expect(JSON.parse(text)).toMatchObject({ status: 'signed-in', userId: org.adminId, organizationId: org.organizationId });
    const sid = decodeJwt(access.value).sid as string;
    expect((await stack.db.query('SELECT method FROM sessions WHERE id = $1', [sid])).rows[0]?.method).toBe('passkey');
    expect((await other.send('GET', '/console/api/auth/memberships')).status).toBe(200);

    // The same assertion again is the API's refusal, handed on, and opens nothing.
    const third = client();
    await third.openPage();
    const replay = await third.send('POST', '/console/session/passkey', {
      body: { organizationId: org.organizationId, response: assertion },
    });
    expect(replay.status).toBe(400);
    expect(((await replay.json()) as ErrorBody).error.code).toBe('PASSKEY_CHALLENGE_INVALID');
    expect(third.cookies.has('rs_console_access')).toBe(false);

    // Removal asks for the step-up, as the API does.
    expect((await console.send('DELETE', `/console/api/auth/passkeys/${passkeyId}`, { body: { password: 'wrong' } })).status).toBe(403);
    expect((await console.send('DELETE', `/console/api/auth/passkeys/${passkeyId}`, { body: { password } })).status).toBe(204);
    for (const path of ['/console/api/auth/passkeys/not-a-uuid', `/console/api/auth/passkeys/${passkeyId}/x`]) {
      expect((await console.send('DELETE', path, { body: { password } })).status, path).toBe(404);
    }
  });

  it("reaches the caller's own sessions: the list, and ending one by its id (CSRF token required), never revoke-all", async () => {
    const org = await stack.seedOrganization();
    const { console, password } = await signedIn(org);
    const other = await stack.request('POST', '/auth/login', {
      body: { organizationId: org.organizationId, email: org.adminEmail, password },
      headers: { [TEST_CLIENT_IP_HEADER]: freshIp() },
    });
    const otherId = decodeJwt(((await other.json()) as { accessToken: string }).accessToken).sid as string;
    const listed = await console.send('GET', '/console/api/auth/sessions');
    expect(listed.status).toBe(200);
    const { sessions } = (await listed.json()) as { sessions: Array<{ id: string; current: boolean }> };
    expect(sessions.map((s) => s.current).sort()).toEqual([false, true]);
    expect(sessions.find((s) => !s.current)?.id).toBe(otherId);
    expect((await console.send('DELETE', `/console/api/auth/sessions/${otherId}`, { csrf: false })).status).toBe(403);
    expect((await console.send('DELETE', `/console/api/auth/sessions/${otherId}`)).status).toBe(204);
    const revoked = await stack.db.query('SELECT revoked_at FROM sessions WHERE id = $1', [otherId]);
    expect(revoked.rows[0]?.revoked_at).not.toBeNull();
    for (const path of ['/console/api/auth/sessions/not-a-uuid', `/console/api/auth/sessions/${otherId}/x`]) {
      expect((await console.send('DELETE', path)).status, path).toBe(404);
    }
  });

  it('refreshes through the refresh cookie (the spent token is refused after), and a refused refresh clears the session', async () => {
    const org = await stack.seedOrganization();
    const { console } = await signedIn(org);
    const first = console.cookies.get('rs_console_refresh')!.value;
    const csrf = console.csrfToken;
    const refreshed = await console.send('POST', '/console/session/refresh');
    expect(refreshed.status).toBe(200);
    expect(await refreshed.text()).not.toContain(console.cookies.get('rs_console_access')!.value);
    expect(console.cookies.get('rs_console_refresh')!.value).not.toBe(first);
    // The same CSRF token across a refresh: calls under way keep working.
    expect(console.csrfToken).toBe(csrf);
    expect((await console.send('GET', `/console/api/orgs/${org.organizationId}/invites`)).status).toBe(200);
    // A spent refresh token presented after its successor was used ends the session (sign-in's reuse detection; an
    // earlier retry would be answered, test/integration/sessions-refresh.test.ts), and the console forgets it.
    expect((await console.send('POST', '/console/session/refresh')).status).toBe(200);
    const stale = client();
    await stale.openPage();
    stale.cookies.set('rs_console_refresh', { ...console.cookies.get('rs_console_refresh')!, value: first });
    const reused = await stale.send('POST', '/console/session/refresh');
    expect(reused.status).toBe(401);
    expect(((await reused.json()) as ErrorBody).error.code).toBe('REFRESH_INVALID');
    expect(stale.cookies.has('rs_console_refresh')).toBe(false);
    expect(stale.setCookieHeaders.some((h) => h.startsWith('rs_console_access=;'))).toBe(true);
  });

  it('two tabs refreshing at once (one cookie jar) both get a working pair, and the session goes on', async () => {
    const org = await stack.seedOrganization();
    const { console } = await signedIn(org);
    const first = console.cookies.get('rs_console_refresh')!.value;
    // Both requests carry the same refresh cookie: neither answer has arrived when the other is sent.
    const answers = await Promise.all([console.send('POST', '/console/session/refresh'), console.send('POST', '/console/session/refresh')]);
    expect(answers.map((answer) => answer.status)).toEqual([200, 200]);
    const next = console.cookies.get('rs_console_refresh')!.value;
    expect(next).not.toBe(first);
    // Each answer clears the cookie first and then writes the next one: the same one in both.
    const written = answers.flatMap((answer) => answer.headers.getSetCookie()).filter((h) => /^rs_console_refresh=[^;]/.test(h));
    expect(written).toEqual([expect.stringContaining(encodeURIComponent(next)), expect.stringContaining(encodeURIComponent(next))]);
    expect((await console.send('GET', `/console/api/orgs/${org.organizationId}/invites`)).status).toBe(200);
    expect((await console.send('POST', '/console/session/refresh')).status).toBe(200);
    expect((await console.send('GET', `/console/api/orgs/${org.organizationId}/invites`)).status).toBe(200);
  });

  it('logs out: the API session is revoked and every session cookie cleared', async () => {
    const org = await stack.seedOrganization();
    const { console } = await signedIn(org);
    const access = console.cookies.get('rs_console_access')!.value;
    const out = await console.send('POST', '/console/session/logout');
    expect(out.status).toBe(204);
    expect(console.cookies.has('rs_console_access')).toBe(false);
    expect(console.cookies.has('rs_console_refresh')).toBe(false);
    const after = await stack.request('GET', `/orgs/${org.organizationId}/invites`, { token: access });
    expect(after.status).toBe(401);
    expect(((await after.json()) as ErrorBody).error.code).toBe('TOKEN_REVOKED');
    expect((await console.send('GET', `/console/api/orgs/${org.organizationId}/invites`)).status).toBe(401);
  });

  it("answers 403 MFA_ENROLMENT_REQUIRED where the organisation's policy requires a factor the user has not got, and keeps the token from the page", async () => {
    const org = await stack.seedOrganization();
    const password = await withPassword(org);
    await stack.db.query('UPDATE organizations SET sign_in_require_mfa = true WHERE id = $1', [org.organizationId]);
    const console = client();
    await console.openPage();
    const response = await console.send('POST', '/console/session', {
      body: { organizationId: org.organizationId, email: org.adminEmail, password },
    });
    const answer = await response.text();
    expect([response.status, (JSON.parse(answer) as ErrorBody).error.code]).toEqual([403, 'MFA_ENROLMENT_REQUIRED']);
    expect(answer).not.toContain('rse_');
    expect(console.cookies.has('rs_console_access')).toBe(false);
  });

  it('signs in with MFA: the challenge waits in an HttpOnly cookie of /console/session, the code finishes the sign-in', async () => {
    const org = await stack.seedOrganization();
    const password = await withPassword(org);
    const enrolled = await stack.request('POST', '/auth/mfa/enrol', { token: org.adminToken, body: { password } });
    const { secret } = (await enrolled.json()) as { secret: string };
    const now = () => totpCode(base32Decode(secret), totpStep(Date.now()));
    expect((await stack.request('POST', '/auth/mfa/enrol/confirm', { token: org.adminToken, body: { code: await now() } })).status).toBe(
      200,
    );
    const console = client();
    await console.openPage();
    const first = await console.send('POST', '/console/session', {
      body: { organizationId: org.organizationId, email: org.adminEmail, password },
    });
    expect(first.status).toBe(200);
    const answer = await first.text();
    expect(JSON.parse(answer)).toMatchObject({ status: 'mfa-required' });
    const challenge = console.cookies.get('rs_console_mfa')!;
    expect(challenge.path).toBe('/console/session');
    expect(challenge.attributes).toEqual(expect.arrayContaining(['httponly', 'samesite=strict']));
    expect(answer).not.toContain(challenge.value);
    expect(console.cookies.has('rs_console_access')).toBe(false);
    const wrong = await console.send('POST', '/console/session/mfa', { body: { code: '12345' } });
    expect(wrong.status).toBe(401);
    expect(((await wrong.json()) as ErrorBody).error.code).toBe('MFA_INVALID');
    // The confirmation spent this step's code; the next step's is within the accepted drift.
    const verified = await console.send('POST', '/console/session/mfa', {
      body: { code: await totpCode(base32Decode(secret), totpStep(Date.now()) + 1) },
    });
    expect(verified.status).toBe(200);
    expect(console.cookies.has('rs_console_mfa')).toBe(false);
    expect(decodeJwt(console.cookies.get('rs_console_access')!.value).sub).toBe(org.adminId);
  });
});

describe('the dev link', () => {
  it('does not exist outside dev: a valid code is not even read (test env here; staging and prod in test/unit)', async () => {
    const org = await stack.seedOrganization();
    const code = await singleUse.issue(stack.deps, 'console-dev-login', devLoginSchema, {
      userId: org.adminId,
      organizationId: org.organizationId,
      email: org.adminEmail,
      issuedAtUtc: new Date().toISOString(),
      correlationId: 'dev-link-test',
    });
    const response = await client().send('GET', `/console/dev-login?code=${code}`);
    expect(response.status).toBe(404);
    expect(response.headers.get('set-cookie')).toBeNull();
    expect(await singleUse.peek(stack.deps, 'console-dev-login', devLoginSchema, code)).toMatchObject({ userId: org.adminId });
  });

  it('in dev, signs the user in once: a session (audited, method dev-link) in cookies, then the page without the code', async () => {
    const dev = await startStack({ env: { APP_ENV: 'dev' } });
    try {
      const org = await dev.seedOrganization();
      const code = await issueDevLoginCode(
        dev.deps,
        { userId: org.adminId, organizationId: org.organizationId, email: org.adminEmail },
        'dev-link-1',
      );
      expect(code).toMatch(/^rsd_[A-Za-z0-9_-]{43}$/);
      const browser = client(dev);
      const opened = await browser.send('GET', `/console/dev-login?code=${code}`);
      expect(opened.status).toBe(303);
      expect(opened.headers.get('location')).toBe('/console');
      expect(opened.headers.get('referrer-policy')).toBe('no-referrer');
      const access = browser.cookies.get('rs_console_access')!;
      expect(access.attributes).toEqual(expect.arrayContaining(['httponly', 'samesite=strict']));
      const sessionId = decodeJwt(access.value).sid as string;
      const audit = await dev.db.query(`SELECT details FROM audit_events WHERE action = 'session.created' AND actor_user_id = $1`, [
        org.adminId,
      ]);
      expect(audit.rows).toEqual([{ details: { method: 'dev-link' } }]);
      expect((await dev.db.query('SELECT user_id FROM sessions WHERE id = $1', [sessionId])).rows).toEqual([{ user_id: org.adminId }]);
      await browser.openPage();
      expect((await browser.send('GET', `/console/api/orgs/${org.organizationId}/invites`)).status).toBe(200);
      // Single use: the same link again signs nobody in.
      const again = await client(dev).send('GET', `/console/dev-login?code=${code}`);
      expect(again.status).toBe(401);
      expect(again.headers.get('set-cookie')).toBeNull();
    } finally {
      await dev.close();
    }
  });
});
