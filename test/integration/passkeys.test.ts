// Passkeys against real Redis and PostgreSQL, with a software authenticator (test/support/passkey-authenticator.ts):
// registration after the step-up, the list, rename and removal, and the passkey sign-in — each refusal with its code, the
// challenge single-use and bound to its ceremony and organisation, a forged response costing one Redis round trip and no
// PostgreSQL, a cloned authenticator audited, another organisation's user spending nothing there, and no secret logged.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeJwt } from 'jose';
import { uuidv7 } from 'uuidv7';
import { base32Decode, sha256Hex, totpCode, totpStep } from '../../lib/crypto/index.ts';
import { TEST_CLIENT_IP_HEADER } from '../../local/stack/app.ts';
import { setPassword } from '../support/fixtures.ts';
import { memberFixtures } from '../support/members.ts';
import { newOperator } from '../support/operators.ts';
import { testPasskey, type CeremonyBends, type RegistrationOptions, type SoftwarePasskey } from '../support/passkey-authenticator.ts';
import { errorCode } from '../support/sessions.ts';
import { startStack, type TestStack } from '../support/stack.ts';

const operator = newOperator('ops');

let stack: TestStack;
let m: ReturnType<typeof memberFixtures>;
beforeAll(async () => {
  stack = await startStack({ separateRevocationProxy: true, env: { OPERATOR_TOKEN_HASHES: operator.entry } });
  m = memberFixtures(stack);
});
afterAll(async () => stack?.close());

type Json = Record<string, unknown>;
let ipCounter = 0;
const freshIp = () => `127.3.${Math.floor(++ipCounter / 250)}.${ipCounter % 250}`;

interface Member {
  userId: string;
  email: string;
  organizationId: string;
  password: string;
  /** A bearer token of a session signed in to `organizationId` with the password. */
  accessToken: string;
}

/** A member of the organisation (a new one unless given), with a password and a session signed in to it. */
async function signedInMember(organizationId?: string): Promise<Member> {
  const orgId = organizationId ?? (await stack.seedOrganization()).organizationId;
  const user = await m.addMember(orgId, 'OrganizationAdmin');
  const password = `pw-${uuidv7()}`;
  await setPassword(stack.db, user.userId, password);
  const login = await stack.request('POST', '/auth/login', {
    body: { organizationId: orgId, email: user.email, password },
    headers: { [TEST_CLIENT_IP_HEADER]: freshIp() },
  });
  expect(login.status).toBe(200);
  const { accessToken } = (await login.json()) as { accessToken: string };
  return { userId: user.userId, email: user.email, organizationId: orgId, password, accessToken };
}

/** Enrols and confirms a TOTP factor for the member (the MFA routes); returns its secret. */
async function enrolTotp(member: Member): Promise<string> {
  const enrolled = await stack.request('POST', '/auth/mfa/enrol', { token: member.accessToken, body: { password: member.password } });
  expect(enrolled.status).toBe(201);
  const { secret } = (await enrolled.json()) as { secret: string };
  const code = await totpCode(base32Decode(secret), totpStep(Date.now()));
  expect((await stack.request('POST', '/auth/mfa/enrol/confirm', { token: member.accessToken, body: { code } })).status).toBe(200);
  return secret;
}

async function registrationOptions(member: Member): Promise<RegistrationOptions & Json> {
  const response = await stack.request('POST', '/auth/passkeys/registration/options', {
    token: member.accessToken,
    body: { password: member.password },
  });
  expect(response.status).toBe(200);
  return (await response.json()) as RegistrationOptions & Json;
}

const verifyRegistration = (member: Member, response: unknown, name?: string) =>
  stack.request('POST', '/auth/passkeys/registration/verify', {
    token: member.accessToken,
    body: { response, ...(name !== undefined ? { name } : {}) },
  });

/** A member with a registered passkey. */
async function memberWithPasskey(options: { counter?: number; organizationId?: string } = {}) {
  const member = await signedInMember(options.organizationId);
  const passkey = await testPasskey({ counter: options.counter ?? 0 });
  const registered = await verifyRegistration(member, await passkey.register(await registrationOptions(member)));
  expect(registered.status).toBe(201);
  const { passkey: view } = (await registered.json()) as { passkey: { passkeyId: string } };
  return { member, passkey, passkeyId: view.passkeyId };
}

