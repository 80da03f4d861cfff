// MFA recovery: the recovery codes a confirmation hands out (kept as keyed hashes), signing in with one (once, counted
// like a wrong TOTP code when wrong, one winner of a race), replacing them, removing the factor, an operator's reset, and
// the adversaries: a stolen access token cannot enrol, remove or replace without the password and a code, and the codes
// appear nowhere but the two answers meant to show them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uuidv7 } from 'uuidv7';
import { base32Decode, totpCode, totpStep } from '../../lib/crypto/index.ts';
import { throttleWindow } from '../../lib/runtime/throttle/index.ts';
import { TEST_CLIENT_IP_HEADER } from '../../local/stack/app.ts';
import { setPassword } from '../support/fixtures.ts';
import { memberFixtures } from '../support/members.ts';
import { newOperator } from '../support/operators.ts';
import { startStack, type TestStack } from '../support/stack.ts';

// The app's clock, fixed 5 s into a step: codes are computed for exactly the step the app sees. It runs two minutes
// behind the real one, so the tokens minted with the real clock stay within the verifier's lifetime check.
const nowMs = Math.floor(Date.now() / 30_000) * 30_000 - 120_000 + 5_000;
const clock = { now: () => nowMs };
const operator = newOperator('olga');

let stack: TestStack;
beforeAll(async () => {
  stack = await startStack({ separateRevocationProxy: true, deps: { clock }, env: { OPERATOR_TOKEN_HASHES: operator.entry } });
});
afterAll(async () => stack?.close());

type Org = Awaited<ReturnType<TestStack['seedOrganization']>>;
type ErrorBody = { error: { code: string; message: string } };

interface MfaUser {
  org: Org;
  password: string;
  secret: string;
  recoveryCodes: string[];
}

let ipCounter = 0;
const freshIp = () => `127.2.${Math.floor(++ipCounter / 250)}.${ipCounter % 250}`;
const code = (secret: string, offset = 0) => totpCode(base32Decode(secret), totpStep(clock.now()) + offset);
const errorCode = async (response: Response) => ((await response.json()) as ErrorBody).error.code;

async function wrongCode(secret: string): Promise<string> {
  const live = new Set(await Promise.all([-1, 0, 1].map((offset) => code(secret, offset))));
  return ['000000', '111111', '222222', '333333'].find((candidate) => !live.has(candidate))!;
}

/** An admin with a password, a confirmed factor and its ten recovery codes; the confirmation used the current step. */
async function mfaUser(): Promise<MfaUser> {
  const org = await stack.seedOrganization();
  const password = `pw-${uuidv7()}`;
  await setPassword(stack.db, org.adminId, password);
  const enrolled = await stack.request('POST', '/auth/mfa/enrol', { token: org.adminToken, body: { password } });
  expect(enrolled.status).toBe(201);
  const { secret } = (await enrolled.json()) as { secret: string };
  const confirmed = await stack.request('POST', '/auth/mfa/enrol/confirm', { token: org.adminToken, body: { code: await code(secret) } });
  expect(confirmed.status).toBe(200);
  const { recoveryCodes } = (await confirmed.json()) as { recoveryCodes: string[] };
  return { org, password, secret, recoveryCodes };
}

const login = (user: { org: Org; password: string }) =>
  stack.request('POST', '/auth/login', {
    body: { organizationId: user.org.organizationId, email: user.org.adminEmail, password: user.password },
    headers: { [TEST_CLIENT_IP_HEADER]: freshIp() },
  });

async function challengeFor(user: MfaUser): Promise<string> {
  const response = await login(user);
  const body = (await response.json()) as { status: string; challengeToken: string };
  expect(body.status).toBe('mfa-required');
  return body.challengeToken;
}

const recover = (challengeToken: string, recoveryCode: string) =>
  stack.request('POST', '/auth/mfa/recover', { body: { challengeToken, recoveryCode } });

async function expectMfaInvalid(response: Response) {
  expect(response.status).toBe(401);
  expect(await errorCode(response)).toBe('MFA_INVALID');
}

async function expectReauthFailed(response: Response) {
  expect(response.status).toBe(403);
  expect(await errorCode(response)).toBe('REAUTH_FAILED');
}

