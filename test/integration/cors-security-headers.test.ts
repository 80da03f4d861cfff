// Browser callers: CORS for the configured origins only (exact, with credentials, preflights answered 204), and the
// security headers on every answer — a 200, a 404, every kind of error, a preflight, the reset page with its own CSP.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uuidv7 } from 'uuidv7';
import { startStack, type TestStack } from '../support/stack.ts';

const CONSOLE = 'https://console.example.test';
const DEV_FRONTEND = 'http://127.0.0.1:5173';

let stack: TestStack;
/** The same services, without CORS_ORIGINS. */
let plain: TestStack;
beforeAll(async () => {
  stack = await startStack({ env: { CORS_ORIGINS: `${CONSOLE}, ${DEV_FRONTEND}` } });
  plain = await startStack();
});
afterAll(async () => {
  await stack?.close();
  await plain?.close();
});

const corsHeaders = (response: Response) => [...response.headers.keys()].filter((name) => name.startsWith('access-control-'));

function expectSecurityHeaders(response: Response, where: string): void {
  expect(response.headers.get('x-content-type-options'), where).toBe('nosniff');
  expect(response.headers.get('x-frame-options'), where).toBe('DENY');
  expect(response.headers.get('referrer-policy'), where).toBe('no-referrer');
}

describe('CORS', () => {
  it('answers an allowed origin with its exact origin, credentials, Vary: Origin and the exposed correlation id', async () => {
    for (const origin of [CONSOLE, DEV_FRONTEND]) {
      const response = await stack.request('GET', '/healthz', { headers: { origin } });
      expect(response.status).toBe(200);
      expect(response.headers.get('access-control-allow-origin')).toBe(origin);
      expect(response.headers.get('access-control-allow-credentials')).toBe('true');
      expect(response.headers.get('access-control-expose-headers')).toBe('x-correlation-id,retry-after,ratelimit-policy,ratelimit');
      expect(response.headers.get('vary')).toBe('Origin');
      expect(response.headers.get('x-correlation-id')).toMatch(/^[0-9a-f-]{36}$/);
    }
  });

  it('gives errors and 404s the same CORS headers, so the page can read what the API said', async () => {
    const answers = [
      await stack.request('GET', `/orgs/${uuidv7()}/invites`, { headers: { origin: CONSOLE } }),
      await stack.request('GET', '/no/such/route', { headers: { origin: CONSOLE } }),
      await stack.request('POST', '/auth/login', { rawBody: '{', headers: { origin: CONSOLE, 'content-type': 'application/json' } }),
    ];
    expect(answers.map((response) => response.status)).toEqual([401, 404, 400]);
    for (const response of answers) {
      expect(response.headers.get('access-control-allow-origin')).toBe(CONSOLE);
      expect(response.headers.get('access-control-allow-credentials')).toBe('true');
      expect(((await response.json()) as { error: { code: string } }).error.code).toMatch(/^[A-Z_]+$/);
    }
  });

  it('gives any other origin no CORS header at all, only Vary: Origin', async () => {
    const others = [
      'https://evil.example.test',
      'https://console.example.test.evil.test',
      'https://sub.console.example.test',
      'http://console.example.test',
      'https://console.example.test:8443',
      'https://CONSOLE.example.test',
      'null',
      `${CONSOLE}/`,
    ];
    for (const origin of others) {
      const response = await stack.request('GET', '/healthz', { headers: { origin } });
      expect(response.status, origin).toBe(200);
      expect(corsHeaders(response), origin).toEqual([]);
      expect(response.headers.get('vary'), origin).toBe('Origin');
    }
    const withoutOrigin = await stack.request('GET', '/healthz');
    expect(corsHeaders(withoutOrigin)).toEqual([]);
  });

  it('answers a preflight from an allowed origin 204 with the methods, headers and max-age, before auth or a body', async () => {
    const response = await stack.request('OPTIONS', `/orgs/${uuidv7()}/invites`, {
      headers: {
        origin: CONSOLE,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization, content-type, x-csrf-token',
      },
    });
    expect(response.status).toBe(204);
    expect(await response.text()).toBe('');
    expect(response.headers.get('access-control-allow-origin')).toBe(CONSOLE);
    expect(response.headers.get('access-control-allow-credentials')).toBe('true');
    expect(response.headers.get('access-control-allow-methods')).toBe('GET,POST,PUT,PATCH,DELETE');
    expect(response.headers.get('access-control-allow-headers')).toBe('authorization,content-type,x-correlation-id,x-csrf-token');
    expect(response.headers.get('access-control-max-age')).toBe('600');
    expect(response.headers.get('vary')).toContain('Origin');
    expectSecurityHeaders(response, 'preflight');
  });

  it('lets a preflight from another origin fall through to the routes: no CORS header, and no route answers OPTIONS', async () => {
    const headers = { origin: 'https://evil.example.test', 'access-control-request-method': 'DELETE' };
    // A guard belongs to its routes (lib/http/function-factory.ts), so an authenticated path's preflight is a 404 too.
    const guarded = await stack.request('OPTIONS', `/orgs/${uuidv7()}/invites`, { headers });
    const open = await stack.request('OPTIONS', '/healthz', { headers });
    expect([guarded.status, open.status]).toEqual([404, 404]);
    for (const response of [guarded, open]) {
      expect(corsHeaders(response)).toEqual([]);
      expectSecurityHeaders(response, 'refused preflight');
    }
  });

  it('sends no CORS header and no Vary when CORS_ORIGINS is unset, whatever the origin', async () => {
    const simple = await plain.request('GET', '/healthz', { headers: { origin: CONSOLE } });
    expect(corsHeaders(simple)).toEqual([]);
    expect(simple.headers.get('vary')).toBeNull();
    const preflight = await plain.request('OPTIONS', '/healthz', {
      headers: { origin: CONSOLE, 'access-control-request-method': 'GET' },
    });
    expect(preflight.status).toBe(404);
    expect(corsHeaders(preflight)).toEqual([]);
  });
});

describe('security headers', () => {
  it('are on a 200, a 404, a thrown 401, a validation 400 and a 503, with or without CORS configured', async () => {
    for (const app of [stack, plain]) {
      const org = await app.seedOrganization();
      const answers: Array<[string, Response]> = [
        ['200', await app.request('GET', '/healthz')],
        ['404', await app.request('GET', '/no/such/route')],
        ['401', await app.request('GET', `/orgs/${org.organizationId}/invites`)],
        ['400', await app.request('GET', `/orgs/not-a-uuid/invites`, { token: org.adminToken })],
      ];
      app.neonProxy.faults.set({ refuse: true });
      try {
        answers.push(['503', await app.request('GET', `/orgs/${org.organizationId}/invites/history`, { token: org.adminToken })]);
      } finally {
        app.neonProxy.faults.clear();
      }
      expect(answers.map(([, response]) => String(response.status))).toEqual(answers.map(([status]) => status));
      for (const [status, response] of answers) expectSecurityHeaders(response, status);
    }
  });

  it('leave the reset page its own CSP, pinning its one script', async () => {
    const page = await stack.request('GET', '/auth/password-reset');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.headers.get('content-security-policy')).toMatch(/^default-src 'none'; script-src 'sha256-[A-Za-z0-9+/=]+';/);
    expectSecurityHeaders(page, 'reset page');
  });
});
