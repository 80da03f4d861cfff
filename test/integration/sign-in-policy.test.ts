// An organisation's sign-in policy: its admin reads and replaces it (validated, never locking every admin out,
// audited), every new sign-in follows it from the next request, the session insert holds it against a change that
// lands mid-sign-in, a member without a second factor gets an enrolment token that only enrols and then opens the
// session, and a switch of organisation meets the target's policy. Sessions already open go on.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeJwt } from 'jose';
import { uuidv7 } from 'uuidv7';
import { base32Decode, totpCode, totpStep } from '../../lib/crypto/index.ts';
import { TEST_CLIENT_IP_HEADER } from '../../local/stack/app.ts';
import { setPassword } from '../support/fixtures.ts';
import { memberFixtures } from '../support/members.ts';
import { authenticatedRoutes, errorCode } from '../support/sessions.ts';
import { startStack, type TestStack } from '../support/stack.ts';

// A clock the test moves (as test/integration/mfa.test.ts): codes are computed for exactly the step the app sees.
let nowMs = Math.floor(Date.now() / 30_000) * 30_000 - 120_000 + 5_000;
const clock = { now: () => nowMs };

let stack: TestStack;
let m: ReturnType<typeof memberFixtures>;
beforeAll(async () => {
  stack = await startStack({ separateRevocationProxy: true, deps: { clock } });
  m = memberFixtures(stack);
});
afterAll(async () => stack?.close());

let ipCounter = 0;
const freshIp = () => `127.3.${Math.floor(++ipCounter / 250)}.${ipCounter % 250}`;

interface Person {
  userId: string;
  email: string;
  token: string;
  password: string;
}

/** An organisation whose seeded admin has a password (so a policy allowing passwords locks nobody out). */
async function organisation() {
  const org = await stack.seedOrganization();
  const password = `pw-${uuidv7()}`;
  await setPassword(stack.db, org.adminId, password);
  const admin: Person = { userId: org.adminId, email: org.adminEmail, token: org.adminToken, password };
  return { org, admin };
}

async function memberWithPassword(organizationId: string, roleCode: 'OrganizationAdmin' | 'Viewer' = 'Viewer'): Promise<Person> {
  const member = await m.addMember(organizationId, roleCode);
  const password = `pw-${uuidv7()}`;
  await setPassword(stack.db, member.userId, password);
  return { ...member, password };
}

const getPolicy = (organizationId: string, token: string) => stack.request('GET', `/orgs/${organizationId}/sign-in-policy`, { token });
const putPolicy = (organizationId: string, token: string, body: unknown) =>
  stack.request('PUT', `/orgs/${organizationId}/sign-in-policy`, { token, body });

const login = (organizationId: string, person: { email: string; password: string }) =>
  stack.request('POST', '/auth/login', {
    body: { organizationId, email: person.email, password: person.password },
    headers: { [TEST_CLIENT_IP_HEADER]: freshIp() },
  });

async function policyAudit(organizationId: string) {
  const result = await stack.db.query(
    `SELECT actor_user_id, target_id, details FROM audit_events WHERE organization_id = $1 AND action = 'policy.changed' ORDER BY occurred_at, id`,
    [organizationId],
  );
  return result.rows as Array<{ actor_user_id: string; target_id: string; details: Record<string, unknown> }>;
}

async function sessionsOf(userId: string) {
  const result = await stack.db.query('SELECT id, organization_id, method FROM sessions WHERE user_id = $1 ORDER BY created_at', [userId]);
  return result.rows as Array<{ id: string; organization_id: string; method: string }>;
}

const code = (secret: string, offset = 0) => totpCode(base32Decode(secret), totpStep(clock.now()) + offset);