async function signInOptions(organizationId: string, ip = freshIp()): Promise<{ challenge: string } & Json> {
  const response = await stack.request('POST', '/auth/passkeys/authentication/options', {
    body: { organizationId },
    headers: { [TEST_CLIENT_IP_HEADER]: ip },
  });
  expect(response.status).toBe(200);
  return (await response.json()) as { challenge: string } & Json;
}

const verifySignIn = (organizationId: string, response: unknown, ip = freshIp()) =>
  stack.request('POST', '/auth/passkeys/authentication/verify', {
    body: { organizationId, response },
    headers: { [TEST_CLIENT_IP_HEADER]: ip },
  });

/** Signs in with the passkey (bent as asked) to the organisation; the raw answer. */
async function passkeySignIn(organizationId: string, passkey: SoftwarePasskey, bends: CeremonyBends = {}) {
  const { challenge } = await signInOptions(organizationId);
  return verifySignIn(organizationId, await passkey.assert(challenge, bends));
}

async function answer(response: Response): Promise<[number, string | undefined]> {
  return [response.status, await errorCode(response)];
}

const challengeKey = async (challenge: string) => stack.deps.keys.passkeyChallenge(await sha256Hex(challenge));

async function auditRows(action: string, userId: string) {
  const result = await stack.db.query(
    'SELECT organization_id, actor_user_id, details FROM audit_events WHERE action = $1 AND actor_user_id = $2 ORDER BY occurred_at',
    [action, userId],
  );
  return result.rows as Array<{ organization_id: string | null; actor_user_id: string; details: Json }>;
}

