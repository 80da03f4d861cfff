// MFA (TOTP): enrolment and its confirmation, the challenge a login of an MFA user gets instead of tokens, and its
// verification: one winner, five tries, a used code refused, a per-user counter that a new challenge does not reset,
// Redis failing closed, and the secret, the token and the codes nowhere they should not be.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeJwt } from 'jose';
import { uuidv7 } from 'uuidv7';
import { base32Decode, base64urlDecode, base64urlEncode, sha256Hex, totpCode, totpStep } from '../../lib/crypto/index.ts';
import { throttleWindow } from '../../lib/runtime/throttle/index.ts';
import { composeApp, TEST_CLIENT_IP_HEADER } from '../../local/stack/app.ts';
import { createJsonLogger } from '../../lib/log/logger.ts';
import { CROWD_REDIS_TIMEOUT_MS } from '../support/crowd.ts';
import { setPassword } from '../support/fixtures.ts';
import { startStack, type TestStack } from '../support/stack.ts';

// A clock the test moves: codes are computed for exactly the step the app sees, never across a step boundary by chance.
// It starts two minutes behind the real one and moves at most a minute: a token it signs never ends further off than
// the verifier's lifetime allows (it refuses exp − real now > 900 s).
let nowMs = Math.floor(Date.now() / 30_000) * 30_000 - 120_000 + 5_000;
const clock = { now: () => nowMs };

let stack: TestStack;
beforeAll(async () => {
  stack = await startStack({ separateRevocationProxy: true, deps: { clock } });
});
afterAll(async () => stack?.close());

type Org = Awaited<ReturnType<TestStack['seedOrganization']>>;
type ErrorBody = { error: { code: string; message: string } };

interface MfaUser {
  org: Org;
  password: string;
  secret: string;
}

let ipCounter = 0;
const freshIp = () => `127.1.${Math.floor(++ipCounter / 250)}.${ipCounter % 250}`;

/** The code of the step `offset` steps from the app's now. */
function code(secret: string, offset = 0): Promise<string> {
  return totpCode(base32Decode(secret), totpStep(clock.now()) + offset);
}

/** Six digits that are none of the codes the app would accept now. */
async function wrongCode(secret: string): Promise<string> {
  const live = new Set(await Promise.all([-1, 0, 1].map((offset) => code(secret, offset))));
  return ['000000', '111111', '222222', '333333'].find((candidate) => !live.has(candidate))!;
}

const login = (user: MfaUser, ip = freshIp()) =>
  stack.request('POST', '/auth/login', {
    body: { organizationId: user.org.organizationId, email: user.org.adminEmail, password: user.password },
    headers: { [TEST_CLIENT_IP_HEADER]: ip },
  });

const verify = (challengeToken: string, totp: string) =>
  stack.request('POST', '/auth/mfa/verify', { body: { challengeToken, code: totp } });

/** Enrols the org's admin, giving it `password` first (enrolment asks for it). */
async function enrol(org: Org, password = `pw-${uuidv7()}`): Promise<string> {
  await setPassword(stack.db, org.adminId, password);
  const response = await stack.request('POST', '/auth/mfa/enrol', { token: org.adminToken, body: { password } });
  expect(response.status).toBe(201);
  return ((await response.json()) as { secret: string }).secret;
}

/** An admin with a password and a confirmed factor; the confirmation used the code of the current step. */
async function mfaUser(): Promise<MfaUser> {
  const org = await stack.seedOrganization();
  const password = `pw-${uuidv7()}`;
  const secret = await enrol(org, password);
  const confirmed = await stack.request('POST', '/auth/mfa/enrol/confirm', { token: org.adminToken, body: { code: await code(secret) } });
  expect(confirmed.status).toBe(200);
  return { org, password, secret };
}

async function challengeFor(user: MfaUser): Promise<string> {
  const response = await login(user);
  expect(response.status).toBe(200);
  const body = (await response.json()) as { status: string; challengeToken: string };
  expect(body.status).toBe('mfa-required');
  return body.challengeToken;
}

async function expectMfaInvalid(response: Response) {
  expect(response.status).toBe(401);
  expect(((await response.json()) as ErrorBody).error.code).toBe('MFA_INVALID');
}