const count = async (sql: string, params: unknown[]) => (await stack.db.query(sql, params)).rows[0].n as number;
const sessionCount = (userId: string) => count('SELECT count(*)::int AS n FROM sessions WHERE user_id = $1', [userId]);
const unusedCodes = (userId: string) =>
  count('SELECT count(*)::int AS n FROM user_mfa_recovery_codes WHERE user_id = $1 AND used_at IS NULL', [userId]);
const factorCount = (userId: string) => count('SELECT count(*)::int AS n FROM user_mfa WHERE user_id = $1', [userId]);

async function auditOf(userId: string, action: string) {
  return (
    await stack.db.query('SELECT actor_user_id, organization_id, details FROM audit_events WHERE target_id = $1 AND action = $2', [
      userId,
      action,
    ])
  ).rows;
}

async function failureCounter(userId: string) {
  const window = await throttleWindow(stack.deps, { action: 'mfa-verify', scope: { kind: 'user', id: userId }, subject: userId });
  return window.key;
}

describe('recovery codes', () => {
  it('a confirmation answers ten codes, once; PostgreSQL keeps only keyed hashes of them', async () => {
    const user = await mfaUser();
    expect(user.recoveryCodes).toHaveLength(10);
    expect(new Set(user.recoveryCodes).size).toBe(10);
    for (const recoveryCode of user.recoveryCodes) expect(recoveryCode).toMatch(/^[a-z2-7]{5}-[a-z2-7]{5}$/);
    const rows = (await stack.db.query('SELECT * FROM user_mfa_recovery_codes WHERE user_id = $1', [user.org.adminId])).rows;
    expect(rows).toHaveLength(10);
    for (const row of rows) {
      expect(row.code_hash).toMatch(/^[0-9a-f]{64}$/);
      expect(row.used_at).toBeNull();
    }
    const stored = JSON.stringify(rows);
    for (const recoveryCode of user.recoveryCodes) {
      expect(stored).not.toContain(recoveryCode);
      expect(stored).not.toContain(recoveryCode.replace('-', ''));
    }
  });

  it('recover signs in exactly like verify, spends the code, and audits how many remain (never the code)', async () => {
    const user = await mfaUser();
    const token = await challengeFor(user);
    // Case, spaces and the hyphen do not matter.
    const spelled = ` ${user.recoveryCodes[0]!.toUpperCase().replace('-', ' ')} `;
    const response = await recover(token, spelled);
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    const body = (await response.json()) as Record<string, unknown>;
    expect(body).toMatchObject({ status: 'signed-in', userId: user.org.adminId, organizationId: user.org.organizationId });
    expect(Object.keys(body).sort()).toEqual(
      ['accessToken', 'expiresInSeconds', 'organizationId', 'refreshToken', 'sessionExpiresAtUtc', 'status', 'tokenType', 'userId'].sort(),
    );
    const list = await stack.request('GET', `/orgs/${user.org.organizationId}/invites`, { token: body.accessToken as string });
    expect(list.status).toBe(200);
    expect(await sessionCount(user.org.adminId)).toBe(1);
    expect(await unusedCodes(user.org.adminId)).toBe(9);
    expect(await auditOf(user.org.adminId, 'mfa.recovery_code_used')).toEqual([
      { actor_user_id: user.org.adminId, organization_id: user.org.organizationId, details: { recoveryCodesLeft: 9 } },
    ]);
    // The challenge is spent, whichever second factor answered it.
    await expectMfaInvalid(await recover(token, user.recoveryCodes[1]!));
  });

  it('a code used twice: the second use is refused, counted as a wrong code, and opens nothing', async () => {
    const user = await mfaUser();
    expect((await recover(await challengeFor(user), user.recoveryCodes[3]!)).status).toBe(200);
    const second = await challengeFor(user);
    await expectMfaInvalid(await recover(second, user.recoveryCodes[3]!));
    expect(await sessionCount(user.org.adminId)).toBe(1);
    expect(await stack.redis.get(await failureCounter(user.org.adminId))).toBe('1');
    // The challenge lost one try, and another code still works on it.
    expect((await recover(second, user.recoveryCodes[4]!)).status).toBe(200);
    expect(await unusedCodes(user.org.adminId)).toBe(8);
  });

  it('two recovers racing with one code (two challenges): exactly one signs in, the code is spent once', async () => {
    const user = await mfaUser();
    const tokens = await Promise.all(Array.from({ length: 8 }, () => challengeFor(user)));
    const responses = await Promise.all(tokens.map((token) => recover(token, user.recoveryCodes[0]!)));
    const statuses = responses.map((response) => response.status);
    expect(statuses.filter((status) => status === 200)).toHaveLength(1);
    expect(statuses.filter((status) => status === 401)).toHaveLength(7);
    expect(await sessionCount(user.org.adminId)).toBe(1);
    expect(await unusedCodes(user.org.adminId)).toBe(9);
    expect(await auditOf(user.org.adminId, 'mfa.recovery_code_used')).toHaveLength(1);
    expect(
      await count("SELECT count(*)::int AS n FROM audit_events WHERE action = 'session.created' AND actor_user_id = $1", [
        user.org.adminId,
      ]),
    ).toBe(1);
  });

  it('twenty recovers racing on one challenge with one code: exactly one signs in', async () => {
    const user = await mfaUser();
    const token = await challengeFor(user);
    const responses = await Promise.all(Array.from({ length: 20 }, () => recover(token, user.recoveryCodes[5]!)));
    expect(responses.filter((response) => response.status === 200)).toHaveLength(1);
    expect(await sessionCount(user.org.adminId)).toBe(1);
    expect(await unusedCodes(user.org.adminId)).toBe(9);
  });

  it('wrong codes spend the challenge’s tries and the user’s failures that verify counts: the lock holds for both', async () => {
    const user = await mfaUser();
    const first = await challengeFor(user);
    for (const wrong of ['aaaaa-aaaaa', 'not a code', 'bbbbb-bbbbb', 'ccccc-ccccc', 'ddddd-ddddd'])
      await expectMfaInvalid(await recover(first, wrong));
    // The fifth wrong code deleted the challenge: a right code is refused on it.
    await expectMfaInvalid(await recover(first, user.recoveryCodes[0]!));
    const second = await challengeFor(user);
    const wrongTotp = await wrongCode(user.secret);
    for (let i = 0; i < 5; i++) {
      await expectMfaInvalid(await stack.request('POST', '/auth/mfa/verify', { body: { challengeToken: second, code: wrongTotp } }));
    }
    expect(await stack.redis.get(await failureCounter(user.org.adminId))).toBe('10');
    const locked = await recover(await challengeFor(user), user.recoveryCodes[0]!);
    expect(locked.status).toBe(429);
    expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await unusedCodes(user.org.adminId)).toBe(10);
    expect(await sessionCount(user.org.adminId)).toBe(0);
  });

  it("another user's code and bad bodies: the same 401, and 400 for the wrong shape", async () => {
    const [alice, bob] = await Promise.all([mfaUser(), mfaUser()]);
    await expectMfaInvalid(await recover(await challengeFor(alice), bob.recoveryCodes[0]!));
    await expectMfaInvalid(await recover('garbage', alice.recoveryCodes[0]!));
    for (const body of [{ challengeToken: 'x' }, { recoveryCode: 'aaaaa-aaaaa' }, { challengeToken: 'x', recoveryCode: 'y', code: '1' }]) {
      expect((await stack.request('POST', '/auth/mfa/recover', { body })).status).toBe(400);
    }
    expect(await unusedCodes(bob.org.adminId)).toBe(10);
  });

  it('replacing the codes (password and a current code) answers ten new ones; the old ones stop working at once', async () => {
    const user = await mfaUser();
    const response = await stack.request('POST', '/auth/mfa/recovery-codes', {
      token: user.org.adminToken,
      body: { password: user.password, code: await code(user.secret, 1) },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    const { recoveryCodes } = (await response.json()) as { recoveryCodes: string[] };
    expect(recoveryCodes).toHaveLength(10);
    expect(recoveryCodes.filter((fresh) => user.recoveryCodes.includes(fresh))).toEqual([]);
    expect(await unusedCodes(user.org.adminId)).toBe(10);
    const token = await challengeFor(user);
    await expectMfaInvalid(await recover(token, user.recoveryCodes[0]!));
    expect((await recover(token, recoveryCodes[0]!)).status).toBe(200);
    expect(await auditOf(user.org.adminId, 'mfa.recovery_codes_replaced')).toEqual([
      { actor_user_id: user.org.adminId, organization_id: null, details: { factor: 'totp', recoveryCodeCount: 10 } },
    ]);
  });
});

describe('removal', () => {
  it('with the password and a TOTP code: 204, the factor and its codes gone, audited; the next login needs no code', async () => {
    const user = await mfaUser();
    const response = await stack.request('DELETE', '/auth/mfa', {
      token: user.org.adminToken,
      body: { password: user.password, code: await code(user.secret, 1) },
    });
    expect(response.status).toBe(204);
    expect(await factorCount(user.org.adminId)).toBe(0);
    expect(await count('SELECT count(*)::int AS n FROM user_mfa_recovery_codes WHERE user_id = $1', [user.org.adminId])).toBe(0);
    expect(await auditOf(user.org.adminId, 'mfa.removed')).toEqual([
      { actor_user_id: user.org.adminId, organization_id: null, details: { factor: 'totp', proof: 'totp', recoveryCodesLeft: 10 } },
    ]);
    const signedIn = (await (await login(user)).json()) as { status: string };
    expect(signedIn.status).toBe('signed-in');
    // Nothing left to remove.
    const again = await stack.request('DELETE', '/auth/mfa', {
      token: user.org.adminToken,
      body: { password: user.password, code: await code(user.secret, 0) },
    });
    expect(again.status).toBe(404);
  });

  it('with the password and a recovery code (the app is lost): 204, and the user can enrol afresh', async () => {
    const user = await mfaUser();
    const response = await stack.request('DELETE', '/auth/mfa', {
      token: user.org.adminToken,
      body: { password: user.password, recoveryCode: user.recoveryCodes[9]! },
    });
    expect(response.status).toBe(204);
    expect(await factorCount(user.org.adminId)).toBe(0);
    expect((await auditOf(user.org.adminId, 'mfa.removed'))[0].details).toMatchObject({ proof: 'recovery-code' });
    const enrolled = await stack.request('POST', '/auth/mfa/enrol', { token: user.org.adminToken, body: { password: user.password } });
    expect(enrolled.status).toBe(201);
  });

  it('both proofs at once, or neither, is a 400', async () => {
    const user = await mfaUser();
    for (const body of [{ password: user.password, code: '123456', recoveryCode: user.recoveryCodes[0] }, { password: user.password }]) {
      const response = await stack.request('DELETE', '/auth/mfa', { token: user.org.adminToken, body });
      expect(response.status).toBe(400);
    }
    expect(await factorCount(user.org.adminId)).toBe(1);
  });
});

describe('a stolen access token (no password, no code)', () => {
  it('cannot enrol a factor of its own on an account without one', async () => {
    const org = await stack.seedOrganization();
    const password = `pw-${uuidv7()}`;
    await setPassword(stack.db, org.adminId, password);
    for (const body of [{}, { password: 'guess-1' }, { password: password.toUpperCase() }]) {
      await expectReauthFailed(await stack.request('POST', '/auth/mfa/enrol', { token: org.adminToken, body }));
    }
    // No body at all (the route before recovery took none) is no bypass either.
    await expectReauthFailed(await stack.request('POST', '/auth/mfa/enrol', { token: org.adminToken }));
    expect(await factorCount(org.adminId)).toBe(0);
    expect(await auditOf(org.adminId, 'mfa.enrolled')).toEqual([]);
  });

  it('cannot remove the factor or replace the codes: wrong password and wrong code are one answer, nothing changes', async () => {
    const user = await mfaUser();
    const token = user.org.adminToken;
    const rightCode = await code(user.secret, 1);
    const wrongTotp = await wrongCode(user.secret);
    const attempts: Array<[string, string, Record<string, string>]> = [
      ['DELETE', '/auth/mfa', { code: rightCode }],
      ['DELETE', '/auth/mfa', { password: 'guess', code: rightCode }],
      ['DELETE', '/auth/mfa', { password: 'guess', recoveryCode: user.recoveryCodes[0]! }],
      ['DELETE', '/auth/mfa', { password: user.password, code: wrongTotp }],
      ['DELETE', '/auth/mfa', { password: user.password, recoveryCode: 'aaaaa-aaaaa' }],
      ['POST', '/auth/mfa/recovery-codes', { password: 'guess', code: rightCode }],
      ['POST', '/auth/mfa/recovery-codes', { password: user.password, code: wrongTotp }],
      ['POST', '/auth/mfa/enrol', { password: 'guess' }],
    ];
    const bodies = new Set<string>();
    for (const [method, path, body] of attempts) {
      const response = await stack.request(method, path, { token, body });
      expect(response.status, `${method} ${path} ${JSON.stringify(body)}`).toBe(403);
      bodies.add(JSON.stringify(((await response.json()) as ErrorBody).error));
    }
    expect(bodies.size).toBe(1);
    expect([...bodies][0]).toContain('REAUTH_FAILED');
    expect(await factorCount(user.org.adminId)).toBe(1);
    expect(await unusedCodes(user.org.adminId)).toBe(10);
    // A wrong password burned no code: the right code still signs in.
    const challenge = await challengeFor(user);
    expect((await stack.request('POST', '/auth/mfa/verify', { body: { challengeToken: challenge, code: rightCode } })).status).toBe(200);
  });

  it('the password checks are throttled per user: the eleventh in the window (the enrolment was the first) is 429, right password or not', async () => {
    const user = await mfaUser();
    for (let i = 0; i < 9; i++) {
      await expectReauthFailed(
        await stack.request('POST', '/auth/mfa/recovery-codes', {
          token: user.org.adminToken,
          body: { password: `guess-${i}`, code: '123456' },
        }),
      );
    }
    const locked = await stack.request('POST', '/auth/mfa/recovery-codes', {
      token: user.org.adminToken,
      body: { password: user.password, code: await code(user.secret, 1) },
    });
    expect(locked.status).toBe(429);
    expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await unusedCodes(user.org.adminId)).toBe(10);
  });
});

