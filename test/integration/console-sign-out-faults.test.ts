// The console's sign-out never reports a success it did not have: while the API logout cannot complete (the denylist's
// store down, so the logout's own token check answers 503), the sign-out answers that error and keeps the cookies, the
// session stays live, and a retry once the store is back ends it (functions/console/index.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uuidv7 } from 'uuidv7';
import { TEST_CLIENT_IP_HEADER } from '../../local/stack/app.ts';
import { ConsoleClient } from '../support/console-client.ts';
import { setPassword } from '../support/fixtures.ts';
import { startStack, type TestStack } from '../support/stack.ts';

let stack: TestStack;
beforeAll(async () => {
  // The denylist behind a proxy of its own, so breaking it leaves sign-in (the main store) working.
  stack = await startStack({ separateRevocationProxy: true, env: { CONSOLE_ENABLED: 'true' } });
});
afterAll(async () => stack?.close());

type ErrorBody = { error: { code: string } };
let ipCounter = 0;

async function signedIn(): Promise<{ console: ConsoleClient; orgId: string }> {
  const org = await stack.seedOrganization();
  const password = `canary-password-${uuidv7()}`;
  await setPassword(stack.db, org.adminId, password);
  const ip = `127.4.0.${++ipCounter}`;
  const console = new ConsoleClient(
    (path, init) => stack.app.request(path, { ...init, headers: { ...init.headers, [TEST_CLIENT_IP_HEADER]: ip } }),
    'http://localhost',
  );
  await console.openPage();
  const answer = await console.send('POST', '/console/session', {
    body: { organizationId: org.organizationId, email: org.adminEmail, password },
  });
  expect(answer.status).toBe(200);
  return { console, orgId: org.organizationId };
}

const cookie = (console: ConsoleClient, name: string) => console.cookies.get(`rs_console_${name}`)?.value;

/** The session as PostgreSQL holds it: revoked or not. */
async function revokedAt(accessToken: string): Promise<unknown> {
  const sid = JSON.parse(Buffer.from(accessToken.split('.')[1]!, 'base64url').toString()).sid as string;
  return (await stack.db.query('SELECT revoked_at FROM sessions WHERE id = $1', [sid])).rows[0]?.revoked_at;
}

async function signOutWhileDenylistDown(console: ConsoleClient): Promise<Response> {
  stack.revocationProxy.faults.set({ refuse: true });
  try {
    return await console.send('POST', '/console/session/logout');
  } finally {
    stack.revocationProxy.faults.clear();
  }
}

describe('sign-out while the API logout cannot complete', () => {
  it("answers the API's 503, keeps the cookies and the session; the retry once the store is back ends it", async () => {
    const { console, orgId } = await signedIn();
    const access = cookie(console, 'access')!;
    const refresh = cookie(console, 'refresh')!;
    const csrf = console.csrfToken;
    const failed = await signOutWhileDenylistDown(console);
    expect(failed.status).toBe(503);
    expect(((await failed.json()) as ErrorBody).error.code).toBe('REVOCATION_UNAVAILABLE');
    expect(failed.headers.get('retry-after')).not.toBeNull();
    // No cookie was cleared or replaced, and the page's CSRF token still works.
    expect(failed.headers.getSetCookie()).toEqual([]);
    expect([cookie(console, 'access'), cookie(console, 'refresh'), console.csrfToken]).toEqual([access, refresh, csrf]);
    // The session is still live: PostgreSQL has not revoked it, and its token works and lists it.
    expect(await revokedAt(access)).toBeNull();
    const listed = await stack.request('GET', '/auth/sessions', { token: access });
    expect(listed.status).toBe(200);
    expect(((await listed.json()) as { sessions: Array<{ current: boolean }> }).sessions.some((s) => s.current)).toBe(true);

    const retried = await console.send('POST', '/console/session/logout');
    expect(retried.status).toBe(204);
    expect(console.cookies.has('rs_console_access')).toBe(false);
    expect(console.cookies.has('rs_console_refresh')).toBe(false);
    expect(await revokedAt(access)).not.toBeNull();
    const after = await stack.request('GET', `/orgs/${orgId}/invites`, { token: access });
    expect(after.status).toBe(401);
    expect(((await after.json()) as ErrorBody).error.code).toBe('TOKEN_REVOKED');
    const refreshAfter = await stack.request('POST', '/auth/refresh', { body: { refreshToken: refresh } });
    expect(refreshAfter.status).toBe(401);
  });

  it('keeps the pair the refresh bought when the access cookie is gone, so the retry can still end the session', async () => {
    const { console } = await signedIn();
    const spent = cookie(console, 'refresh')!;
    console.cookies.delete('rs_console_access');
    // Refresh needs no denylist read, so it succeeds; the logout with the new access token then cannot pass its check.
    const failed = await signOutWhileDenylistDown(console);
    expect(failed.status).toBe(503);
    const access = cookie(console, 'access');
    expect(access).toBeDefined();
    expect(cookie(console, 'refresh')).not.toBe(spent);
    expect(await revokedAt(access!)).toBeNull();

    const retried = await console.send('POST', '/console/session/logout');
    expect(retried.status).toBe(204);
    expect(console.cookies.has('rs_console_refresh')).toBe(false);
    expect(await revokedAt(access!)).not.toBeNull();
    expect((await stack.request('GET', '/auth/sessions', { token: access! })).status).toBe(401);
  });

  it('ends with 204 when the tokens are already refused: nothing is left to sign out', async () => {
    const { console } = await signedIn();
    const access = cookie(console, 'access')!;
    expect((await stack.request('POST', '/auth/logout', { token: access })).status).toBe(204);
    const out = await console.send('POST', '/console/session/logout');
    expect(out.status).toBe(204);
    expect(console.cookies.has('rs_console_access')).toBe(false);
    expect(console.cookies.has('rs_console_refresh')).toBe(false);
  });
});