describe('GET and PUT /orgs/{orgId}/sign-in-policy', () => {
  it('reads the default, replaces it, reads the new one back, and audits the change once with before and after', async () => {
    const { org, admin } = await organisation();
    const initial = await getPolicy(org.organizationId, admin.token);
    expect([initial.status, await initial.json()]).toEqual([200, { requireMfa: false, allowedMethods: ['oidc', 'passkey', 'password'] }]);

    const put = await putPolicy(org.organizationId, admin.token, { requireMfa: true, allowedMethods: ['password', 'oidc'] });
    expect([put.status, await put.json()]).toEqual([200, { requireMfa: true, allowedMethods: ['oidc', 'password'] }]);
    expect(await (await getPolicy(org.organizationId, admin.token)).json()).toEqual({
      requireMfa: true,
      allowedMethods: ['oidc', 'password'],
    });
    // The same policy again changes nothing and writes no second row.
    expect((await putPolicy(org.organizationId, admin.token, { requireMfa: true, allowedMethods: ['oidc', 'password'] })).status).toBe(200);

    expect(await policyAudit(org.organizationId)).toEqual([
      {
        actor_user_id: admin.userId,
        target_id: org.organizationId,
        details: {
          policy: 'sign-in',
          beforeRequireMfa: false,
          beforeMethods: 'oidc,passkey,password',
          afterRequireMfa: true,
          afterMethods: 'oidc,password',
        },
      },
    ]);
  });

  it.each([
    ['no method', { requireMfa: false, allowedMethods: [] }],
    ['an unknown method', { requireMfa: false, allowedMethods: ['password', 'sms'] }],
    ['a method twice', { requireMfa: false, allowedMethods: ['password', 'password'] }],
    ['no requireMfa', { allowedMethods: ['password'] }],
    ['another field', { requireMfa: false, allowedMethods: ['password'], allowAll: true }],
  ])('refuses %s 400 VALIDATION_FAILED and changes nothing', async (_, body) => {
    const { org, admin } = await organisation();
    const response = await putPolicy(org.organizationId, admin.token, body);
    expect([response.status, await errorCode(response)]).toEqual([400, 'VALIDATION_FAILED']);
    expect(await (await getPolicy(org.organizationId, admin.token)).json()).toEqual({
      requireMfa: false,
      allowedMethods: ['oidc', 'passkey', 'password'],
    });
    expect(await policyAudit(org.organizationId)).toEqual([]);
  });

  it('refuses a policy no organisation-wide admin could sign in under 400 SIGN_IN_POLICY_LOCKOUT, and writes nothing', async () => {
    const { org, admin } = await organisation();
    // The admin has a password; the organisation lists no OpenID provider; nobody has a passkey.
    for (const allowedMethods of [['oidc'], ['passkey'], ['oidc', 'passkey']]) {
      const response = await putPolicy(org.organizationId, admin.token, { requireMfa: false, allowedMethods });
      expect([allowedMethods, response.status, await errorCode(response)]).toEqual([allowedMethods, 400, 'SIGN_IN_POLICY_LOCKOUT']);
    }
    // A password-holding member who is not an admin does not count; an admin at an Outlet neither.
    await memberWithPassword(org.organizationId, 'Viewer');
    await stack.db.query('UPDATE users SET password_hash = NULL WHERE id = $1', [admin.userId]);
    const noAdmin = await putPolicy(org.organizationId, admin.token, { requireMfa: false, allowedMethods: ['password'] });
    expect([noAdmin.status, await errorCode(noAdmin)]).toEqual([400, 'SIGN_IN_POLICY_LOCKOUT']);
    // With a provider listed, an admin can sign in through it: OpenID alone is accepted.
    await stack.db.query('INSERT INTO oidc_provider_organizations (organization_id, provider_id) VALUES ($1, $2)', [
      org.organizationId,
      'corp',
    ]);
    expect((await putPolicy(org.organizationId, admin.token, { requireMfa: true, allowedMethods: ['oidc'] })).status).toBe(200);
    expect((await policyAudit(org.organizationId)).length).toBe(1);
  });

  it("is an OrganizationAdmin's: a member of the organisation who is not one is refused 403 and changes nothing", async () => {
    const { org } = await organisation();
    const viewer = await memberWithPassword(org.organizationId, 'Viewer');
    for (const response of [
      await getPolicy(org.organizationId, viewer.token),
      await putPolicy(org.organizationId, viewer.token, { requireMfa: true, allowedMethods: ['password'] }),
    ]) {
      expect([response.status, await errorCode(response)]).toEqual([403, 'FORBIDDEN']);
    }
    expect(await policyAudit(org.organizationId)).toEqual([]);
  });

  it("refuses another organisation's admin, and a session of the same user bound to another organisation, spending nothing", async () => {
    const { org } = await organisation();
    const { org: otherOrg, admin: outsider } = await organisation();
    // A member of another organisation only.
    const put = { requireMfa: true, allowedMethods: ['password'] };
    for (const response of [
      await getPolicy(org.organizationId, outsider.token),
      await putPolicy(org.organizationId, outsider.token, put),
    ]) {
      expect([response.status, await errorCode(response)]).toEqual([403, 'FORBIDDEN']);
    }
    // An admin of both, signed in to the other: its session is refused on this organisation's routes at no store's cost.
    await m.grant(outsider.userId, org.organizationId, 'OrganizationAdmin');
    const signedIn = (await (await login(otherOrg.organizationId, outsider)).json()) as { accessToken: string };
    stack.redisProxy.stats.reset();
    stack.neonProxy.stats.reset();
    for (const response of [
      await getPolicy(org.organizationId, signedIn.accessToken),
      await putPolicy(org.organizationId, signedIn.accessToken, put),
    ]) {
      expect([response.status, await errorCode(response)]).toEqual([403, 'FORBIDDEN']);
    }
    expect({ redis: stack.redisProxy.stats.commands, postgres: stack.neonProxy.stats.httpRequests }).toEqual({ redis: 0, postgres: 0 });
    expect(await policyAudit(org.organizationId)).toEqual([]);
    const stored = await stack.db.query('SELECT sign_in_require_mfa, sign_in_methods FROM organizations WHERE id = $1', [
      org.organizationId,
    ]);
    expect(stored.rows[0]).toEqual({ sign_in_require_mfa: false, sign_in_methods: ['password', 'oidc', 'passkey'] });
  });
});

