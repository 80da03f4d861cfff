// Enrolling a passkey with a sign-in's enrolment token, against real Redis and PostgreSQL with the software
// authenticator (test/support/passkey-authenticator.ts): the passkey stored and the session opened as `passkey` in one
// step, the token spent once, a refused response leaving it good (TOTP's rule), the enrolment's challenge and the
// bearer registration's or the sign-in's never taken for one another, a forged token costing no PostgreSQL, and the
// organisation's policy refusing passkeys before any ceremony.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeJwt } from 'jose';
import { uuidv7 } from 'uuidv7';
import { sha256Hex } from '../../lib/crypto/index.ts';
import { TEST_CLIENT_IP_HEADER } from '../../local/stack/app.ts';
import { setPassword } from '../support/fixtures.ts';
import { memberFixtures } from '../support/members.ts';
import { testPasskey, type RegistrationOptions } from '../support/passkey-authenticator.ts';
import { errorCode } from '../support/sessions.ts';
import { startStack, type TestStack } from '../support/stack.ts';

let stack: TestStack;
let m: ReturnType<typeof memberFixtures>;
beforeAll(async () => {
  stack = await startStack({ separateRevocationProxy: true });
  m = memberFixtures(stack);
});
afterAll(async () => stack?.close());

let ipCounter = 0;
const freshIp = () => `127.4.${Math.floor(++ipCounter / 250)}.${ipCounter % 250}`;

const login = (organizationId: string, person: { email: string; password: string }) =>
  stack.request('POST', '/auth/login', {
    body: { organizationId, email: person.email, password: person.password },
    headers: { [TEST_CLIENT_IP_HEADER]: freshIp() },
  });

async function answer(response: Response): Promise<[number, string | undefined]> {
  return [response.status, await errorCode(response)];
}

/**
 * A member of an organisation that requires MFA, without a second factor: the enrolment token their sign-in answers,
 * and the bearer token of a session they opened before the policy changed (sessions already open go on).
 */
async function enrolling(allowedMethods: string[] = ['password', 'passkey']) {
  const org = await stack.seedOrganization();
  const adminPassword = `pw-${uuidv7()}`;
  await setPassword(stack.db, org.adminId, adminPassword);
  const member = await m.addMember(org.organizationId, 'Viewer');
  const password = `pw-${uuidv7()}`;
  await setPassword(stack.db, member.userId, password);
  const before = await login(org.organizationId, { email: member.email, password });
  expect(before.status).toBe(200);
  const { accessToken } = (await before.json()) as { accessToken: string };
  const policy = await stack.request('PUT', `/orgs/${org.organizationId}/sign-in-policy`, {
    token: org.adminToken,
    body: { requireMfa: true, allowedMethods },
  });
  expect(policy.status).toBe(200);
  const signIn = await login(org.organizationId, { email: member.email, password });
  const body = (await signIn.json()) as { status: string; enrolmentToken: string };
  expect(body.status).toBe('mfa-enrolment-required');
  return { organizationId: org.organizationId, userId: member.userId, password, accessToken, enrolmentToken: body.enrolmentToken };
}

const enrolmentOptions = (enrolmentToken: string) =>
  stack.request('POST', '/auth/passkeys/enrolment/options', { body: { enrolmentToken } });

async function options(enrolmentToken: string): Promise<RegistrationOptions & { challenge: string }> {
  const response = await enrolmentOptions(enrolmentToken);
  expect(response.status).toBe(200);
  return (await response.json()) as RegistrationOptions & { challenge: string };
}

const verify = (enrolmentToken: string, response: unknown, name?: string) =>
  stack.request('POST', '/auth/passkeys/enrolment/verify', {
    body: { enrolmentToken, response, ...(name !== undefined ? { name } : {}) },
  });

async function sessionsOf(userId: string) {
  const result = await stack.db.query('SELECT organization_id, method FROM sessions WHERE user_id = $1 ORDER BY created_at', [userId]);
  return result.rows as Array<{ organization_id: string; method: string }>;
}

const challengeKey = async (challenge: string) => stack.deps.keys.passkeyChallenge(await sha256Hex(challenge));

