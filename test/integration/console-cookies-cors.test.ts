// The console's edge: no CORS header on any /console answer (preflights included) whatever CORS_ORIGINS allows, so a page
// on an allowed origin can read nothing the console's cookies unlock; and, served over https, `__Host-` cookies at Path=/
// with no Domain, which the console keeps working with from sign-in (MFA too) to sign-out.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeJwt } from 'jose';
import { uuidv7 } from 'uuidv7';
import { base32Decode, totpCode, totpStep } from '../../lib/crypto/index.ts';
import { CONSOLE_CSP } from '../../lib/console/security-headers.ts';
import { TEST_CLIENT_IP_HEADER } from '../../local/stack/app.ts';
import { ConsoleClient } from '../support/console-client.ts';
import { setPassword } from '../support/fixtures.ts';
import { startStack, type TestStack } from '../support/stack.ts';

/** An origin CORS_ORIGINS allows: its script may read the API's answers, never the console's. */
const ALLOWED = 'https://app.example.test';
const HTTPS_BASE = 'https://console.example.test';

let stack: TestStack;
beforeAll(async () => {
  stack = await startStack({ env: { CONSOLE_ENABLED: 'true', CORS_ORIGINS: ALLOWED } });
});
afterAll(async () => {
  await stack?.close();
});

type Org = Awaited<ReturnType<TestStack['seedOrganization']>>;

let ipCounter = 0;
const freshIp = () => `127.7.${Math.floor(++ipCounter / 250)}.${ipCounter % 250}`;

/** A console client served over https (a Secure deployment) or plain http (npm start). */
function client(scheme: 'https' | 'http'): ConsoleClient {
  const ip = freshIp();
  const base = scheme === 'https' ? HTTPS_BASE : 'http://localhost';
  return new ConsoleClient(
    (path, init) => stack.app.request(`${base}${path}`, { ...init, headers: { ...init.headers, [TEST_CLIENT_IP_HEADER]: ip } }),
    base,
  );
}

async function signedIn(org: Org, scheme: 'https' | 'http'): Promise<ConsoleClient> {
  const password = `canary-password-${uuidv7()}`;
  await setPassword(stack.db, org.adminId, password);
  const console = client(scheme);
  await console.openPage();
  const response = await console.send('POST', '/console/session', {
    body: { organizationId: org.organizationId, email: org.adminEmail, password },
  });
  expect(response.status).toBe(200);
  return console;
}

const corsHeaders = (response: Response) => [...response.headers.keys()].filter((name) => name.startsWith('access-control-'));

/** One Set-Cookie header's name and lowercased attributes. */
function parseSetCookie(header: string): { name: string; attributes: string[] } {
  const [pair = '', ...rest] = header.split(';').map((part) => part.trim());
  return { name: pair.slice(0, pair.indexOf('=')), attributes: rest.map((attribute) => attribute.toLowerCase()) };
}

describe('CORS never reaches the console', () => {
  it('an allowed origin gets CORS on the API (the control) and none on any console answer, signed in or not', async () => {
    const org = await stack.seedOrganization();
    const control = await stack.request('GET', '/healthz', { headers: { origin: ALLOWED } });
    expect(control.headers.get('access-control-allow-origin')).toBe(ALLOWED);
    expect(control.headers.get('access-control-allow-credentials')).toBe('true');
    for (const scheme of ['https', 'http'] as const) {
      const console = await signedIn(org, scheme);
      // What a credentialed fetch from the allowed origin's page would send: the user's console cookies and its Origin.
      const crossSite = { origin: ALLOWED, 'sec-fetch-site': 'same-site' };
      const answers = [
        await console.send('GET', '/console', { headers: crossSite }),
        await console.send('GET', '/console/api/auth/memberships', { headers: crossSite }),
        await console.send('GET', `/console/api/orgs/${org.organizationId}/invites`, { headers: crossSite }),
        await console.send('GET', '/console/assets/console.js', { headers: crossSite }),
        await console.send('GET', '/console/nothing-here', { headers: crossSite }),
        await console.send('POST', '/console/session/refresh', { headers: crossSite }),
      ];
      // The reads succeed (a GET changes nothing and needs no CSRF token); the browser just may not hand them to the page.
      expect(answers.map((response) => response.status)).toEqual([200, 200, 200, 200, 404, 403]);
      expect(await answers[0]!.text()).toContain('<meta name="csrf-token"');
      for (const response of answers) {
        expect(corsHeaders(response), `${scheme} ${response.url}`).toEqual([]);
        expect(response.headers.get('content-security-policy')).toBe(CONSOLE_CSP);
      }
    }
  });

  it("an allowed origin's preflight to any console path gets no access-control-* header", async () => {
    const preflights = await Promise.all(
      [
        '/console',
        '/console/session',
        '/console/session/refresh',
        `/console/api/orgs/${uuidv7()}/invites`,
        '/console/api/auth/sessions',
      ].map((path) =>
        client('https').send('OPTIONS', path, {
          headers: {
            origin: ALLOWED,
            'sec-fetch-site': 'same-site',
            'access-control-request-method': 'POST',
            'access-control-request-headers': 'content-type, x-csrf-token',
          },
        }),
      ),
    );
    for (const response of preflights) {
      expect(response.status).toBe(404);
      expect(corsHeaders(response)).toEqual([]);
    }
    // The control: the same preflight to an API route is answered for this origin.
    const api = await stack.request('OPTIONS', `/orgs/${uuidv7()}/invites`, {
      headers: { origin: ALLOWED, 'access-control-request-method': 'POST' },
    });
    expect(api.status).toBe(204);
    expect(api.headers.get('access-control-allow-origin')).toBe(ALLOWED);
  });

  it('a path that only looks like the console is the API, CORS and all; an encoded one is the console, without CORS', async () => {
    const lookalike = await stack.request('GET', '/consoles', { headers: { origin: ALLOWED } });
    expect(lookalike.status).toBe(404);
    expect(lookalike.headers.get('access-control-allow-origin')).toBe(ALLOWED);
    // The router decodes the path before matching, and the CORS check reads the same decoded path.
    const encoded = await stack.request('GET', '/%63onsole/api/auth/memberships', { headers: { origin: ALLOWED } });
    // The console's own answer (its CSP), whatever it makes of the path.
    expect(encoded.headers.get('content-security-policy')).toBe(CONSOLE_CSP);
    expect(corsHeaders(encoded)).toEqual([]);
  });
});