describe('an account without a password (an identity provider’s user)', () => {
  /** An admin without a password, signed in through the provider `local` (which their organisation lists) that long ago. */
  async function passwordlessUser(signedInSecondsAgo: number) {
    const org = await stack.seedOrganization();
    await stack.db.query(`INSERT INTO oidc_provider_organizations (organization_id, provider_id) VALUES ($1, 'local')`, [
      org.organizationId,
    ]);
    const sessionId = uuidv7();
    const signedInAt = new Date(clock.now() - signedInSecondsAgo * 1000);
    await stack.db.query(
      `INSERT INTO sessions (id, user_id, organization_id, created_at, expires_at, last_seen_at, method, provider_id)
       VALUES ($1, $2, $3, $4, $5, $4, 'oidc', 'local')`,
      [sessionId, org.adminId, org.organizationId, signedInAt.toISOString(), new Date(clock.now() + 3_600_000).toISOString()],
    );
    const token = await stack.token({ userId: org.adminId, email: org.adminEmail, sessionId });
    return { org, token };
  }

  /** The user also holds a role in another organisation, which does not list `local`. */
  async function alsoInAnotherOrganization(userId: string) {
    const other = await stack.seedOrganization();
    await memberFixtures(stack).grant(userId, other.organizationId, 'Viewer');
    return other;
  }

  it('enrols with a sign-in of the last 10 minutes, not with an older one or a session this service never opened', async () => {
    const fresh = await passwordlessUser(60);
    expect((await stack.request('POST', '/auth/mfa/enrol', { token: fresh.token, body: {} })).status).toBe(201);
    const stale = await passwordlessUser(11 * 60);
    const refused = await stack.request('POST', '/auth/mfa/enrol', { token: stale.token, body: {} });
    expect(refused.status).toBe(403);
    const error = ((await refused.json()) as ErrorBody).error;
    expect(error.code).toBe('REAUTH_FAILED');
    expect(error.message).toContain('sign in again');
    // The seeded admin's token names a session PostgreSQL does not hold.
    await expectReauthFailed(await stack.request('POST', '/auth/mfa/enrol', { token: stale.org.adminToken, body: {} }));
    expect(await factorCount(stale.org.adminId)).toBe(0);
  });

  it("a provider's sign-in stands in for the password only if every organisation of the user lists the provider", async () => {
    const user = await passwordlessUser(60);
    const other = await alsoInAnotherOrganization(user.org.adminId);
    const refused = await stack.request('POST', '/auth/mfa/enrol', { token: user.token, body: {} });
    expect(refused.status).toBe(403);
    const error = ((await refused.json()) as ErrorBody).error;
    expect(error.code).toBe('REAUTH_FAILED');
    expect(error.message).toContain('does not accept the sign-in this session used');
    expect(await factorCount(user.org.adminId)).toBe(0);
    expect(await auditOf(user.org.adminId, 'mfa.enrolled')).toEqual([]);
    // Listed there too: the same session's sign-in now proves the account.
    await stack.db.query(`INSERT INTO oidc_provider_organizations (organization_id, provider_id) VALUES ($1, 'local')`, [
      other.organizationId,
    ]);
    expect((await stack.request('POST', '/auth/mfa/enrol', { token: user.token, body: {} })).status).toBe(201);
  });

  it('removal too: a factor enrolled while the provider was listed everywhere is not removed once it no longer is', async () => {
    const user = await passwordlessUser(60);
    const enrolled = await stack.request('POST', '/auth/mfa/enrol', { token: user.token, body: {} });
    expect(enrolled.status).toBe(201);
    const { secret } = (await enrolled.json()) as { secret: string };
    const confirm = await stack.request('POST', '/auth/mfa/enrol/confirm', { token: user.token, body: { code: await code(secret) } });
    expect(confirm.status).toBe(200);
    const { recoveryCodes } = (await confirm.json()) as { recoveryCodes: string[] };
    await alsoInAnotherOrganization(user.org.adminId);
    const refused = await stack.request('DELETE', '/auth/mfa', { token: user.token, body: { recoveryCode: recoveryCodes[0]! } });
    expect(refused.status).toBe(403);
    const error = ((await refused.json()) as ErrorBody).error;
    expect(error.code).toBe('REAUTH_FAILED');
    expect(error.message).toContain('does not accept the sign-in this session used');
    expect(await factorCount(user.org.adminId)).toBe(1);
    expect(await unusedCodes(user.org.adminId)).toBe(10);
    expect(await auditOf(user.org.adminId, 'mfa.removed')).toEqual([]);
  });
});