describe('registering a passkey', () => {
  it('asks for the step-up, stores the public key with passkey.registered, and lists it', async () => {
    const member = await signedInMember();
    const refused = await stack.request('POST', '/auth/passkeys/registration/options', {
      token: member.accessToken,
      body: { password: 'not-the-password' },
    });
    expect(await answer(refused)).toEqual([403, 'REAUTH_FAILED']);

    const options = await registrationOptions(member);
    expect(options).toMatchObject({
      rp: { id: 'runstate.test', name: 'runstate' },
      user: { name: member.email },
      attestation: 'none',
      authenticatorSelection: { residentKey: 'required', userVerification: 'required' },
      timeout: 300_000,
    });
    // The challenge lives under its hash for 5 minutes, bound to this user and the session's organisation.
    const key = await challengeKey(options.challenge);
    expect(key).not.toContain(options.challenge);
    expect(await stack.redis.ttl(key)).toBeGreaterThan(290);
    expect(await stack.redis.ttl(key)).toBeLessThanOrEqual(300);
    expect(JSON.parse((await stack.redis.get(key))!)).toMatchObject({
      ceremony: 'registration',
      userId: member.userId,
      organizationId: member.organizationId,
    });

    const passkey = await testPasskey();
    const registered = await verifyRegistration(member, await passkey.register(options), 'Laptop');
    expect(registered.status).toBe(201);
    const { passkey: view } = (await registered.json()) as { passkey: Json };
    expect(view).toEqual({
      passkeyId: expect.any(String),
      name: 'Laptop',
      createdAt: expect.any(String),
      lastUsedAt: null,
      transports: ['internal', 'hybrid'],
    });
    expect(await stack.redis.exists(key)).toBe(0);
    const stored = await stack.db.query('SELECT user_id, credential_id, sign_count FROM passkeys WHERE id = $1', [view.passkeyId]);
    expect(stored.rows).toEqual([{ user_id: member.userId, credential_id: passkey.id, sign_count: '0' }]);
    expect(await auditRows('passkey.registered', member.userId)).toEqual([
      { organization_id: null, actor_user_id: member.userId, details: { passkeyId: view.passkeyId } },
    ]);

    const listed = await stack.request('GET', '/auth/passkeys', { token: member.accessToken });
    expect(listed.status).toBe(200);
    expect(await listed.json()).toEqual({ passkeys: [view] });
    // The next options exclude it, so the authenticator refuses to register it twice.
    const again = await registrationOptions(member);
    expect(again.excludeCredentials).toEqual([{ id: passkey.id, type: 'public-key', transports: ['internal', 'hybrid'] }]);
  });

  it('asks for a current TOTP code too when the account has a confirmed factor', async () => {
    const member = await signedInMember();
    const secret = await enrolTotp(member);
    const options = (body: Json) => stack.request('POST', '/auth/passkeys/registration/options', { token: member.accessToken, body });
    expect(await answer(await options({ password: member.password }))).toEqual([403, 'REAUTH_FAILED']);
    expect(await answer(await options({ password: member.password, code: '000000' }))).toEqual([403, 'REAUTH_FAILED']);
    // The confirmation burned the current step's code; the next step's is within the drift.
    const code = await totpCode(base32Decode(secret), totpStep(Date.now()) + 1);
    expect((await options({ password: member.password, code })).status).toBe(200);
  });

  it('refuses a credential already registered (409), one made elsewhere, and a challenge of another user or ceremony', async () => {
    const { member, passkey } = await memberWithPasskey();
    expect(await answer(await verifyRegistration(member, await passkey.register(await registrationOptions(member))))).toEqual([
      409,
      'PASSKEY_EXISTS',
    ]);

    const fresh = await testPasskey();
    expect(
      await answer(
        await verifyRegistration(member, await fresh.register(await registrationOptions(member), { origin: 'https://evil.test' })),
      ),
    ).toEqual([400, 'PASSKEY_ORIGIN_MISMATCH']);
    expect(
      await answer(await verifyRegistration(member, await fresh.register(await registrationOptions(member), { rpId: 'evil.test' }))),
    ).toEqual([400, 'PASSKEY_ORIGIN_MISMATCH']);
    expect(
      await answer(
        await verifyRegistration(member, await fresh.register(await registrationOptions(member), { withoutUserVerification: true })),
      ),
    ).toEqual([400, 'PASSKEY_RESPONSE_INVALID']);

    // Another user's registration challenge: refused, and spent.
    const other = await signedInMember(member.organizationId);
    const othersOptions = await registrationOptions(other);
    expect(await answer(await verifyRegistration(member, await fresh.register(othersOptions)))).toEqual([
      400,
      'PASSKEY_CHALLENGE_MISMATCH',
    ]);
    expect(await answer(await verifyRegistration(other, await fresh.register(othersOptions)))).toEqual([400, 'PASSKEY_CHALLENGE_INVALID']);

    // A sign-in's challenge presented for registration.
    const signIn = await signInOptions(member.organizationId);
    const asRegistration = await fresh.register({ ...(await registrationOptions(member)), challenge: signIn.challenge });
    expect(await answer(await verifyRegistration(member, asRegistration))).toEqual([400, 'PASSKEY_CHALLENGE_MISMATCH']);
    expect(await answer(await verifySignIn(member.organizationId, await passkey.assert(signIn.challenge)))).toEqual([
      400,
      'PASSKEY_CHALLENGE_INVALID',
    ]);
    expect((await stack.db.query('SELECT count(*)::int AS n FROM passkeys WHERE user_id = $1', [member.userId])).rows).toEqual([{ n: 1 }]);
  });
});

