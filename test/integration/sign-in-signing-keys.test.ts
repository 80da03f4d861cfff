// Sign-in with a configured signing key (as staging and prod run it): EdDSA tokens, published at /.well-known/jwks.json,
// verifiable by anyone from that document, HS256 tokens refused, and an own token without the org claim refused.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLocalJWKSet, decodeJwt, decodeProtectedHeader, jwtVerify } from 'jose';
import { signAccessToken } from '../../lib/auth/tokens/access-token.ts';
import { uuidv7 } from 'uuidv7';
import { setPassword } from '../support/fixtures.ts';
import { testSigningKeys } from '../support/signing-keys.ts';
import { startStack, type TestStack } from '../support/stack.ts';

const ISSUER = 'https://auth.runstate.test/';
const signingKeys = testSigningKeys('k-2026');

let stack: TestStack;
beforeAll(async () => {
  stack = await startStack({ env: { AUTH_SIGNING_KEYS: signingKeys, AUTH_TOKEN_ISSUER: ISSUER, AUTH_TOKEN_AUDIENCE: 'runstate-api' } });
});
afterAll(async () => stack?.close());

describe('signing keys', () => {
  it('publishes the public key only, signs with it, and the token verifies from the published set', async () => {
    const jwksResponse = await stack.request('GET', '/.well-known/jwks.json');
    expect(jwksResponse.status).toBe(200);
    const jwks = (await jwksResponse.json()) as { keys: Array<Record<string, string>> };
    expect(jwks.keys).toHaveLength(1);
    expect(jwks.keys[0]).toMatchObject({ kty: 'OKP', crv: 'Ed25519', kid: 'k-2026', alg: 'EdDSA' });
    expect(jwks.keys[0]).not.toHaveProperty('d');
    const privateD = (JSON.parse(signingKeys) as Array<{ d: string }>)[0]!.d;
    expect(JSON.stringify(jwks)).not.toContain(privateD);

    const org = await stack.seedOrganization();
    const password = `pw-${uuidv7()}`;
    await setPassword(stack.db, org.adminId, password);
    const login = await stack.request('POST', '/auth/login', {
      body: { organizationId: org.organizationId, email: org.adminEmail, password },
    });
    expect(login.status).toBe(200);
    const { accessToken } = (await login.json()) as { accessToken: string };
    expect(decodeProtectedHeader(accessToken)).toMatchObject({ alg: 'EdDSA', kid: 'k-2026' });
    const { payload } = await jwtVerify(accessToken, createLocalJWKSet(jwks as never), { issuer: ISSUER, audience: 'runstate-api' });
    expect(payload.sub).toBe(org.adminId);
    expect((await stack.request('GET', `/orgs/${org.organizationId}/invites`, { token: accessToken })).status).toBe(200);
  });

  it("refuses a token of its own keys without the org claim signed since it started, and binds the session's next one", async () => {
    const org = await stack.seedOrganization();
    const password = `pw-${uuidv7()}`;
    await setPassword(stack.db, org.adminId, password);
    const login = await stack.request('POST', '/auth/login', {
      body: { organizationId: org.organizationId, email: org.adminEmail, password },
    });
    const { accessToken, refreshToken } = (await login.json()) as { accessToken: string; refreshToken: string };
    const sessionId = decodeJwt(accessToken).sid as string;
    const path = `/orgs/${org.organizationId}/invites`;
    // The same session's token as a build before sessions were bound signed it: no org, signed after this isolate started.
    const unbound = await signAccessToken(
      stack.config.auth,
      { userId: org.adminId, sessionId, email: org.adminEmail },
      { nowMs: Date.now(), ttlSeconds: 600 },
    );
    expect((await stack.request('GET', path, { token: unbound.token })).status).toBe(401);
    expect((await stack.request('GET', path, { token: accessToken })).status).toBe(200);
    const refreshed = (await (await stack.request('POST', '/auth/refresh', { body: { refreshToken } })).json()) as { accessToken: string };
    expect(decodeJwt(refreshed.accessToken).org).toBe(org.organizationId);
    expect((await stack.request('GET', path, { token: refreshed.accessToken })).status).toBe(200);
  });

  it('refuses HS256 tokens once signing keys are configured, even signed with the dev secret', async () => {
    const org = await stack.seedOrganization();
    const response = await stack.request('GET', `/orgs/${org.organizationId}/invites`, { token: org.adminToken });
    expect(response.status).toBe(401);
  });
});