describe('__Host- cookies on a Secure deployment', () => {
  it('every cookie the console sets over https is __Host-, Secure, Path=/, no Domain; and the console works with them', async () => {
    const org = await stack.seedOrganization();
    const password = `canary-password-${uuidv7()}`;
    await setPassword(stack.db, org.adminId, password);
    // MFA enrolled (with the password, as enrolment asks), so the challenge cookie is among them.
    const enrolled = await stack.request('POST', '/auth/mfa/enrol', { token: org.adminToken, body: { password } });
    const { secret } = (await enrolled.json()) as { secret: string };
    const code = (offset: number) => totpCode(base32Decode(secret), totpStep(Date.now()) + offset);
    expect((await stack.request('POST', '/auth/mfa/enrol/confirm', { token: org.adminToken, body: { code: await code(0) } })).status).toBe(
      200,
    );
    const console = client('https');
    expect((await console.openPage()).status).toBe(200);
    const first = await console.send('POST', '/console/session', {
      body: { organizationId: org.organizationId, email: org.adminEmail, password },
    });
    expect(await first.json()).toMatchObject({ status: 'mfa-required' });
    expect(console.cookies.has('__Host-rs_console_mfa')).toBe(true);
    expect((await console.send('POST', '/console/session/mfa', { body: { code: await code(1) } })).status).toBe(200);
    expect(decodeJwt(console.cookies.get('__Host-rs_console_access')!.value).sub).toBe(org.adminId);
    expect((await console.send('GET', '/console/api/auth/memberships')).status).toBe(200);
    const refreshed = await console.send('POST', '/console/session/refresh');
    expect(refreshed.status).toBe(200);
    expect((await console.send('GET', '/console/api/auth/memberships')).status).toBe(200);
    expect((await console.send('POST', '/console/session/logout')).status).toBe(204);
    expect(console.cookies.has('__Host-rs_console_access')).toBe(false);
    expect(console.cookies.has('__Host-rs_console_refresh')).toBe(false);

    const written = console.setCookieHeaders.map(parseSetCookie);
    expect(new Set(written.map((cookie) => cookie.name))).toEqual(
      new Set(['__Host-rs_console_csrf', '__Host-rs_console_mfa', '__Host-rs_console_access', '__Host-rs_console_refresh']),
    );
    for (const cookie of written) {
      expect(cookie.attributes, cookie.name).toEqual(expect.arrayContaining(['path=/', 'secure', 'httponly', 'samesite=strict']));
      expect(
        cookie.attributes.some((attribute) => attribute.startsWith('domain')),
        cookie.name,
      ).toBe(false);
    }
  });

  it('reads only the __Host- names: an unprefixed cookie (one a sibling subdomain could plant) signs nobody in', async () => {
    const org = await stack.seedOrganization();
    const real = await signedIn(org, 'https');
    const access = real.cookies.get('__Host-rs_console_access')!.value;
    const planted = client('https');
    await planted.openPage();
    planted.cookies.set('rs_console_access', { name: 'rs_console_access', value: access, path: '/console', attributes: [] });
    expect((await planted.send('GET', '/console/api/auth/memberships')).status).toBe(401);
    // The control: the same token under its real name is a session.
    expect((await real.send('GET', '/console/api/auth/memberships')).status).toBe(200);
  });

  it('the cookies now reach the API routes (Path=/), which read no cookie: without a bearer token they answer 401', async () => {
    const org = await stack.seedOrganization();
    const console = await signedIn(org, 'https');
    const cookie = [...console.cookies.values()].map((c) => `${c.name}=${c.value}`).join('; ');
    expect(cookie).toContain('__Host-rs_console_access=');
    for (const path of [`/orgs/${org.organizationId}/invites`, '/auth/memberships', '/auth/sessions']) {
      const response = await stack.app.request(`${HTTPS_BASE}${path}`, { headers: { cookie, origin: ALLOWED } });
      expect(response.status, path).toBe(401);
    }
  });

  it('over plain http the cookies keep their plain names and /console paths, and are not Secure', async () => {
    const org = await stack.seedOrganization();
    const console = await signedIn(org, 'http');
    const written = console.setCookieHeaders.map(parseSetCookie);
    expect(new Set(written.map((cookie) => cookie.name))).toEqual(
      new Set(['rs_console_csrf', 'rs_console_access', 'rs_console_refresh', 'rs_console_mfa']),
    );
    for (const cookie of written) {
      expect(cookie.attributes).not.toContain('secure');
      expect(cookie.attributes.find((attribute) => attribute.startsWith('path='))).toMatch(/^path=\/console/);
    }
  });
});