describe('renaming and removing', () => {
  it('renames its own passkey only, and removes it after the step-up with passkey.removed; it then signs in nowhere', async () => {
    const { member, passkey, passkeyId } = await memberWithPasskey();
    const renamed = await stack.request('PATCH', `/auth/passkeys/${passkeyId}`, { token: member.accessToken, body: { name: 'Phone' } });
    expect(renamed.status).toBe(200);
    expect(((await renamed.json()) as { passkey: Json }).passkey).toMatchObject({ passkeyId, name: 'Phone' });

    const stranger = await signedInMember();
    expect(
      await answer(await stack.request('PATCH', `/auth/passkeys/${passkeyId}`, { token: stranger.accessToken, body: { name: 'Mine' } })),
    ).toEqual([404, 'NOT_FOUND']);
    expect(
      await answer(
        await stack.request('DELETE', `/auth/passkeys/${passkeyId}`, {
          token: stranger.accessToken,
          body: { password: stranger.password },
        }),
      ),
    ).toEqual([404, 'NOT_FOUND']);
    expect(
      await answer(
        await stack.request('DELETE', `/auth/passkeys/${passkeyId}`, { token: member.accessToken, body: { password: 'wrong' } }),
      ),
    ).toEqual([403, 'REAUTH_FAILED']);

    const removed = await stack.request('DELETE', `/auth/passkeys/${passkeyId}`, {
      token: member.accessToken,
      body: { password: member.password },
    });
    expect(removed.status).toBe(204);
    expect(await auditRows('passkey.removed', member.userId)).toEqual([
      { organization_id: null, actor_user_id: member.userId, details: { passkeyId } },
    ]);
    expect(await (await stack.request('GET', '/auth/passkeys', { token: member.accessToken })).json()).toEqual({ passkeys: [] });
    expect(await answer(await passkeySignIn(member.organizationId, passkey))).toEqual([401, 'PASSKEY_NOT_ACCEPTED']);
  });
});