describe('a sign-in method the policy does not allow', () => {
  it('is refused 403 SIGN_IN_METHOD_NOT_ALLOWED from the next sign-in on, before any session exists; a wrong password stays 401', async () => {
    const { org, admin } = await organisation();
    const member = await memberWithPassword(org.organizationId);
    expect((await login(org.organizationId, member)).status).toBe(200);
    // Another admin signs in by OpenID, so forbidding passwords locks no admin out.
    await stack.db.query('INSERT INTO oidc_provider_organizations (organization_id, provider_id) VALUES ($1, $2)', [
      org.organizationId,
      'corp',
    ]);
    expect((await putPolicy(org.organizationId, admin.token, { requireMfa: false, allowedMethods: ['oidc'] })).status).toBe(200);
    const before = await sessionsOf(member.userId);

    const refused = await login(org.organizationId, member);
    expect([refused.status, await errorCode(refused)]).toEqual([403, 'SIGN_IN_METHOD_NOT_ALLOWED']);
    // Told only to whoever has the password: a wrong one is the one answer it always was.
    const wrong = await login(org.organizationId, { email: member.email, password: 'not-the-password' });
    expect([wrong.status, await errorCode(wrong)]).toEqual([401, 'INVALID_CREDENTIALS']);
    expect(await sessionsOf(member.userId)).toEqual(before);

    // And back: allowed again, the next sign-in opens a session.
    expect((await putPolicy(org.organizationId, admin.token, { requireMfa: false, allowedMethods: ['oidc', 'password'] })).status).toBe(
      200,
    );
    expect((await login(org.organizationId, member)).status).toBe(200);
  });

  it('is refused by the session insert itself when the policy changes between the password and the code', async () => {
    const { org, admin } = await organisation();
    const member = await memberWithPassword(org.organizationId);
    // The member enrols TOTP while signed in, the ordinary way.
    const signedIn = (await (await login(org.organizationId, member)).json()) as { accessToken: string };
    const enrolled = await stack.request('POST', '/auth/mfa/enrol', { token: signedIn.accessToken, body: { password: member.password } });
    const { secret } = (await enrolled.json()) as { secret: string };
    expect(
      (await stack.request('POST', '/auth/mfa/enrol/confirm', { token: signedIn.accessToken, body: { code: await code(secret) } })).status,
    ).toBe(200);
    nowMs += 30_000;
    const challenged = (await (await login(org.organizationId, member)).json()) as { status: string; challengeToken: string };
    expect(challenged.status).toBe('mfa-required');
    await stack.db.query('INSERT INTO oidc_provider_organizations (organization_id, provider_id) VALUES ($1, $2)', [
      org.organizationId,
      'corp',
    ]);
    expect((await putPolicy(org.organizationId, admin.token, { requireMfa: false, allowedMethods: ['oidc'] })).status).toBe(200);
    const before = await sessionsOf(member.userId);
    const verified = await stack.request('POST', '/auth/mfa/verify', {
      body: { challengeToken: challenged.challengeToken, code: await code(secret) },
    });
    expect([verified.status, await errorCode(verified)]).toEqual([403, 'SIGN_IN_METHOD_NOT_ALLOWED']);
    expect(await sessionsOf(member.userId)).toEqual(before);
  });

  it('leaves sessions already open alone: they act and refresh until they end', async () => {
    const { org, admin } = await organisation();
    const member = await memberWithPassword(org.organizationId, 'OrganizationAdmin');
    const open = (await (await login(org.organizationId, member)).json()) as { accessToken: string; refreshToken: string };
    expect((await putPolicy(org.organizationId, admin.token, { requireMfa: true, allowedMethods: ['password'] })).status).toBe(200);
    expect((await stack.request('GET', `/orgs/${org.organizationId}/members`, { token: open.accessToken })).status).toBe(200);
    const refreshed = await stack.request('POST', '/auth/refresh', { body: { refreshToken: open.refreshToken } });
    expect(refreshed.status).toBe(200);
    // A new sign-in of the same member meets the policy.
    expect(((await (await login(org.organizationId, member)).json()) as { status: string }).status).toBe('mfa-enrolment-required');
  });
});