function challengeKeys(token: string) {
  const bytes = base64urlDecode(token.slice(4));
  const hex = Buffer.from(bytes.subarray(0, 32)).toString('hex');
  const uuid = (h: string) => `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
  const userId = uuid(hex.slice(0, 32));
  const challengeId = uuid(hex.slice(32));
  return {
    userId,
    challenge: stack.deps.keys.mfaChallenge(userId, challengeId),
    sessionState: stack.deps.keys.authSessionState(userId, challengeId),
  };
}

async function failureCounter(userId: string) {
  const window = await throttleWindow(stack.deps, { action: 'mfa-verify', scope: { kind: 'user', id: userId }, subject: userId });
  return window.key;
}

async function sessionCount(userId: string): Promise<number> {
  const result = await stack.db.query('SELECT count(*)::int AS n FROM sessions WHERE user_id = $1', [userId]);
  return result.rows[0].n as number;
}

describe('enrolment', () => {
  it('hands out a secret once, keeps it sealed and pending until a first code confirms it, and audits both steps', async () => {
    const org = await stack.seedOrganization();
    const password = `pw-${uuidv7()}`;
    await setPassword(stack.db, org.adminId, password);
    const response = await stack.request('POST', '/auth/mfa/enrol', { token: org.adminToken, body: { password } });
    expect(response.status).toBe(201);
    expect(response.headers.get('cache-control')).toBe('no-store');
    const { secret, otpauthUri } = (await response.json()) as { secret: string; otpauthUri: string };
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(base32Decode(secret)).toHaveLength(20);
    const uri = new URL(otpauthUri);
    expect(uri.protocol).toBe('otpauth:');
    expect(uri.host).toBe('totp');
    expect(decodeURIComponent(uri.pathname)).toBe(`/runstate:${org.adminEmail}`);
    expect(Object.fromEntries(uri.searchParams)).toEqual({ secret, issuer: 'runstate', algorithm: 'SHA1', digits: '6', period: '30' });

    const row = await stack.db.query('SELECT * FROM user_mfa WHERE user_id = $1', [org.adminId]);
    expect(row.rows[0]).toMatchObject({ confirmed_at: null, secret_key_id: 'test1' });
    expect(JSON.stringify(row.rows[0])).not.toContain(secret);

    const wrong = await stack.request('POST', '/auth/mfa/enrol/confirm', {
      token: org.adminToken,
      body: { code: await wrongCode(secret) },
    });
    expect(wrong.status).toBe(400);
    expect(((await wrong.json()) as ErrorBody).error.code).toBe('MFA_CODE_INVALID');
    const notDigits = await stack.request('POST', '/auth/mfa/enrol/confirm', { token: org.adminToken, body: { code: 'abcdef' } });
    expect(notDigits.status).toBe(400);
    expect(((await notDigits.json()) as ErrorBody).error.code).toBe('MFA_CODE_INVALID');

    const good = await stack.request('POST', '/auth/mfa/enrol/confirm', { token: org.adminToken, body: { code: await code(secret) } });
    expect(good.status).toBe(200);
    expect(good.headers.get('cache-control')).toBe('no-store');
    const { recoveryCodes } = (await good.json()) as { recoveryCodes: string[] };
    expect(recoveryCodes).toHaveLength(10);
    for (const recoveryCode of recoveryCodes) expect(recoveryCode).toMatch(/^[a-z2-7]{5}-[a-z2-7]{5}$/);
    expect(new Set(recoveryCodes).size).toBe(10);
    const confirmed = await stack.db.query('SELECT confirmed_at FROM user_mfa WHERE user_id = $1', [org.adminId]);
    expect(confirmed.rows[0].confirmed_at).toBeInstanceOf(Date);
    const audit = await stack.db.query(
      "SELECT action, details FROM audit_events WHERE actor_user_id = $1 AND action LIKE 'mfa.%' ORDER BY occurred_at, id",
      [org.adminId],
    );
    expect(audit.rows).toEqual([
      { action: 'mfa.enrolled', details: { factor: 'totp' } },
      { action: 'mfa.confirmed', details: { factor: 'totp', recoveryCodeCount: 10 } },
    ]);

    // A confirmed factor is neither confirmed again nor replaced.
    for (const [path, body] of [
      ['/auth/mfa/enrol/confirm', { code: await code(secret, 1) }],
      ['/auth/mfa/enrol', { password }],
    ] as const) {
      const again = await stack.request('POST', path, { token: org.adminToken, body });
      expect(again.status).toBe(409);
      expect(((await again.json()) as ErrorBody).error.code).toBe('MFA_ALREADY_ENROLLED');
    }
    const unchanged = await stack.db.query('SELECT secret_ciphertext FROM user_mfa WHERE user_id = $1', [org.adminId]);
    expect(unchanged.rows[0].secret_ciphertext).toBe(row.rows[0].secret_ciphertext);
  });

  it('a new enrolment before confirmation replaces the pending secret: the old one no longer confirms', async () => {
    const org = await stack.seedOrganization();
    const password = `pw-${uuidv7()}`;
    const first = await enrol(org, password);
    const second = await enrol(org, password);
    expect(second).not.toBe(first);
    const stale = await stack.request('POST', '/auth/mfa/enrol/confirm', { token: org.adminToken, body: { code: await code(first) } });
    if ((await code(first)) !== (await code(second))) expect(stale.status).toBe(400);
    const fresh = await stack.request('POST', '/auth/mfa/enrol/confirm', { token: org.adminToken, body: { code: await code(second, 1) } });
    expect(fresh.status).toBe(200);
  });

  it('needs a token, a pending factor, and an account of this service', async () => {
    expect((await stack.request('POST', '/auth/mfa/enrol', { body: {} })).status).toBe(401);
    const org = await stack.seedOrganization();
    const nothing = await stack.request('POST', '/auth/mfa/enrol/confirm', { token: org.adminToken, body: { code: '123456' } });
    expect(nothing.status).toBe(404);
    const stranger = await stack.token({ userId: uuidv7(), email: 'idp-user@example.test' });
    const refused = await stack.request('POST', '/auth/mfa/enrol', { token: stranger, body: { password: 'anything' } });
    expect(refused.status).toBe(403);
    const bad = await stack.request('POST', '/auth/mfa/enrol/confirm', { token: org.adminToken, body: { code: '123456', extra: 1 } });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as ErrorBody).error.code).toBe('VALIDATION_FAILED');
  });

  it('burns the confirming code: it cannot also sign in', async () => {
    const user = await mfaUser();
    const token = await challengeFor(user);
    await expectMfaInvalid(await verify(token, await code(user.secret)));
    expect((await verify(token, await code(user.secret, 1))).status).toBe(200);
  });
});

describe('sign-in with MFA', () => {
  it('a login of an enrolled user returns a challenge, not tokens; the verification signs in with two Redis requests', async () => {
    const user = await mfaUser();
    const response = await login(user);
    expect(response.status).toBe(200);
    const body = (await response.json()) as Record<string, unknown>;
    expect(Object.keys(body).sort()).toEqual(['challengeToken', 'expiresInSeconds', 'status']);
    expect(body).toMatchObject({ status: 'mfa-required', expiresInSeconds: 300 });
    const token = body.challengeToken as string;
    expect(token).toMatch(/^rsm_[A-Za-z0-9_-]{86}$/);
    expect(await sessionCount(user.org.adminId)).toBe(0);

    const keys = challengeKeys(token);
    expect(keys.userId).toBe(user.org.adminId);
    for (const key of [keys.challenge, keys.sessionState]) {
      const ttl = await stack.redis.ttl(key);
      expect(ttl).toBeGreaterThanOrEqual(299);
      expect(ttl).toBeLessThanOrEqual(300);
    }
    const challenge = JSON.parse((await stack.redis.get(keys.challenge))!) as Record<string, unknown>;
    expect(challenge).toMatchObject({ userId: user.org.adminId, verifier: await sha256Hex(token), attemptsLeft: 5, credentialEpoch: 1 });
    const state = JSON.parse((await stack.redis.get(keys.sessionState))!) as Record<string, unknown>;
    expect(state).toMatchObject({
      organizationId: user.org.organizationId,
      email: user.org.adminEmail,
      sessionStateId: challenge.challengeId,
    });

    stack.redisProxy.stats.reset();
    const totp = await code(user.secret, 1);
    // Real time from before the guard is written: its PTTL runs down in Redis's time, which the test clock does not drive.
    const sentAt = performance.now();
    const verified = await verify(token, totp);
    // The per-address counter and the challenge's read in one pipeline (cheap refusals first), then the answer script;
    // a Redis (on a cluster, the node of this user's slot) that has not yet seen the script costs its text once more.
    expect(stack.redisProxy.stats.requests - stack.redisProxy.stats.noScriptReplies).toBe(2);
    expect(verified.status).toBe(200);
    const tokens = (await verified.json()) as { status: string; accessToken: string; refreshToken: string; organizationId: string };
    expect(tokens.status).toBe('signed-in');
    expect(tokens.organizationId).toBe(user.org.organizationId);
    expect(decodeJwt(tokens.accessToken)).toMatchObject({ sub: user.org.adminId, email: user.org.adminEmail });
    const list = await stack.request('GET', `/orgs/${user.org.organizationId}/invites`, { token: tokens.accessToken });
    expect(list.status).toBe(200);
    const audit = await stack.db.query("SELECT details FROM audit_events WHERE action = 'session.created' AND actor_user_id = $1", [
      user.org.adminId,
    ]);
    expect(audit.rows).toEqual([{ details: { method: 'password+totp' } }]);

    // Consumed: both keys gone, the step burned until it can no longer verify.
    expect(await stack.redis.exists(keys.challenge, keys.sessionState)).toBe(0);
    const guard = stack.deps.keys.mfaTotpUsed(user.org.adminId, totpStep(clock.now()) + 1);
    expect(await stack.redis.get(guard)).toBe('1');
    const guardTtl = await stack.redis.pttl(guard);
    const elapsed = Math.ceil(performance.now() - sentAt);
    // Until (step + 2) × 30 s, plus 30 s of skew: for the next step's code, 5 s into the current step, 115 s, less
    // what has run down since (a fixed 1 s allowance failed on a loaded machine).
    expect(guardTtl).toBeGreaterThanOrEqual(115_000 - elapsed);
    expect(guardTtl).toBeLessThanOrEqual(115_000);
    await expectMfaInvalid(await verify(token, await code(user.secret, 1)));
  });

  it('50 parallel verifications of one challenge with the right code: exactly one signs in', async () => {
    const user = await mfaUser();
    const token = await challengeFor(user);
    const totp = await code(user.secret, 1);
    // Another instance on the same stores and clock, with the crowd's Redis deadline: on a busy machine fifty calls in
    // one process made some losers wait past a production deadline for CPU alone, and answer 503 instead of 401.
    const crowd = composeApp(stack.env, { clock, logger: createJsonLogger(() => undefined), redisTimeoutMs: CROWD_REDIS_TIMEOUT_MS });
    const responses = await Promise.all(
      Array.from({ length: 50 }, () =>
        crowd.request('POST', '/auth/mfa/verify', {
          body: { challengeToken: token, code: totp },
          headers: { [TEST_CLIENT_IP_HEADER]: freshIp() },
        }),
      ),
    );
    const statuses = responses.map((response) => response.status).sort();
    expect(statuses).toEqual([200, ...Array<number>(49).fill(401)]);
    expect(await sessionCount(user.org.adminId)).toBe(1);
    // The losers found no challenge: nothing was counted against the user.
    expect(await stack.redis.get(await failureCounter(user.org.adminId))).toBeNull();
  });

  it('the sixth attempt is refused even with the right code: the fifth wrong code deletes the challenge', async () => {
    const user = await mfaUser();
    const token = await challengeFor(user);
    const keys = challengeKeys(token);
    const wrong = await wrongCode(user.secret);
    for (let attempt = 1; attempt <= 5; attempt++) {
      await expectMfaInvalid(await verify(token, wrong));
      const left = await stack.redis.get(keys.challenge);
      if (attempt < 5) {
        expect(JSON.parse(left!)).toMatchObject({ attemptsLeft: 5 - attempt });
        // A wrong code keeps the challenge's TTL.
        expect(await stack.redis.ttl(keys.challenge)).toBeGreaterThan(290);
      } else {
        expect(left).toBeNull();
        expect(await stack.redis.exists(keys.sessionState)).toBe(0);
      }
    }
    await expectMfaInvalid(await verify(token, await code(user.secret, 1)));
    expect(await sessionCount(user.org.adminId)).toBe(0);
    expect(await stack.redis.get(await failureCounter(user.org.adminId))).toBe('5');
  });

  it('a used code is refused on a fresh challenge; the next step signs in', async () => {
    const user = await mfaUser();
    const totp = await code(user.secret, 1);
    expect((await verify(await challengeFor(user), totp)).status).toBe(200);
    const fresh = await challengeFor(user);
    await expectMfaInvalid(await verify(fresh, totp));
    nowMs += 30_000;
    // Now the used code is of the current step: still refused; the next step's code works on the same challenge.
    await expectMfaInvalid(await verify(fresh, totp));
    expect((await verify(fresh, await code(user.secret, 1))).status).toBe(200);
    expect(await sessionCount(user.org.adminId)).toBe(2);
  });

  it('a new challenge does not reset the per-user failure counter: 10 failures across challenges lock the user (429)', async () => {
    const user = await mfaUser();
    const wrong = await wrongCode(user.secret);
    for (let round = 0; round < 2; round++) {
      const token = await challengeFor(user);
      for (let attempt = 0; attempt < 5; attempt++) await expectMfaInvalid(await verify(token, wrong));
    }
    const counterKey = await failureCounter(user.org.adminId);
    expect(await stack.redis.get(counterKey)).toBe('10');
    const counterTtl = await stack.redis.ttl(counterKey);
    expect(counterTtl).toBeGreaterThan(0);
    expect(counterTtl).toBeLessThanOrEqual(900);

    const third = await challengeFor(user);
    const locked = await verify(third, await code(user.secret, 1));
    expect(locked.status).toBe(429);
    expect(((await locked.json()) as ErrorBody).error.code).toBe('RATE_LIMITED');
    const retryAfter = Number(locked.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(900);
    // The lock spent nothing: the challenge keeps its tries, the code stays unused.
    expect(JSON.parse((await stack.redis.get(challengeKeys(third).challenge))!)).toMatchObject({ attemptsLeft: 5 });
    expect(await stack.redis.exists(stack.deps.keys.mfaTotpUsed(user.org.adminId, totpStep(clock.now()) + 1))).toBe(0);
    expect(await sessionCount(user.org.adminId)).toBe(0);
  });

  it('only a holder of the token spends tries: a forged token with the right ids counts nothing', async () => {
    const user = await mfaUser();
    const token = await challengeFor(user);
    const bytes = base64urlDecode(token.slice(4));
    bytes[40] = bytes[40]! ^ 1;
    const forged = `rsm_${base64urlEncode(bytes)}`;
    for (let i = 0; i < 12; i++) await expectMfaInvalid(await verify(forged, await code(user.secret, 1)));
    expect(await stack.redis.get(await failureCounter(user.org.adminId))).toBeNull();
    expect(JSON.parse((await stack.redis.get(challengeKeys(token).challenge))!)).toMatchObject({ attemptsLeft: 5 });
    expect((await verify(token, await code(user.secret, 1))).status).toBe(200);
  });

  it('gives a failure counter found without a TTL one on the next failure', async () => {
    const user = await mfaUser();
    const counterKey = await failureCounter(user.org.adminId);
    await stack.redis.set(counterKey, '3');
    await expectMfaInvalid(await verify(await challengeFor(user), await wrongCode(user.secret)));
    expect(await stack.redis.get(counterKey)).toBe('4');
    const ttl = await stack.redis.ttl(counterKey);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(900);
  });

  it('answers garbage, unknown and expired challenges with the same 401, and bad bodies with 400', async () => {
    const user = await mfaUser();
    const token = await challengeFor(user);
    const unknown = `rsm_${base64urlEncode(new Uint8Array(64))}`;
    const answers = new Set<string>();
    for (const candidate of ['garbage', unknown, `rsi_${token.slice(4)}`, token.slice(0, -1)]) {
      const response = await verify(candidate, await code(user.secret, 1));
      answers.add(`${response.status} ${await response.text()}`);
    }
    await stack.redis.del(challengeKeys(token).challenge);
    const expired = await verify(token, await code(user.secret, 1));
    answers.add(`${expired.status} ${await expired.text()}`);
    expect([...answers]).toHaveLength(1);
    expect([...answers][0]).toMatch(/^401 .*MFA_INVALID/);
    for (const body of [{ challengeToken: token }, { challengeToken: token, code: '123456', extra: true }, { code: '123456' }]) {
      const response = await stack.request('POST', '/auth/mfa/verify', { body });
      expect(response.status).toBe(400);
    }
  });
});

describe('the OpenAPI document', () => {
  it("describes the login's answer as a union by status, and the MFA routes with their errors", async () => {
    const doc = (await (await stack.request('GET', '/openapi.json')).json()) as {
      paths: Record<string, { post: { responses: Record<string, { content?: Record<string, { schema: Record<string, unknown> }> }> } }>;
    };
    const login = doc.paths['/auth/login']!.post.responses['200']!.content!['application/json']!.schema as {
      oneOf: Array<{ properties: { status: { enum: string[] } } }>;
    };
    expect(login.oneOf.map((variant) => variant.properties.status.enum)).toEqual([
      ['signed-in'],
      ['mfa-required'],
      ['mfa-enrolment-required'],
    ]);
    // 403: TENANT_SUSPENDED, when the login's organisation was suspended after the challenge was issued.
    expect(Object.keys(doc.paths['/auth/mfa/verify']!.post.responses).sort()).toEqual(['200', '400', '401', '403', '429', '500', '503']);
    expect(Object.keys(doc.paths['/auth/mfa/enrol']!.post.responses).sort()).toEqual([
      '201',
      '400',
      '401',
      '403',
      '409',
      '429',
      '500',
      '503',
    ]);
  });
});

describe('failures', () => {
  it('Redis refused: login of an MFA user and the verification answer 503, and nothing is half-written', async () => {
    const user = await mfaUser();
    const token = await challengeFor(user);
    const keys = challengeKeys(token);
    const totp = await code(user.secret, 1);
    stack.redisProxy.faults.set({ refuse: true });
    let loginDuring: Response;
    let verifyDuring: Response;
    try {
      loginDuring = await login(user);
      verifyDuring = await verify(token, totp);
    } finally {
      stack.redisProxy.faults.clear();
    }
    for (const response of [loginDuring, verifyDuring]) {
      expect(response.status).toBe(503);
      expect(response.headers.get('retry-after')).not.toBeNull();
      expect(await response.text()).not.toContain('accessToken');
    }
    expect(JSON.parse((await stack.redis.get(keys.challenge))!)).toMatchObject({ attemptsLeft: 5 });
    expect(await stack.redis.exists(keys.sessionState)).toBe(1);
    expect(await stack.redis.exists(stack.deps.keys.mfaTotpUsed(user.org.adminId, totpStep(clock.now()) + 1))).toBe(0);
    expect(await stack.redis.get(await failureCounter(user.org.adminId))).toBeNull();
    expect(await sessionCount(user.org.adminId)).toBe(0);
    // Back up: the same challenge and code work.
    expect((await verify(token, totp)).status).toBe(200);
  });

  it('Redis past its deadline: 503; the late script spends the challenge and burns the code, and still no session exists', async () => {
    const user = await mfaUser();
    const token = await challengeFor(user);
    const keys = challengeKeys(token);
    const totp = await code(user.secret, 1);
    // The script must be cached: a cold EVALSHA's late NOSCRIPT would mean no EVAL, so nothing landing at all.
    await expectMfaInvalid(await verify(`rsm_${base64urlEncode(new Uint8Array(64))}`, totp));
    // Redis slows down only once the challenge has been read (the counter and the read, one pipeline, then the factor
    // from PostgreSQL, held 600 ms here): the late request is the answer script.
    const before = stack.redisProxy.stats.requests;
    stack.neonProxy.faults.set({ delayMs: 600 });
    let response: Response;
    try {
      const pending = verify(token, totp);
      while (stack.redisProxy.stats.requests < before + 1) await new Promise((resolve) => setTimeout(resolve, 5));
      await new Promise((resolve) => setTimeout(resolve, 150));
      stack.redisProxy.faults.set({ delayMs: 2_600 });
      response = await pending;
    } finally {
      stack.redisProxy.faults.clear();
      stack.neonProxy.faults.clear();
    }
    expect(response.status).toBe(503);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(await stack.redis.exists(keys.challenge, keys.sessionState)).toBe(0);
    expect(await stack.redis.get(stack.deps.keys.mfaTotpUsed(user.org.adminId, totpStep(clock.now()) + 1))).toBe('1');
    expect(await sessionCount(user.org.adminId)).toBe(0);
    await expectMfaInvalid(await verify(token, totp));
    // The user signs in again with the next code.
    expect((await verify(await challengeFor(user), await code(user.secret, 0))).status).toBe(401);
    nowMs += 30_000;
    expect((await verify(await challengeFor(user), await code(user.secret, 1))).status).toBe(200);
  });

  it('Redis refused at confirmation: 503, nothing confirmed and the code not burned; the same code confirms afterwards', async () => {
    const org = await stack.seedOrganization();
    const secret = await enrol(org);
    const totp = await code(secret);
    stack.redisProxy.faults.set({ refuse: true });
    let response: Response;
    try {
      response = await stack.request('POST', '/auth/mfa/enrol/confirm', { token: org.adminToken, body: { code: totp } });
    } finally {
      stack.redisProxy.faults.clear();
    }
    expect(response.status).toBe(503);
    const row = await stack.db.query('SELECT confirmed_at FROM user_mfa WHERE user_id = $1', [org.adminId]);
    expect(row.rows[0].confirmed_at).toBeNull();
    const audit = await stack.db.query(
      "SELECT count(*)::int AS n FROM audit_events WHERE action = 'mfa.confirmed' AND actor_user_id = $1",
      [org.adminId],
    );
    expect(audit.rows[0].n).toBe(0);
    expect((await stack.request('POST', '/auth/mfa/enrol/confirm', { token: org.adminToken, body: { code: totp } })).status).toBe(200);
  });

  it('PostgreSQL down: the verification answers 503 before touching the challenge', async () => {
    const user = await mfaUser();
    const token = await challengeFor(user);
    stack.neonProxy.faults.set({ refuse: true });
    let response: Response;
    try {
      response = await verify(token, await code(user.secret, 1));
    } finally {
      stack.neonProxy.faults.clear();
    }
    expect(response.status).toBe(503);
    expect(JSON.parse((await stack.redis.get(challengeKeys(token).challenge))!)).toMatchObject({ attemptsLeft: 5 });
    expect((await verify(token, await code(user.secret, 1))).status).toBe(200);
  });
});

describe('canary', () => {
  /** Every form a secret could leak in: plain, base64, base64url, URL-encoded, hex. */
  function leakForms(secret: string | Uint8Array): string[] {
    const bytes = typeof secret === 'string' ? new TextEncoder().encode(secret) : secret;
    const base64 = Buffer.from(bytes).toString('base64');
    const forms = [base64, base64.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, ''), Buffer.from(bytes).toString('hex')];
    if (typeof secret === 'string') forms.unshift(secret, encodeURIComponent(secret));
    return forms;
  }

  // A 6-digit code would turn up by chance inside longer numbers, and as the microseconds of any PostgreSQL timestamp
  // (".209991+00"): it counts only standing alone, not after a decimal point.
  // A code stands alone (a JSON string, a key segment); inside a longer digit or hex run (a timestamp's fraction, a
  // UUID of another test's key) it is a coincidence, not a leak.
  const findCode = (haystack: string, totp: string) => new RegExp(`(?<![0-9a-fA-F.])${totp}(?![0-9a-fA-F])`).test(haystack);

  async function everythingStored(): Promise<string> {
    const parts: string[] = [];
    for (const key of await stack.redis.keys('*')) {
      parts.push(key);
      const type = await stack.redis.type(key);
      if (type === 'string') parts.push((await stack.redis.get(key)) ?? '');
      if (type === 'zset') parts.push((await stack.redis.zrange(key, 0, -1, 'WITHSCORES')).join(' '));
    }
    for (const table of ['users', 'user_mfa', 'sessions', 'refresh_tokens', 'audit_events']) {
      parts.push(JSON.stringify((await stack.db.query(`SELECT * FROM ${table}`)).rows));
    }
    parts.push(...stack.logs);
    return parts.join('\n');
  }

  it('the scan finds planted canaries in every store and in the logs (positive control)', async () => {
    const planted = 'JBSWY3DPEHPK3PXPCANARY234567ABCD';
    const plantedBytes = base32Decode(planted);
    await stack.redis.set(`positive-control:${Buffer.from(plantedBytes).toString('hex')}`, planted, 'EX', 60);
    stack.logs.push(JSON.stringify({ event: 'control', code: '987654' }));
    try {
      const haystack = await everythingStored();
      expect(leakForms(planted).some((form) => haystack.includes(form))).toBe(true);
      expect(leakForms(plantedBytes).some((form) => haystack.includes(form))).toBe(true);
      expect(findCode(haystack, '987654')).toBe(true);
      expect(findCode('at 1987654321', '987654')).toBe(false);
      expect(findCode('"2026-12-03T08:40:13.987654+00:00"', '987654')).toBe(false);
      expect(findCode('01a23bd5-041c-7732-9f23-c6987654ee21', '987654')).toBe(false);
    } finally {
      await stack.redis.del(`positive-control:${Buffer.from(plantedBytes).toString('hex')}`);
      stack.logs.pop();
    }
  });

  it('the TOTP secret, the challenge token and the codes appear only in the one response meant to carry each', async () => {
    const org = await stack.seedOrganization();
    const password = `pw-${uuidv7()}`;
    await setPassword(stack.db, org.adminId, password);
    const user: MfaUser = { org, password, secret: '' };
    const responses: Array<{ name: string; text: string }> = [];
    const record = async (name: string, response: Response) => {
      responses.push({ name, text: `${JSON.stringify([...response.headers])}\n${await response.clone().text()}` });
      return response;
    };
    const enrolled = await record('enrol', await stack.request('POST', '/auth/mfa/enrol', { token: org.adminToken, body: { password } }));
    user.secret = ((await enrolled.json()) as { secret: string }).secret;
    const codes = [await wrongCode(user.secret), await code(user.secret), await code(user.secret, 1)];
    await record(
      'confirm-wrong',
      await stack.request('POST', '/auth/mfa/enrol/confirm', { token: org.adminToken, body: { code: codes[0] } }),
    );
    await record('confirm', await stack.request('POST', '/auth/mfa/enrol/confirm', { token: org.adminToken, body: { code: codes[1] } }));
    const loggedIn = await record('login', await login(user));
    const token = ((await loggedIn.json()) as { challengeToken: string }).challengeToken;
    const whileOpen = await everythingStored();
    // The scan reads the challenge's value: what is stored there is the token's hash.
    expect(whileOpen).toContain(await sha256Hex(token));
    await record('verify-wrong', await verify(token, codes[0]!));
    stack.redisProxy.faults.set({ failCommands: ['evalsha', 'eval'] });
    await record('verify-redis-down', await verify(token, codes[2]!));
    stack.redisProxy.faults.clear();
    await record('verify', await verify(token, codes[2]!));
    await record('verify-again', await verify(token, codes[2]!));

    const secrets = [...leakForms(user.secret), ...leakForms(base32Decode(user.secret)), ...leakForms(token)];
    for (const haystack of [whileOpen, await everythingStored()]) {
      expect(secrets.filter((form) => haystack.includes(form))).toEqual([]);
      for (const totp of codes) expect(findCode(haystack, totp!), totp).toBe(false);
    }
    for (const { name, text } of responses) {
      const mayCarrySecret = name === 'enrol';
      const mayCarryToken = name === 'login';
      expect(
        leakForms(user.secret).some((form) => text.includes(form)),
        name,
      ).toBe(mayCarrySecret);
      expect(text.includes(token), name).toBe(mayCarryToken);
      for (const totp of codes) expect(findCode(text, totp!), `${name} ${totp}`).toBe(false);
    }
    const mfaRow = await stack.db.query('SELECT secret_ciphertext FROM user_mfa WHERE user_id = $1', [org.adminId]);
    expect(mfaRow.rows[0].secret_ciphertext).toMatch(/^[A-Za-z0-9_-]+$/);
  });
});