describe('signing in with a passkey', () => {
  it('answers the body of POST /auth/login, bound to the organisation, with a passkey session and no allowCredentials', async () => {
    const { member, passkey, passkeyId } = await memberWithPasskey();
    const options = await signInOptions(member.organizationId);
    expect(options).toEqual({ challenge: expect.any(String), rpId: 'runstate.test', timeout: 300_000, userVerification: 'required' });
    const key = await challengeKey(options.challenge);
    expect(JSON.parse((await stack.redis.get(key))!)).toMatchObject({ ceremony: 'authentication', organizationId: member.organizationId });
    expect(await stack.redis.ttl(key)).toBeLessThanOrEqual(300);

    const signedIn = await verifySignIn(member.organizationId, await passkey.assert(options.challenge));
    expect(signedIn.status).toBe(200);
    const body = (await signedIn.json()) as Json & { accessToken: string };
    expect(body).toEqual({
      status: 'signed-in',
      tokenType: 'Bearer',
      accessToken: expect.any(String),
      expiresInSeconds: 900,
      refreshToken: expect.any(String),
      userId: member.userId,
      organizationId: member.organizationId,
      sessionExpiresAtUtc: expect.any(String),
    });
    const claims = decodeJwt(body.accessToken);
    expect(claims).toMatchObject({ sub: member.userId, org: member.organizationId, email: member.email });
    const session = await stack.db.query('SELECT organization_id, method FROM sessions WHERE id = $1', [claims.sid]);
    expect(session.rows).toEqual([{ organization_id: member.organizationId, method: 'passkey' }]);
    expect(await stack.redis.exists(key)).toBe(0);
    const used = await stack.db.query('SELECT last_used_at FROM passkeys WHERE id = $1', [passkeyId]);
    expect(used.rows[0].last_used_at).not.toBeNull();
    // The token acts in its organisation.
    expect((await stack.request('GET', `/orgs/${member.organizationId}/members`, { token: body.accessToken })).status).toBe(200);
  });

  it('satisfies MFA: a member with a confirmed TOTP factor is signed in without a code', async () => {
    const { member, passkey } = await memberWithPasskey();
    await enrolTotp(member);
    const password = await stack.request('POST', '/auth/login', {
      body: { organizationId: member.organizationId, email: member.email, password: member.password },
      headers: { [TEST_CLIENT_IP_HEADER]: freshIp() },
    });
    expect(((await password.json()) as Json).status).toBe('mfa-required');
    const signedIn = await passkeySignIn(member.organizationId, passkey);
    expect(signedIn.status).toBe(200);
    expect(((await signedIn.json()) as Json).status).toBe('signed-in');
  });

  it('refuses a replayed assertion: the challenge was spent by the first', async () => {
    const { member, passkey } = await memberWithPasskey();
    const { challenge } = await signInOptions(member.organizationId);
    const assertion = await passkey.assert(challenge);
    expect((await verifySignIn(member.organizationId, assertion)).status).toBe(200);
    expect(await answer(await verifySignIn(member.organizationId, assertion))).toEqual([400, 'PASSKEY_CHALLENGE_INVALID']);
  });

  it('lets exactly one of 20 parallel verifies of one assertion sign in', async () => {
    const { member, passkey } = await memberWithPasskey();
    const { challenge } = await signInOptions(member.organizationId);
    const assertion = await passkey.assert(challenge);
    const answers = await Promise.all(Array.from({ length: 20 }, () => verifySignIn(member.organizationId, assertion).then(answer)));
    expect(answers.filter(([status]) => status === 200)).toHaveLength(1);
    expect(answers.filter(([, code]) => code === 'PASSKEY_CHALLENGE_INVALID')).toHaveLength(19);
  });

  it('refuses a registration challenge presented for sign-in, and spends it', async () => {
    const { member, passkey } = await memberWithPasskey();
    const registration = await registrationOptions(member);
    expect(await answer(await verifySignIn(member.organizationId, await passkey.assert(registration.challenge)))).toEqual([
      400,
      'PASSKEY_CHALLENGE_MISMATCH',
    ]);
    expect(await stack.redis.exists(await challengeKey(registration.challenge))).toBe(0);
  });

  it("refuses another organisation's challenge, another origin, another RP ID, a missing user verification and a bad signature", async () => {
    const { member, passkey } = await memberWithPasskey();
    const elsewhere = await stack.seedOrganization();
    const { challenge } = await signInOptions(elsewhere.organizationId);
    expect(await answer(await verifySignIn(member.organizationId, await passkey.assert(challenge)))).toEqual([
      400,
      'PASSKEY_CHALLENGE_MISMATCH',
    ]);
    expect(await answer(await passkeySignIn(member.organizationId, passkey, { origin: 'https://app.evil.test' }))).toEqual([
      400,
      'PASSKEY_ORIGIN_MISMATCH',
    ]);
    expect(await answer(await passkeySignIn(member.organizationId, passkey, { rpId: 'evil.test' }))).toEqual([
      400,
      'PASSKEY_ORIGIN_MISMATCH',
    ]);
    expect(await answer(await passkeySignIn(member.organizationId, passkey, { withoutUserVerification: true }))).toEqual([
      400,
      'PASSKEY_RESPONSE_INVALID',
    ]);
    expect(await answer(await passkeySignIn(member.organizationId, passkey, { type: 'webauthn.create' }))).toEqual([
      400,
      'PASSKEY_RESPONSE_INVALID',
    ]);
    expect(await answer(await passkeySignIn(member.organizationId, passkey, { forgeSignature: true }))).toEqual([
      401,
      'PASSKEY_NOT_ACCEPTED',
    ]);
    expect(
      (await stack.db.query('SELECT count(*)::int AS n FROM sessions WHERE user_id = $1 AND method = $2', [member.userId, 'passkey'])).rows,
    ).toEqual([{ n: 0 }]);
  });

  it("refuses another user's handle, an unknown credential and a removed member's passkey", async () => {
    const { member, passkey } = await memberWithPasskey();
    const other = await memberWithPasskey({ organizationId: member.organizationId });
    // The credential is member's; the user handle names the other account.
    const otherHandle = Buffer.from(other.member.userId.replaceAll('-', ''), 'hex').toString('base64url');
    expect(await answer(await passkeySignIn(member.organizationId, passkey, { userHandle: otherHandle }))).toEqual([
      401,
      'PASSKEY_NOT_ACCEPTED',
    ]);
    expect(await answer(await passkeySignIn(member.organizationId, await testPasskey()))).toEqual([401, 'PASSKEY_NOT_ACCEPTED']);

    await stack.db.query('DELETE FROM role_assignments WHERE user_id = $1 AND organization_id = $2', [
      member.userId,
      member.organizationId,
    ]);
    expect(await answer(await passkeySignIn(member.organizationId, passkey))).toEqual([401, 'PASSKEY_NOT_ACCEPTED']);
    // The control: the other member still signs in, without a user handle too.
    expect((await passkeySignIn(member.organizationId, other.passkey, { userHandle: null })).status).toBe(200);
  });

  it('refuses a counter that went backwards (a cloned authenticator) and audits passkey.counter_regressed', async () => {
    const { member, passkey, passkeyId } = await memberWithPasskey({ counter: 5 });
    const clone = passkey.clone();
    expect((await passkeySignIn(member.organizationId, passkey)).status).toBe(200); // counter 6
    expect((await passkeySignIn(member.organizationId, passkey)).status).toBe(200); // counter 7
    expect(await answer(await passkeySignIn(member.organizationId, clone))).toEqual([401, 'PASSKEY_COUNTER_REGRESSED']); // counter 6
    expect(await answer(await passkeySignIn(member.organizationId, clone, { counter: 7 }))).toEqual([401, 'PASSKEY_COUNTER_REGRESSED']);
    expect(await auditRows('passkey.counter_regressed', member.userId)).toEqual([
      {
        organization_id: member.organizationId,
        actor_user_id: member.userId,
        details: { passkeyId, storedCounter: 7, presentedCounter: 6 },
      },
      {
        organization_id: member.organizationId,
        actor_user_id: member.userId,
        details: { passkeyId, storedCounter: 7, presentedCounter: 7 },
      },
    ]);
    expect((await stack.db.query('SELECT sign_count FROM passkeys WHERE id = $1', [passkeyId])).rows).toEqual([{ sign_count: '7' }]);
    // An authenticator that keeps no counter (0 every time) is not a regression.
    const counterless = await memberWithPasskey({ counter: 0 });
    expect((await passkeySignIn(counterless.member.organizationId, counterless.passkey)).status).toBe(200);
    expect((await passkeySignIn(counterless.member.organizationId, counterless.passkey)).status).toBe(200);
  });

  it('refuses a suspended organisation with TENANT_SUSPENDED, and signs in once it is reactivated', async () => {
    const { member, passkey } = await memberWithPasskey();
    await stack.db.query("UPDATE organizations SET state = 'suspended', suspension_reason = 'test' WHERE id = $1", [member.organizationId]);
    expect(await answer(await passkeySignIn(member.organizationId, passkey))).toEqual([403, 'TENANT_SUSPENDED']);
    await stack.db.query("UPDATE organizations SET state = 'active', suspension_reason = NULL WHERE id = $1", [member.organizationId]);
    expect((await passkeySignIn(member.organizationId, passkey)).status).toBe(200);
  });

  it('costs a forged response one Redis round trip and no PostgreSQL; the options, one round trip and no PostgreSQL', async () => {
    const { member, passkey } = await memberWithPasskey();
    await passkeySignIn(member.organizationId, passkey); // the scripts are loaded
    const forged = await passkey.assert('A'.repeat(43));
    stack.redisProxy.stats.reset();
    stack.neonProxy.stats.reset();
    expect(await answer(await verifySignIn(member.organizationId, forged))).toEqual([400, 'PASSKEY_CHALLENGE_INVALID']);
    expect({ redis: stack.redisProxy.stats.requests, postgres: stack.neonProxy.stats.httpRequests }).toEqual({ redis: 1, postgres: 0 });

    stack.redisProxy.stats.reset();
    await signInOptions(member.organizationId);
    expect({ redis: stack.redisProxy.stats.requests, postgres: stack.neonProxy.stats.httpRequests }).toEqual({ redis: 1, postgres: 0 });
  });

  it('limits the options and the verify per address (429), storing no challenge past the limit', async () => {
    const org = await stack.seedOrganization();
    const ip = freshIp();
    for (let i = 0; i < 100; i++) await signInOptions(org.organizationId, ip);
    const over = await stack.request('POST', '/auth/passkeys/authentication/options', {
      body: { organizationId: org.organizationId },
      headers: { [TEST_CLIENT_IP_HEADER]: ip },
    });
    expect(over.status).toBe(429);
    expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(0);
    const passkey = await testPasskey();
    const verifyIp = freshIp();
    for (let i = 0; i < 100; i++) await verifySignIn(org.organizationId, await passkey.assert('B'.repeat(43)), verifyIp);
    expect(await answer(await verifySignIn(org.organizationId, await passkey.assert('B'.repeat(43)), verifyIp))).toEqual([
      429,
      'RATE_LIMITED',
    ]);
  });
});

