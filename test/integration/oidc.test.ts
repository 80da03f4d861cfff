// OIDC sign-in against a real OpenID provider (local/oidc/provider.ts) and real Redis and PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeJwt } from 'jose';
import { startLocalOidcProvider, type LocalOidcProvider } from '../../local/oidc/provider.ts';
import { signInThroughBrowser } from '../support/oidc.ts';
import { startStack, type TestStack } from '../support/stack.ts';

const APP_ORIGIN = 'http://127.0.0.1:8787';

let stack: TestStack;
let op: LocalOidcProvider;
beforeAll(async () => {
  op = await startLocalOidcProvider({ redirectUri: `${APP_ORIGIN}/auth/oidc/local/callback` });
  stack = await startStack({ env: { OIDC_PROVIDERS: JSON.stringify([op.providerEntry('local')]) } });
});
afterAll(async () => {
  await stack?.close();
  await op?.close();
});

const app = (url: URL) => stack.app.request(`${url.pathname}${url.search}`);
const startUrl = (organizationId: string) => new URL(`${APP_ORIGIN}/auth/oidc/local/start?organizationId=${organizationId}`);

describe('OIDC sign-in', () => {
  it('the full flow signs in, and the access token works on a route', async () => {
    const org = await stack.seedOrganization();
    op.addAccount(org.adminEmail);
    const { response, visited } = await signInThroughBrowser(startUrl(org.organizationId), {
      appOrigin: APP_ORIGIN,
      app,
      email: org.adminEmail,
    });
    const text = await response.text();
    console.log(visited.map(String), response.status, text, stack.logs.slice(-5));
    expect(response.status).toBe(200);
  });
});
