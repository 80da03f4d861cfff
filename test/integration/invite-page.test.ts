// The invite page (GET /invites/accept): public, uncached, never framed, no referrer, and a CSP that allows exactly the
// one script it serves; an emailed link's path is this page, and nothing of a token ever comes back in it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OutgoingMessage } from '../../lib/notify/notifier.ts';
import { newInvitee, startStack, type TestStack } from '../support/stack.ts';

const LINK_BASE = 'https://app.runstate.test/invites/accept';
const sent: OutgoingMessage[] = [];
let stack: TestStack;
beforeAll(async () => {
  stack = await startStack({
    env: { INVITE_LINK_BASE: LINK_BASE },
    deps: { notifier: { send: async (message) => void sent.push(message) } },
  });
});
afterAll(async () => {
  await stack?.close();
});

const sha256Base64 = async (text: string) =>
  btoa(String.fromCharCode(...new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text)))));

describe('the invite page', () => {
  it('answers without a bearer token: HTML, no-store, no framing, no referrer, a CSP whose one script hash is the served script', async () => {
    const response = await stack.request('GET', '/invites/accept');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.headers.get('x-frame-options')).toBe('DENY');
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(response.headers.get('referrer-policy')).toBe('no-referrer');
    const html = await response.text();
    const scripts = [...html.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((m) => m[1]!);
    expect(scripts).toHaveLength(1);
    // Nothing else that could run: no script elsewhere, no handler attribute, no inline style.
    expect(html.match(/<script/g)).toHaveLength(1);
    expect(html).not.toMatch(/\son[a-z]+=|\sstyle=|javascript:/i);
    const csp = response.headers.get('content-security-policy') ?? '';
    expect(csp.split('; ').sort()).toEqual(
      [
        "default-src 'none'",
        `script-src 'sha256-${await sha256Base64(scripts[0]!)}'`,
        "connect-src 'self'",
        "form-action 'none'",
        "frame-ancestors 'none'",
        "base-uri 'none'",
      ].sort(),
    );
  });

  it('takes the token from the fragment only and posts to the routes it names', async () => {
    const html = await (await stack.request('GET', '/invites/accept')).text();
    expect(html).toContain("new URLSearchParams(location.hash.slice(1)).get('token')");
    expect(html).toContain("history.replaceState(null, '', location.pathname)");
    for (const path of ['/invites/register', '/invites/accept', '/auth/login', '/auth/mfa/verify', '/auth/logout'])
      expect(html).toContain(`'${path}'`);
    // No storage of any kind: the token and an access token live in the script's variables only.
    expect(html).not.toMatch(/localStorage|sessionStorage|document\.cookie|indexedDB/);
  });

  it('is the same page whatever the query says: nothing of the request is written into it', async () => {
    const plain = await (await stack.request('GET', '/invites/accept')).text();
    const canary = 'rsi_canary<script>alert(1)</script>';
    const queried = await stack.request('GET', `/invites/accept?token=${encodeURIComponent(canary)}`, {
      headers: { referer: `https://evil.example/?${canary}` },
    });
    expect(queried.status).toBe(200);
    expect(await queried.text()).toBe(plain);
  });

  it('is where an emailed link points, and its path is the page', async () => {
    const org = await stack.seedOrganization();
    const person = newInvitee();
    const created = await stack.request('POST', `/orgs/${org.organizationId}/invites`, {
      token: org.adminToken,
      body: { email: person.email, roleCode: 'Viewer', delivery: 'email' },
    });
    expect(created.status).toBe(201);
    const message = sent.find((m) => m.to === person.email)!;
    const link = new URL(/(https:\S+#token=\S+)/.exec(message.text)![1]!);
    expect(`${link.origin}${link.pathname}`).toBe(LINK_BASE);
    const page = await stack.request('GET', link.pathname);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<h1>Join an organisation</h1>');
  });

  it('is in the OpenAPI document as a public page, beside the accept that needs a bearer token', async () => {
    const document = (await (await stack.request('GET', '/openapi.json')).json()) as {
      paths: Record<string, Record<string, { security?: unknown; responses: Record<string, unknown> }>>;
    };
    const path = document.paths['/invites/accept']!;
    expect(path.get!.security).toBeUndefined();
    expect(Object.keys(path.get!.responses)).toContain('200');
    expect(path.post!.security).toEqual([{ bearerAuth: [] }]);
  });
});