describe('operator reset', () => {
  const reset = (userId: string, authorization?: string) =>
    stack.request('DELETE', `/ops/users/${userId}/mfa`, authorization === undefined ? {} : { headers: { authorization } });

  it('deletes the factor and its codes, audited with the operator; the next login needs no code', async () => {
    const user = await mfaUser();
    const response = await reset(user.org.adminId, `Bearer ${operator.secret}`);
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(await response.json()).toEqual({ userId: user.org.adminId, wasConfirmed: true, recoveryCodesLeft: 10 });
    expect(await factorCount(user.org.adminId)).toBe(0);
    expect(await count('SELECT count(*)::int AS n FROM user_mfa_recovery_codes WHERE user_id = $1', [user.org.adminId])).toBe(0);
    expect(await auditOf(user.org.adminId, 'mfa.reset_by_operator')).toEqual([
      {
        actor_user_id: null,
        organization_id: null,
        details: { operatorId: 'olga', factor: 'totp', wasConfirmed: true, recoveryCodesLeft: 10 },
      },
    ]);
    expect(((await (await login(user)).json()) as { status: string }).status).toBe('signed-in');
    const again = await reset(user.org.adminId, `Bearer ${operator.secret}`);
    expect(again.status).toBe(404);
    expect((await reset(uuidv7(), `Bearer ${operator.secret}`)).status).toBe(404);
  });

  it("refuses a user's own token, no token and another secret with 401; nothing is deleted", async () => {
    const user = await mfaUser();
    for (const authorization of [undefined, `Bearer ${user.org.adminToken}`, `Bearer ${newOperator('mallory').secret}`]) {
      const response = await reset(user.org.adminId, authorization);
      expect(response.status).toBe(401);
    }
    expect(await factorCount(user.org.adminId)).toBe(1);
  });
});