describe("the organisation's sign-in policy", () => {
  const putPolicy = (member: Member, policy: { requireMfa: boolean; allowedMethods: string[] }) =>
    stack.request('PUT', `/orgs/${member.organizationId}/sign-in-policy`, { token: member.accessToken, body: policy });

  it('refuses a passkey sign-in where the policy does not allow passkeys (403), opening no session and leaving the passkey unused', async () => {
    const { member, passkey, passkeyId } = await memberWithPasskey();
    expect((await putPolicy(member, { requireMfa: false, allowedMethods: ['password'] })).status).toBe(200);
    const sessionsBefore = await stack.db.query('SELECT count(*)::int AS n FROM sessions WHERE user_id = $1', [member.userId]);

    expect(await answer(await passkeySignIn(member.organizationId, passkey))).toEqual([403, 'SIGN_IN_METHOD_NOT_ALLOWED']);
    const sessionsAfter = await stack.db.query('SELECT count(*)::int AS n FROM sessions WHERE user_id = $1', [member.userId]);
    expect(sessionsAfter.rows[0].n).toBe(sessionsBefore.rows[0].n);
    const used = await stack.db.query('SELECT last_used_at, sign_count FROM passkeys WHERE id = $1', [passkeyId]);
    expect(used.rows).toEqual([{ last_used_at: null, sign_count: '0' }]);

    // Allowed again: the same passkey signs in.
    expect((await putPolicy(member, { requireMfa: false, allowedMethods: ['password', 'passkey'] })).status).toBe(200);
    expect((await passkeySignIn(member.organizationId, passkey)).status).toBe(200);
  });

  it('counts a passkey as the second factor where MFA is required, and as the way in that keeps an admin from being locked out', async () => {
    const { member, passkey } = await memberWithPasskey();
    // The only admin has a password and a passkey: passkeys alone still let an admin in.
    expect((await putPolicy(member, { requireMfa: true, allowedMethods: ['passkey'] })).status).toBe(200);
    const signedIn = await passkeySignIn(member.organizationId, passkey);
    expect(signedIn.status).toBe(200);
    expect(((await signedIn.json()) as Json).status).toBe('signed-in');

    // An admin without a passkey cannot make passkeys the only way in.
    const other = await signedInMember();
    expect(await answer(await putPolicy(other, { requireMfa: false, allowedMethods: ['passkey'] }))).toEqual([
      400,
      'SIGN_IN_POLICY_LOCKOUT',
    ]);
  });
});

