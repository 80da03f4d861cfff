// One passkey's life through any runtime's entry (workerd, Lambda): a member signs in with a password, registers a
// passkey after the step-up, and signs in with it; a replay of that assertion is refused. The caller says how a JSON
// request reaches its runtime; the assertions are the same everywhere.
import { decodeJwt } from 'jose';
import { uuidv7 } from 'uuidv7';
import { expect } from 'vitest';
import { seedOrganization, setPassword } from './fixtures.ts';
import { testPasskey, type RegistrationOptions } from './passkey-authenticator.ts';
import type { SqlRunner } from '../../local/stack/fixtures.ts';

export type JsonCall = (
  method: string,
  path: string,
  options?: { token?: string; body?: unknown },
) => Promise<{ status: number; body: Record<string, unknown> }>;

export async function passkeyRoundTrip(call: JsonCall, db: SqlRunner): Promise<void> {
  const org = await seedOrganization(db);
  const password = `pw-${uuidv7()}`;
  await setPassword(db, org.adminId, password);
  const login = await call('POST', '/auth/login', { body: { organizationId: org.organizationId, email: org.adminEmail, password } });
  expect(login.status).toBe(200);
  const token = login.body.accessToken as string;

  const options = await call('POST', '/auth/passkeys/registration/options', { token, body: { password } });
  expect(options.status).toBe(200);
  const passkey = await testPasskey({ counter: 1 });
  const registered = await call('POST', '/auth/passkeys/registration/verify', {
    token,
    body: { response: await passkey.register(options.body as unknown as RegistrationOptions), name: 'Runtime' },
  });
  expect(registered).toMatchObject({ status: 201, body: { passkey: { name: 'Runtime', lastUsedAt: null } } });

  const request = await call('POST', '/auth/passkeys/authentication/options', { body: { organizationId: org.organizationId } });
  expect(request.status).toBe(200);
  expect(request.body).not.toHaveProperty('allowCredentials');
  const assertion = await passkey.assert(request.body.challenge as string);
  const signedIn = await call('POST', '/auth/passkeys/authentication/verify', {
    body: { organizationId: org.organizationId, response: assertion },
  });
  expect(signedIn).toMatchObject({ status: 200, body: { status: 'signed-in', userId: org.adminId, organizationId: org.organizationId } });
  expect(decodeJwt(signedIn.body.accessToken as string)).toMatchObject({ sub: org.adminId, org: org.organizationId });
  const replayed = await call('POST', '/auth/passkeys/authentication/verify', {
    body: { organizationId: org.organizationId, response: assertion },
  });
  expect(replayed).toMatchObject({ status: 400, body: { error: { code: 'PASSKEY_CHALLENGE_INVALID' } } });
}