describe('enrolling a passkey with an enrolment token', () => {
  it('stores the passkey (audited) and opens the session as `passkey`, answering the signed-in body of POST /auth/login', async () => {
    const who = await enrolling();
    const created = await options(who.enrolmentToken);
    expect(created).toMatchObject({
      rp: { id: 'runstate.test' },
      attestation: 'none',
      authenticatorSelection: { residentKey: 'required', userVerification: 'required' },
    });
    // The challenge is an enrolment's, bound to this user, organisation and token.
    const key = await challengeKey(created.challenge);
    expect(JSON.parse((await stack.redis.get(key))!)).toMatchObject({
      ceremony: 'enrolment',
      userId: who.userId,
      organizationId: who.organizationId,
      enrolmentId: expect.any(String),
    });

    const passkey = await testPasskey();
    const verified = await verify(who.enrolmentToken, await passkey.register(created), 'Laptop');
    expect(verified.status).toBe(200);
    const signedIn = (await verified.json()) as { status: string; accessToken: string; refreshToken: string };
    expect(signedIn.status).toBe('signed-in');
    expect(decodeJwt(signedIn.accessToken).org).toBe(who.organizationId);
    expect((await sessionsOf(who.userId)).map((s) => [s.organization_id, s.method])).toEqual([
      [who.organizationId, 'password'],
      [who.organizationId, 'passkey'],
    ]);
    const listed = await stack.request('GET', '/auth/passkeys', { token: signedIn.accessToken });
    expect(((await listed.json()) as { passkeys: Array<{ name: string }> }).passkeys.map((p) => p.name)).toEqual(['Laptop']);
    const audit = await stack.db.query(
      `SELECT count(*)::int AS n FROM audit_events WHERE action = 'passkey.registered' AND actor_user_id = $1`,
      [who.userId],
    );
    expect(audit.rows[0].n).toBe(1);
    expect(await stack.redis.exists(key)).toBe(0);

    // The passkey signs the member in from now on, MFA satisfied.
    const signInOptions = await stack.request('POST', '/auth/passkeys/authentication/options', {
      body: { organizationId: who.organizationId },
      headers: { [TEST_CLIENT_IP_HEADER]: freshIp() },
    });
    const { challenge } = (await signInOptions.json()) as { challenge: string };
    const passkeySignIn = await stack.request('POST', '/auth/passkeys/authentication/verify', {
      body: { organizationId: who.organizationId, response: await passkey.assert(challenge) },
      headers: { [TEST_CLIENT_IP_HEADER]: freshIp() },
    });
    expect(passkeySignIn.status).toBe(200);
  });

  it('spends the token exactly once: a second verify, new options and the TOTP enrolment are refused', async () => {
    const who = await enrolling();
    const first = await testPasskey();
    expect((await verify(who.enrolmentToken, await first.register(await options(who.enrolmentToken)))).status).toBe(200);
    const second = await testPasskey();
    // A response made before the token was spent, for a challenge still alive, is refused all the same.
    const who2 = await enrolling();
    const other = await options(who2.enrolmentToken);
    expect(await answer(await verify(who.enrolmentToken, await second.register(other)))).toEqual([401, 'ENROLMENT_INVALID']);
    expect(await answer(await enrolmentOptions(who.enrolmentToken))).toEqual([401, 'ENROLMENT_INVALID']);
    const totp = await stack.request('POST', '/auth/mfa/enrolment/totp', { body: { enrolmentToken: who.enrolmentToken } });
    expect(await answer(totp)).toEqual([401, 'ENROLMENT_INVALID']);
    expect((await sessionsOf(who.userId)).filter((s) => s.method === 'passkey')).toHaveLength(1);
    // The other token's challenge was never touched by the refused verify (its token was read first).
    expect(await stack.redis.exists(await challengeKey(other.challenge))).toBe(1);
  });

  it('leaves the token good after a refused response (another origin, no user verification): fresh options then succeed', async () => {
    const who = await enrolling();
    const passkey = await testPasskey();
    const elsewhere = await passkey.register(await options(who.enrolmentToken), { origin: 'https://app.evil.test' });
    expect(await answer(await verify(who.enrolmentToken, elsewhere))).toEqual([400, 'PASSKEY_ORIGIN_MISMATCH']);
    const unverified = await passkey.register(await options(who.enrolmentToken), { withoutUserVerification: true });
    expect(await answer(await verify(who.enrolmentToken, unverified))).toEqual([400, 'PASSKEY_RESPONSE_INVALID']);
    expect(await sessionsOf(who.userId)).toHaveLength(1);
    expect((await stack.db.query('SELECT 1 FROM passkeys WHERE user_id = $1', [who.userId])).rows).toHaveLength(0);
    expect((await verify(who.enrolmentToken, await passkey.register(await options(who.enrolmentToken)))).status).toBe(200);
  });

  it("refuses the bearer registration's challenge, and its own challenge is refused at registration and at sign-in", async () => {
    const who = await enrolling();
    const passkey = await testPasskey();
    // A bearer registration's challenge (the member's own, from a session opened before the policy) presented here.
    const bearer = await stack.request('POST', '/auth/passkeys/registration/options', {
      token: who.accessToken,
      body: { password: who.password },
    });
    expect(bearer.status).toBe(200);
    const bearerOptions = (await bearer.json()) as RegistrationOptions & { challenge: string };
    expect(await answer(await verify(who.enrolmentToken, await passkey.register(bearerOptions)))).toEqual([
      400,
      'PASSKEY_CHALLENGE_MISMATCH',
    ]);
    expect(await stack.redis.exists(await challengeKey(bearerOptions.challenge))).toBe(0);

    // This route's challenge presented for the bearer registration, and for a passkey sign-in: refused, and spent.
    const enrolment = await options(who.enrolmentToken);
    const asRegistration = await stack.request('POST', '/auth/passkeys/registration/verify', {
      token: who.accessToken,
      body: { response: await passkey.register(enrolment) },
    });
    expect(await answer(asRegistration)).toEqual([400, 'PASSKEY_CHALLENGE_MISMATCH']);
    expect(await stack.redis.exists(await challengeKey(enrolment.challenge))).toBe(0);
    const another = await options(who.enrolmentToken);
    const asSignIn = await stack.request('POST', '/auth/passkeys/authentication/verify', {
      body: { organizationId: who.organizationId, response: await passkey.assert(another.challenge) },
      headers: { [TEST_CLIENT_IP_HEADER]: freshIp() },
    });
    expect(await answer(asSignIn)).toEqual([400, 'PASSKEY_CHALLENGE_MISMATCH']);
    expect((await stack.db.query('SELECT 1 FROM passkeys WHERE user_id = $1', [who.userId])).rows).toHaveLength(0);

    // And the token is still good after all of it.
    expect((await verify(who.enrolmentToken, await passkey.register(await options(who.enrolmentToken)))).status).toBe(200);
  });

  it('refuses a forged or malformed token at one Redis read each and no PostgreSQL', async () => {
    const who = await enrolling();
    const passkey = await testPasskey();
    const response = await passkey.register(await options(who.enrolmentToken));
    const forged = `${who.enrolmentToken.slice(0, -4)}AAAA`;
    stack.redisProxy.stats.reset();
    stack.neonProxy.stats.reset();
    expect(await answer(await enrolmentOptions(forged))).toEqual([401, 'ENROLMENT_INVALID']);
    expect(await answer(await verify(forged, response))).toEqual([401, 'ENROLMENT_INVALID']);
    expect(await answer(await verify('rse_short', response))).toEqual([401, 'ENROLMENT_INVALID']);
    expect({ redis: stack.redisProxy.stats.commands, postgres: stack.neonProxy.stats.httpRequests }).toEqual({ redis: 2, postgres: 0 });
    // The real token's challenge was left alone: the response still enrols.
    expect((await verify(who.enrolmentToken, response)).status).toBe(200);
  });

  it("answers 403 SIGN_IN_METHOD_NOT_ALLOWED where the organisation's policy does not allow passkeys, and the token stays good for TOTP", async () => {
    const who = await enrolling(['password']);
    expect(await answer(await enrolmentOptions(who.enrolmentToken))).toEqual([403, 'SIGN_IN_METHOD_NOT_ALLOWED']);
    const totp = await stack.request('POST', '/auth/mfa/enrolment/totp', { body: { enrolmentToken: who.enrolmentToken } });
    expect(totp.status).toBe(201);
  });

  it('keeps the token, the challenge and the credential out of logs and audit rows', async () => {
    const before = stack.logs.length;
    const who = await enrolling();
    const passkey = await testPasskey();
    const created = await options(who.enrolmentToken);
    await verify(who.enrolmentToken, await passkey.register(created, { origin: 'https://app.evil.test' }));
    const verified = await verify(who.enrolmentToken, await passkey.register(await options(who.enrolmentToken)));
    const { accessToken, refreshToken } = (await verified.json()) as { accessToken: string; refreshToken: string };
    const logs = stack.logs.slice(before).join('\n');
    const canaries = [who.enrolmentToken, who.enrolmentToken.slice(-43), created.challenge, passkey.id];
    for (const secret of [...canaries, accessToken, refreshToken]) expect(logs).not.toContain(secret);
    const audit = JSON.stringify((await stack.db.query('SELECT details FROM audit_events WHERE actor_user_id = $1', [who.userId])).rows);
    for (const secret of canaries) expect(audit).not.toContain(secret);
  });
});