describe('MFA required, a member without a second factor', () => {
  async function required() {
    const { org, admin } = await organisation();
    const member = await memberWithPassword(org.organizationId);
    expect((await putPolicy(org.organizationId, admin.token, { requireMfa: true, allowedMethods: ['password'] })).status).toBe(200);
    const response = await login(org.organizationId, member);
    expect(response.status).toBe(200);
    const body = (await response.json()) as { status: string; enrolmentToken: string; expiresInSeconds: number };
    return { org, admin, member, body };
  }

  const enrol = (enrolmentToken: string) => stack.request('POST', '/auth/mfa/enrolment/totp', { body: { enrolmentToken } });
  const confirm = (enrolmentToken: string, totp: string) =>
    stack.request('POST', '/auth/mfa/enrolment/totp/confirm', { body: { enrolmentToken, code: totp } });

  it('signs in to an enrolment token, which enrols TOTP and then opens the session once', async () => {
    const { org, member, body } = await required();
    expect(body).toEqual({ status: 'mfa-enrolment-required', enrolmentToken: expect.stringMatching(/^rse_/), expiresInSeconds: 600 });
    expect(await sessionsOf(member.userId)).toEqual([]);

    const started = await enrol(body.enrolmentToken);
    expect(started.status).toBe(201);
    const { secret } = (await started.json()) as { secret: string };
    // A wrong code changes nothing: the token stays good.
    const wrong = await confirm(body.enrolmentToken, (await code(secret)) === '000000' ? '111111' : '000000');
    expect([wrong.status, await errorCode(wrong)]).toEqual([400, 'MFA_CODE_INVALID']);

    const confirmed = await confirm(body.enrolmentToken, await code(secret));
    expect(confirmed.status).toBe(200);
    const signedIn = (await confirmed.json()) as { status: string; accessToken: string; recoveryCodes: string[]; organizationId: string };
    expect(signedIn.status).toBe('signed-in');
    expect(signedIn.recoveryCodes).toHaveLength(10);
    expect(decodeJwt(signedIn.accessToken).org).toBe(org.organizationId);
    expect((await sessionsOf(member.userId)).map((session) => [session.organization_id, session.method])).toEqual([
      [org.organizationId, 'password+totp'],
    ]);

    // Spent: neither step takes it again.
    for (const response of [await confirm(body.enrolmentToken, await code(secret, 1)), await enrol(body.enrolmentToken)]) {
      expect([response.status, await errorCode(response)]).toEqual([401, 'ENROLMENT_INVALID']);
    }
    // The factor is the member's from now on: the next sign-in asks for a code.
    nowMs += 60_000;
    expect(((await (await login(org.organizationId, member)).json()) as { status: string }).status).toBe('mfa-required');
  });

  it('is never accepted as a bearer token, on any authenticated route', async () => {
    const { org, member, body } = await required();
    const routes = await authenticatedRoutes(stack, { orgId: org.organizationId, userId: member.userId });
    expect(routes.length).toBeGreaterThan(30);
    for (const [method, path] of routes) {
      const response = await stack.request(method, path, { token: body.enrolmentToken, ...(method === 'GET' ? {} : { body: {} }) });
      expect([method, path, response.status, await errorCode(response)]).toEqual([method, path, 401, 'UNAUTHENTICATED']);
    }
    // Nor as an MFA challenge or a refresh token.
    const verify = await stack.request('POST', '/auth/mfa/verify', { body: { challengeToken: body.enrolmentToken, code: '123456' } });
    expect([verify.status, await errorCode(verify)]).toEqual([401, 'MFA_INVALID']);
    const refresh = await stack.request('POST', '/auth/refresh', { body: { refreshToken: body.enrolmentToken } });
    expect([refresh.status, await errorCode(refresh)]).toEqual([401, 'REFRESH_INVALID']);
    // And it is still good for what it is for.
    expect((await enrol(body.enrolmentToken)).status).toBe(201);
  });

  it('refuses a forged or malformed token at one Redis read and no PostgreSQL', async () => {
    const { body } = await required();
    const forged = `${body.enrolmentToken.slice(0, -4)}AAAA`;
    stack.redisProxy.stats.reset();
    stack.neonProxy.stats.reset();
    for (const token of [forged, 'rse_short', 'not-a-token']) {
      const response = await enrol(token);
      expect([response.status, await errorCode(response)]).toEqual([401, 'ENROLMENT_INVALID']);
    }
    expect({ redis: stack.redisProxy.stats.commands, postgres: stack.neonProxy.stats.httpRequests }).toEqual({ redis: 1, postgres: 0 });
  });

  it('expires: the record lives exactly its 600 s', async () => {
    const { member } = await required();
    const keys = await stack.redis.keys(`*:user:{${member.userId}}:mfa:enrolment:*`);
    expect(keys).toHaveLength(1);
    const ttl = await stack.redis.ttl(keys[0]!);
    expect(ttl).toBeGreaterThan(590);
    expect(ttl).toBeLessThanOrEqual(600);
  });

  it('keeps the token, the secret and the codes out of logs, keys and audit rows', async () => {
    const { org, member, body } = await required();
    const started = await enrol(body.enrolmentToken);
    const { secret } = (await started.json()) as { secret: string };
    const confirmed = (await (await confirm(body.enrolmentToken, await code(secret))).json()) as { recoveryCodes: string[] };
    const tokenSecret = body.enrolmentToken.slice(-43);
    const haystacks = [
      stack.logs.join('\n'),
      (await stack.redis.keys(`*${member.userId}*`)).join('\n'),
      JSON.stringify(
        (
          await stack.db.query('SELECT details FROM audit_events WHERE organization_id = $1 OR actor_user_id = $2', [
            org.organizationId,
            member.userId,
          ])
        ).rows,
      ),
    ];
    for (const haystack of haystacks) {
      for (const canary of [body.enrolmentToken, tokenSecret, secret, ...confirmed.recoveryCodes]) expect(haystack).not.toContain(canary);
    }
  });

  it('is not asked of a member who already has a factor: the challenge comes, as before', async () => {
    const { org, admin } = await organisation();
    const member = await memberWithPassword(org.organizationId);
    const signedIn = (await (await login(org.organizationId, member)).json()) as { accessToken: string };
    const enrolled = await stack.request('POST', '/auth/mfa/enrol', { token: signedIn.accessToken, body: { password: member.password } });
    const { secret } = (await enrolled.json()) as { secret: string };
    await stack.request('POST', '/auth/mfa/enrol/confirm', { token: signedIn.accessToken, body: { code: await code(secret) } });
    expect((await putPolicy(org.organizationId, admin.token, { requireMfa: true, allowedMethods: ['password'] })).status).toBe(200);
    expect(((await (await login(org.organizationId, member)).json()) as { status: string }).status).toBe('mfa-required');
  });
});