describe('tenant isolation', () => {
  it("refuses a user of organisation B signing in to A with their passkey, spending nothing of A's", async () => {
    const a = await stack.seedOrganization();
    const { member, passkey } = await memberWithPasskey();
    const { challenge } = await signInOptions(a.organizationId);
    const sessionsBefore = (await stack.db.query('SELECT count(*)::int AS n FROM sessions WHERE organization_id = $1', [a.organizationId]))
      .rows;
    const auditBefore = (await stack.db.query('SELECT count(*)::int AS n FROM audit_events WHERE organization_id = $1', [a.organizationId]))
      .rows;
    const signCount = (await stack.db.query('SELECT sign_count, last_used_at FROM passkeys WHERE user_id = $1', [member.userId])).rows;

    expect(await answer(await verifySignIn(a.organizationId, await passkey.assert(challenge)))).toEqual([401, 'PASSKEY_NOT_ACCEPTED']);
    expect((await stack.db.query('SELECT count(*)::int AS n FROM sessions WHERE organization_id = $1', [a.organizationId])).rows).toEqual(
      sessionsBefore,
    );
    expect(
      (await stack.db.query('SELECT count(*)::int AS n FROM audit_events WHERE organization_id = $1', [a.organizationId])).rows,
    ).toEqual(auditBefore);
    expect((await stack.db.query('SELECT sign_count, last_used_at FROM passkeys WHERE user_id = $1', [member.userId])).rows).toEqual(
      signCount,
    );
    expect(await stack.redis.keys(`*:org:{${a.organizationId}}:*`)).toEqual([]);

    // A session of the same user bound to B cannot reach A either: the passkey routes act on the account, never in an
    // organisation, and the sign-in to A is refused whatever session the user holds elsewhere.
    expect(await answer(await passkeySignIn(a.organizationId, passkey))).toEqual([401, 'PASSKEY_NOT_ACCEPTED']);
    // The control: the same passkey signs in to B.
    expect((await passkeySignIn(member.organizationId, passkey)).status).toBe(200);
  });

  it('refuses a member signing in with their passkey to their organisation once it is deleted: no session, no counter moved', async () => {
    const { member, passkey } = await memberWithPasskey();
    expect((await passkeySignIn(member.organizationId, passkey)).status).toBe(200);
    const deleted = await stack.request('POST', `/ops/tenants/${member.organizationId}/delete`, {
      headers: { authorization: `Bearer ${operator.secret}` },
      body: { reason: 'contract ended' },
    });
    expect(deleted.status).toBe(200);
    const live = () =>
      stack.db.query('SELECT count(*)::int AS n FROM sessions WHERE organization_id = $1 AND revoked_at IS NULL', [member.organizationId]);
    expect((await live()).rows).toEqual([{ n: 0 }]);
    const signCount = (await stack.db.query('SELECT sign_count, last_used_at FROM passkeys WHERE user_id = $1', [member.userId])).rows;
    expect(await answer(await passkeySignIn(member.organizationId, passkey))).toEqual([401, 'PASSKEY_NOT_ACCEPTED']);
    expect((await live()).rows).toEqual([{ n: 0 }]);
    expect((await stack.db.query('SELECT sign_count, last_used_at FROM passkeys WHERE user_id = $1', [member.userId])).rows).toEqual(
      signCount,
    );
  });
});