describe('failures', () => {
  it('PostgreSQL down at recover: 503, the code unspent; it signs in once PostgreSQL is back', async () => {
    const user = await mfaUser();
    const token = await challengeFor(user);
    stack.neonProxy.faults.set({ refuse: true });
    let response: Response;
    try {
      response = await recover(token, user.recoveryCodes[0]!);
    } finally {
      stack.neonProxy.faults.clear();
    }
    expect(response.status).toBe(503);
    expect(await unusedCodes(user.org.adminId)).toBe(10);
    expect((await recover(token, user.recoveryCodes[0]!)).status).toBe(200);
  });

  it('Redis refused at recover: 503, nothing spent or counted; the same challenge and code work afterwards', async () => {
    const user = await mfaUser();
    const token = await challengeFor(user);
    stack.redisProxy.faults.set({ refuse: true });
    let response: Response;
    try {
      response = await recover(token, user.recoveryCodes[0]!);
    } finally {
      stack.redisProxy.faults.clear();
    }
    expect(response.status).toBe(503);
    expect(await unusedCodes(user.org.adminId)).toBe(10);
    expect(await sessionCount(user.org.adminId)).toBe(0);
    expect((await recover(token, user.recoveryCodes[0]!)).status).toBe(200);
  });
});

describe('canary', () => {
  async function everythingStored(): Promise<string> {
    const parts: string[] = [];
    for (const key of await stack.redis.keys('*')) {
      parts.push(key);
      if ((await stack.redis.type(key)) === 'string') parts.push((await stack.redis.get(key)) ?? '');
    }
    for (const table of ['users', 'user_mfa', 'user_mfa_recovery_codes', 'sessions', 'refresh_tokens', 'audit_events']) {
      parts.push(JSON.stringify((await stack.db.query(`SELECT * FROM ${table}`)).rows));
    }
    parts.push(...stack.logs);
    return parts.join('\n');
  }

  /** A code as typed, without its hyphen, upper-cased, and URL-encoded. */
  const forms = (recoveryCode: string) => [
    recoveryCode,
    recoveryCode.replace('-', ''),
    recoveryCode.toUpperCase(),
    encodeURIComponent(recoveryCode),
  ];

  it('the scan finds a planted code (positive control)', async () => {
    const planted = 'zz2zz-zz7zz';
    stack.logs.push(JSON.stringify({ event: 'control', value: planted.replace('-', '') }));
    try {
      const haystack = await everythingStored();
      expect(forms(planted).some((form) => haystack.includes(form))).toBe(true);
    } finally {
      stack.logs.pop();
    }
  });

  it('recovery codes and the password appear only in the answers meant to show the codes: never in logs, audit rows, keys or other answers', async () => {
    const org = await stack.seedOrganization();
    const password = `canary-pw-${uuidv7()}`;
    await setPassword(stack.db, org.adminId, password);
    const answers: Array<{ name: string; text: string }> = [];
    const record = async (name: string, response: Response) => {
      answers.push({ name, text: `${JSON.stringify([...response.headers])}\n${await response.clone().text()}` });
      return response;
    };
    const enrolled = await record('enrol', await stack.request('POST', '/auth/mfa/enrol', { token: org.adminToken, body: { password } }));
    const { secret } = (await enrolled.json()) as { secret: string };
    const confirmed = await record(
      'confirm',
      await stack.request('POST', '/auth/mfa/enrol/confirm', { token: org.adminToken, body: { code: await code(secret) } }),
    );
    const first = ((await confirmed.json()) as { recoveryCodes: string[] }).recoveryCodes;
    const user: MfaUser = { org, password, secret, recoveryCodes: first };
    await record('login', await login(user));
    const challenge = await challengeFor(user);
    await record('recover', await recover(challenge, first[0]!));
    await record('recover-again', await recover(await challengeFor(user), first[0]!));
    await record(
      'replace-wrong',
      await stack.request('POST', '/auth/mfa/recovery-codes', { token: org.adminToken, body: { password: 'wrong', code: '123456' } }),
    );
    const replaced = await record(
      'replace',
      await stack.request('POST', '/auth/mfa/recovery-codes', { token: org.adminToken, body: { password, code: await code(secret, 1) } }),
    );
    const second = ((await replaced.json()) as { recoveryCodes: string[] }).recoveryCodes;
    const pending = await challengeFor(user);
    stack.neonProxy.faults.set({ refuse: true });
    try {
      await record('recover-pg-down', await recover(pending, second[1]!));
    } finally {
      stack.neonProxy.faults.clear();
    }
    await record(
      'remove-wrong',
      await stack.request('DELETE', '/auth/mfa', { token: org.adminToken, body: { password: 'wrong', recoveryCode: second[2]! } }),
    );
    await record(
      'remove',
      await stack.request('DELETE', '/auth/mfa', { token: org.adminToken, body: { password, recoveryCode: second[3]! } }),
    );

    const haystack = await everythingStored();
    for (const recoveryCode of [...first, ...second]) {
      for (const form of forms(recoveryCode)) expect(haystack.includes(form), `${recoveryCode} stored or logged`).toBe(false);
    }
    expect(haystack).not.toContain(password);
    for (const { name, text } of answers) {
      for (const recoveryCode of first)
        expect(
          forms(recoveryCode).some((form) => text.includes(form)),
          `${name} ${recoveryCode}`,
        ).toBe(name === 'confirm');
      for (const recoveryCode of second)
        expect(
          forms(recoveryCode).some((form) => text.includes(form)),
          `${name} ${recoveryCode}`,
        ).toBe(name === 'replace');
      expect(text.includes(password), name).toBe(false);
    }
  });
});