describe('PUT /auth/context into an organisation whose policy the session does not meet', () => {
  async function switchable(accessToken: string, organizationId: string): Promise<boolean | undefined> {
    const listed = (await (await stack.request('GET', '/auth/memberships', { token: accessToken })).json()) as {
      memberships: Array<{ organizationId: string; switchable: boolean }>;
    };
    return listed.memberships.find((membership) => membership.organizationId === organizationId)?.switchable;
  }

  it('is refused 403 SIGN_IN_REQUIRED and the session stays where it was', async () => {
    const { org: home } = await organisation();
    const { org: target, admin: targetAdmin } = await organisation();
    const person = await memberWithPassword(home.organizationId, 'OrganizationAdmin');
    await m.grant(person.userId, target.organizationId, 'OrganizationAdmin');
    const session = (await (await login(home.organizationId, person)).json()) as { accessToken: string };
    const sessionId = decodeJwt(session.accessToken).sid as string;
    const switchTo = () =>
      stack.request('PUT', '/auth/context', { token: session.accessToken, body: { organizationId: target.organizationId } });

    // A password session, where the target requires MFA.
    expect((await putPolicy(target.organizationId, targetAdmin.token, { requireMfa: true, allowedMethods: ['password'] })).status).toBe(
      200,
    );
    const refused = await switchTo();
    expect([refused.status, await errorCode(refused)]).toEqual([403, 'SIGN_IN_REQUIRED']);
    // The memberships list says so beforehand.
    expect(await switchable(session.accessToken, target.organizationId)).toBe(false);
    // A password session, where the target allows OpenID only.
    await stack.db.query('INSERT INTO oidc_provider_organizations (organization_id, provider_id) VALUES ($1, $2)', [
      target.organizationId,
      'corp',
    ]);
    expect((await putPolicy(target.organizationId, targetAdmin.token, { requireMfa: false, allowedMethods: ['oidc'] })).status).toBe(200);
    const refusedAgain = await switchTo();
    expect([refusedAgain.status, await errorCode(refusedAgain)]).toEqual([403, 'SIGN_IN_REQUIRED']);
    const row = await stack.db.query('SELECT organization_id FROM sessions WHERE id = $1', [sessionId]);
    expect(row.rows[0]).toEqual({ organization_id: home.organizationId });

    // The control: a target whose policy the session meets takes it.
    expect((await putPolicy(target.organizationId, targetAdmin.token, { requireMfa: false, allowedMethods: ['password'] })).status).toBe(
      200,
    );
    expect(await switchable(session.accessToken, target.organizationId)).toBe(true);
    expect((await switchTo()).status).toBe(200);
  });
});