describe('a registration bound to its session', () => {
  it("refuses the same user's session bound to another organisation presenting the challenge, and spends it", async () => {
    const home = await signedInMember();
    const other = await stack.seedOrganization();
    await m.grant(home.userId, other.organizationId, 'OrganizationAdmin');
    const elsewhere = await stack.request('POST', '/auth/login', {
      body: { organizationId: other.organizationId, email: home.email, password: home.password },
      headers: { [TEST_CLIENT_IP_HEADER]: freshIp() },
    });
    const otherSession = {
      ...home,
      organizationId: other.organizationId,
      accessToken: ((await elsewhere.json()) as { accessToken: string }).accessToken,
    };
    const options = await registrationOptions(home);
    const passkey = await testPasskey();
    const response = await passkey.register(options);
    expect(await answer(await verifyRegistration(otherSession, response))).toEqual([400, 'PASSKEY_CHALLENGE_MISMATCH']);
    expect(await answer(await verifyRegistration(home, response))).toEqual([400, 'PASSKEY_CHALLENGE_INVALID']);
    expect((await stack.db.query('SELECT count(*)::int AS n FROM passkeys WHERE user_id = $1', [home.userId])).rows).toEqual([{ n: 0 }]);
  });
});

describe('canary', () => {
  it('writes no challenge, credential id, public key or token to the logs', async () => {
    const before = stack.logs.length;
    const { member, passkey, passkeyId } = await memberWithPasskey({ counter: 3 });
    const { challenge } = await signInOptions(member.organizationId);
    const clone = passkey.clone();
    const signedIn = await verifySignIn(member.organizationId, await passkey.assert(challenge));
    const { accessToken, refreshToken } = (await signedIn.json()) as { accessToken: string; refreshToken: string };
    expect(await answer(await passkeySignIn(member.organizationId, clone))).toEqual([401, 'PASSKEY_COUNTER_REGRESSED']);
    await passkeySignIn(member.organizationId, passkey, { origin: 'https://app.evil.test' });
    const publicKey = (await stack.db.query('SELECT public_key FROM passkeys WHERE id = $1', [passkeyId])).rows[0].public_key as string;
    const logs = stack.logs.slice(before).join('\n');
    expect(logs).toContain('passkey_counter_regressed');
    for (const secret of [challenge, passkey.id, publicKey, accessToken, refreshToken, member.password]) expect(logs).not.toContain(secret);
    const audit = JSON.stringify(await stack.db.query('SELECT details FROM audit_events WHERE actor_user_id = $1', [member.userId]));
    for (const secret of [challenge, passkey.id, publicKey]) expect(audit).not.toContain(secret);
  });
});
