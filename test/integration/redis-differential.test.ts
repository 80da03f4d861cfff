// The differential suite: every Redis-facing contract, driven through the real app, runs the same Redis requests against
// a real redis-server and the embedded engine (npm start's default without one), each behind its own REST proxy; the
// answers must agree request by request (a disagreement names the command or script), and afterwards the keyspaces
// must hold the same keys, types and values with TTLs within a second.
import { Redis as IORedis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uuidv7 } from 'uuidv7';
import * as z from 'zod';
import { createDeps } from '../../lib/create-deps.ts';
import { systemClock } from '../../lib/deps.ts';
import { createBudget } from '../../lib/runtime/cron-task/budget.ts';
import { denylistRepairTask } from '../../lib/runtime/revocation/index.ts';
import { runScheduled } from '../../lib/cron/run-scheduled.ts';
import { createJsonLogger } from '../../lib/log/logger.ts';
import { consumeBoundState } from '../../lib/auth/oidc/consume-state.ts';
import { base32Decode, sha256Hex, totpCode, totpStep } from '../../lib/crypto/index.ts';
import { oidcStateSchema, SINGLE_USE_TTL_SECONDS, type SingleUseKind } from '../../lib/keys/index.ts';
import { defineScript, runScript } from '../../lib/redis/index.ts';
import { singleUse } from '../../lib/runtime/single-use/index.ts';
import { startRedisRestProxy, type RedisRestProxy } from '../../local/emulators/upstash/index.ts';
import { startEmbeddedRedis, type EmbeddedRedisHandle } from '../../local/processes/embedded-redis.ts';
import { startRedisServer, type RedisServerHandle } from '../../local/processes/redis-server.ts';
import { createScratchDatabase, DEFAULT_DATABASE_URL, type ScratchDatabase } from '../../local/processes/scratch-database.ts';
import { TEST_CLIENT_IP_HEADER } from '../../local/stack/app.ts';
import { startDifferentialFront, type DifferentialFront } from '../support/differential-front.ts';
import { LIB_SCRIPTS } from '../support/lib-scripts.ts';
import { setPassword } from '../support/fixtures.ts';
import { newOperator } from '../support/operators.ts';
import { testPasskey, type RegistrationOptions } from '../support/passkey-authenticator.ts';
import { freshIp as freshTenantIp, resolve, seedTenant, unique } from '../support/tenants.ts';
import { keyspaceDifferences } from '../support/keyspace-diff.ts';
import { newInvitee, startStack, type TestStack } from '../support/stack.ts';
import { connectFake, sendRotation, startFakeSyrve, storesPath, type FakeSyrve } from '../support/syrve.ts';
import { deliveriesOf, emitRoleChange, seedEndpoint } from '../support/webhook-endpoints.ts';
import { deliver } from '../../lib/events/delivery/deliver.ts';
import { releaseLease, takeLease } from '../../lib/events/delivery/lease.ts';
import { startWebhookReceiver } from '../../local/fakes/index.ts';

// A Redis of its own (a fresh script cache and a keyspace that only this file writes, so both sides start equal) and a
// database of its own (the scheduled tasks visit every organisation in it).
let server: RedisServerHandle;
let embedded: EmbeddedRedisHandle;
let database: ScratchDatabase;
let realProxy: RedisRestProxy;
let embeddedProxy: RedisRestProxy;
let front: DifferentialFront;
let stack: TestStack;
let fake: FakeSyrve;
let realClient: IORedis;
let embeddedClient: IORedis;
const operator = newOperator('differential');
/** The password-reset links the app sent. */
const mail: string[] = [];

beforeAll(async () => {
  server = await startRedisServer();
  embedded = await startEmbeddedRedis({ password: 'differential-suite' });
  database = await createScratchDatabase(process.env.TEST_DATABASE_ADMIN_URL ?? DEFAULT_DATABASE_URL, 'test');
  realProxy = await startRedisRestProxy({ redisUrl: server.url });
  embeddedProxy = await startRedisRestProxy({ redisUrl: embedded.url });
  front = await startDifferentialFront(realProxy, embeddedProxy, LIB_SCRIPTS);
  // The app's main and denylist stores are the front; the stack's own proxy (unused) and inspector face the real Redis.
  stack = await startStack({
    redisUrl: server.url,
    databaseUrl: database.url,
    env: {
      UPSTASH_REDIS_REST_URL: front.url,
      UPSTASH_REDIS_REST_TOKEN: front.token,
      SSO_HANDOFF_AUDIENCES: 'console',
      OPERATOR_TOKEN_HASHES: operator.entry,
      PASSWORD_RESET_LINK_BASE: 'https://app.runstate.test/auth/password-reset',
      INVITE_LINK_BASE: 'https://app.runstate.test/invites/accept',
    },
    deps: { notifier: { send: async (message) => void mail.push(message.text) } },
  });
  fake = await startFakeSyrve();
  realClient = new IORedis(server.url);
  embeddedClient = new IORedis(embedded.url);
}, 60_000);

afterAll(async () => {
  realClient?.disconnect();
  embeddedClient?.disconnect();
  await fake?.close();
  await stack?.close();
  await front?.close();
  await realProxy?.close();
  await embeddedProxy?.close();
  await embedded?.stop();
  await server?.stop();
  await database?.drop();
});

type Org = Awaited<ReturnType<TestStack['seedOrganization']>>;

/** After a contract: no request answered differently, and the two keyspaces agree. */
async function expectAgreement(): Promise<void> {
  expect(front.take()).toEqual([]);
  // Both sides really served every request (the front is no pass-through to one of them).
  expect(realProxy.stats.requests).toBe(front.requests);
  expect(embeddedProxy.stats.requests).toBe(front.requests);
  expect(await keyspaceDifferences(realClient, embeddedClient)).toEqual([]);
}

let ipCounter = 0;
const freshIp = () => `127.2.${Math.floor(++ipCounter / 250)}.${ipCounter % 250}`;

async function status(response: Promise<Response>): Promise<number> {
  const answered = await response;
  await answered.body?.cancel();
  return answered.status;
}

/** Gives the org's admin a password; `login` signs in with it (or another), always from the same fresh address. */
async function signInAs(org: Org): Promise<{ password: string; login: (password?: string) => Promise<Response> }> {
  const password = `pw-${uuidv7()}`;
  await setPassword(stack.db, org.adminId, password);
  const ip = freshIp();
  return {
    password,
    login: (given = password) =>
      stack.request('POST', '/auth/login', {
        body: { organizationId: org.organizationId, email: org.adminEmail, password: given },
        headers: { [TEST_CLIENT_IP_HEADER]: ip },
      }),
  };
}

describe('every Redis-facing contract agrees on the real Redis and the embedded engine', () => {
  it('invites: create, list (email filter, cursor), cancel, resend, accept, accept again, a refused grant given back, a create taken back', async () => {
    const org = await stack.seedOrganization();
    const path = `/orgs/${org.organizationId}/invites`;
    const created: Array<{ invite: { inviteId: string }; token: string }> = [];
    for (let i = 0; i < 3; i += 1) {
      const response = await stack.request('POST', path, {
        token: org.adminToken,
        body: { email: `invitee-${i}-${uuidv7()}@example.test`, roleCode: 'Accountant', locationId: org.locationId },
      });
      expect(response.status).toBe(201);
      created.push((await response.json()) as (typeof created)[number]);
    }
    const first = await stack.request('GET', `${path}?limit=2`, { token: org.adminToken });
    expect(first.status).toBe(200);
    const page = (await first.json()) as { nextCursor: string };
    expect(page.nextCursor).toEqual(expect.any(String));
    expect(await status(stack.request('GET', `${path}?limit=2&cursor=${page.nextCursor}`, { token: org.adminToken }))).toBe(200);
    expect(await status(stack.request('DELETE', `${path}/${created[0]!.invite.inviteId}`, { token: org.adminToken }))).toBe(204);
    // A resend swaps the token and restarts the expiry (invites.resend); a cancelled one is gone.
    expect(await status(stack.request('POST', `${path}/${created[1]!.invite.inviteId}/resend`, { token: org.adminToken }))).toBe(200);
    expect(await status(stack.request('POST', `${path}/${created[0]!.invite.inviteId}/resend`, { token: org.adminToken }))).toBe(404);

    const invitee = newInvitee();
    await stack.db.query('INSERT INTO users (id, email) VALUES ($1, $2)', [invitee.userId, invitee.email]);
    const invited = await stack.request('POST', path, { token: org.adminToken, body: { email: invitee.email, roleCode: 'Viewer' } });
    const { token } = (await invited.json()) as { token: string; invite: { inviteId: string } };
    const newcomer = await stack.token({ userId: invitee.userId, email: invitee.email });
    expect(await status(stack.request('POST', '/invites/accept', { token: newcomer, body: { token } }))).toBe(200);
    expect(await status(stack.request('POST', '/invites/accept', { token: newcomer, body: { token } }))).toBe(200);
    expect(await status(stack.request('GET', `${path}?email=${encodeURIComponent(invitee.email)}`, { token: org.adminToken }))).toBe(200);

    // A newcomer joins through an emailed invite (invites.register), and a repeat after a lost reply finds its receipt.
    const joiner = newInvitee();
    const emailed = await stack.request('POST', path, {
      token: org.adminToken,
      body: { email: joiner.email, roleCode: 'Viewer', delivery: 'email' },
    });
    expect(emailed.status).toBe(201);
    const joinToken = /#token=(\S+)/.exec(mail.filter((text) => text.includes('/invites/accept#token=')).at(-1) ?? '')?.[1];
    const join = { token: joinToken, password: `pw-${uuidv7()}` };
    const joinHeaders = { [TEST_CLIENT_IP_HEADER]: freshIp() };
    expect(await status(stack.request('POST', '/invites/register', { body: join, headers: joinHeaders }))).toBe(201);
    expect(await status(stack.request('POST', '/invites/register', { body: join, headers: joinHeaders }))).toBe(201);

    // A grant refused for good gives the invite back (invites.return): the admin already holds another role at this scope.
    const own = await stack.request('POST', path, {
      token: org.adminToken,
      body: { email: org.adminEmail, roleCode: 'Viewer' },
    });
    const { token: ownToken } = (await own.json()) as { token: string };
    const adminAsInvitee = await stack.token({ userId: org.adminId, email: org.adminEmail });
    expect(await status(stack.request('POST', '/invites/accept', { token: adminAsInvitee, body: { token: ownToken } }))).toBe(409);

    // A create whose audit row fails takes its Redis writes back (invites.remove).
    await stack.db.query(`CREATE OR REPLACE FUNCTION differential_refuse_audit() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF NEW.organization_id = '${org.organizationId}' THEN RAISE EXCEPTION 'audit refused by test'; END IF; RETURN NEW; END $$`);
    await stack.db.query(
      'CREATE TRIGGER differential_refuse_audit BEFORE INSERT ON audit_events FOR EACH ROW EXECUTE FUNCTION differential_refuse_audit()',
    );
    try {
      const refused = stack.request('POST', path, {
        token: org.adminToken,
        body: { email: `refused-${uuidv7()}@example.test`, roleCode: 'Viewer' },
      });
      expect(await status(refused)).toBeGreaterThanOrEqual(500);
    } finally {
      await stack.db.query('DROP TRIGGER differential_refuse_audit ON audit_events');
      await stack.db.query('DROP FUNCTION differential_refuse_audit()');
    }
    await expectAgreement();
  });

  it('api keys: a miss filled from PostgreSQL, a hit counted with the key’s own limit, a scope refused, an unknown key and a revoked one', async () => {
    const org = await stack.seedOrganization();
    const base = `/orgs/${org.organizationId}/api-keys`;
    const created = await stack.request('POST', base, {
      token: org.adminToken,
      body: { name: 'differential', scopes: ['members:read'], rateLimitPerMinute: 3 },
    });
    const { apiKey, key } = (await created.json()) as { apiKey: { apiKeyId: string }; key: string };
    const headers = { [TEST_CLIENT_IP_HEADER]: freshIp() };
    const members = () => status(stack.request('GET', `/orgs/${org.organizationId}/members`, { token: key, headers }));
    expect(await members()).toBe(200);
    expect(await members()).toBe(200);
    expect(await status(stack.request('GET', `/orgs/${org.organizationId}/invites`, { token: key, headers }))).toBe(403);
    expect(await members()).toBe(200);
    expect(await members()).toBe(429);
    const unknown = `rsk_${'Q'.repeat(32)}`;
    const { apiKeyChecksum } = await import('../../lib/auth/api-keys/key-format.ts');
    const madeUp = `${unknown}${apiKeyChecksum('Q'.repeat(32))}`;
    for (let i = 0; i < 2; i += 1) {
      expect(await status(stack.request('GET', `/orgs/${org.organizationId}/members`, { token: madeUp, headers }))).toBe(401);
    }
    expect(await status(stack.request('DELETE', `${base}/${apiKey.apiKeyId}`, { token: org.adminToken }))).toBe(204);
    expect(await members()).toBe(401);
    await expectAgreement();
  });

  it('throttle: wrong passwords from one address until its lock answers 429, then a right one from there is still refused', async () => {
    const org = await stack.seedOrganization();
    const { login } = await signInAs(org);
    const statuses: number[] = [];
    for (let i = 0; i < 11; i += 1) statuses.push(await status(login('wrong-password')));
    expect(statuses.slice(0, 10)).toEqual(Array(10).fill(401));
    expect(statuses[10]).toBe(429);
    expect(await status(login())).toBe(429);
    await expectAgreement();
  });

  it('sessions and the denylist: sign-in, refresh, the active context, logout, sign out everywhere, an admin revoke', async () => {
    const org = await stack.seedOrganization();
    const { login } = await signInAs(org);
    const first = (await (await login()).json()) as { accessToken: string; refreshToken: string };
    const refreshed = await stack.request('POST', '/auth/refresh', { body: { refreshToken: first.refreshToken } });
    expect(refreshed.status).toBe(200);
    const { accessToken } = (await refreshed.json()) as { accessToken: string };
    const context = { organizationId: org.organizationId, locationId: org.locationId };
    expect(await status(stack.request('PUT', '/auth/context', { token: accessToken, body: context }))).toBe(200);
    expect(await status(stack.request('GET', '/auth/context', { token: accessToken }))).toBe(200);
    expect(await status(stack.request('DELETE', '/auth/context', { token: accessToken }))).toBe(204);
    expect(await status(stack.request('POST', '/auth/logout', { token: accessToken }))).toBe(204);
    // The logged-out token is refused through the denylist read.
    expect(await status(stack.request('GET', '/auth/context', { token: accessToken }))).toBe(401);

    const second = (await (await login()).json()) as { accessToken: string };
    await login();
    expect(await status(stack.request('POST', '/auth/sessions/revoke-all', { token: second.accessToken }))).toBe(200);
    expect(await status(stack.request('GET', '/auth/context', { token: second.accessToken }))).toBe(401);

    const member = newInvitee();
    await stack.db.query('INSERT INTO users (id, email) VALUES ($1, $2)', [member.userId, member.email]);
    await stack.db.query('INSERT INTO role_assignments (id, user_id, organization_id, role_code) VALUES ($1, $2, $3, $4)', [
      uuidv7(),
      member.userId,
      org.organizationId,
      'Viewer',
    ]);
    const revoke = `/orgs/${org.organizationId}/members/${member.userId}/sessions/revoke`;
    expect(await status(stack.request('POST', revoke, { token: org.adminToken }))).toBe(200);
    // A run with room for everything first, so the denylist's point has caught up with the revocation clock and the
    // next run goes straight to its walk.
    await denylistRepairTask.run(stack.deps, createBudget({ commands: 10_000, timeMs: 10_000 }, systemClock), {
      correlationId: 'differential',
    });
    // A repair run whose budget ends inside the window (the clock and pass reads, one page of two and its pipeline)
    // saves its pass's position (revocation.save-pass-position).
    const stopped = await denylistRepairTask.run(stack.deps, createBudget({ commands: 6, timeMs: 5_000 }, systemClock), {
      correlationId: 'differential',
    });
    expect(stopped).toMatchObject({ visited: 2, done: false });
    await expectAgreement();
    // A store one revocation behind the clock (a lost newest write): the repair catches up from its point
    // (revocation.catch-up-applied), written through the front so both engines hold the same state.
    const stateKey = stack.deps.keys.denylistState();
    const state = JSON.parse((await stack.deps.redis.retrySafe.get<string>(stateKey)) ?? 'null') as { applied: number } | null;
    expect(state?.applied).toBeGreaterThan(0);
    await stack.deps.redis.retrySafe.set(stateKey, JSON.stringify({ ...state, applied: state!.applied - 1 }), { keepTtl: true });
    const caughtUp = await denylistRepairTask.run(stack.deps, createBudget({ commands: 10_000, timeMs: 10_000 }, systemClock), {
      correlationId: 'differential',
    });
    expect(caughtUp.done).toBe(true);
    expect(JSON.parse((await stack.deps.redis.retrySafe.get<string>(stateKey)) ?? 'null')).toMatchObject({ applied: state!.applied });
    await expectAgreement();
  });

  it("members: contexts set here and elsewhere, member counts cached, an outsider refused and its count given back, a role change, a removal that drops and forgets them, an admin's removal that cancels their invites", async () => {
    const org = await stack.seedOrganization();
    const other = await stack.seedOrganization();
    const member = newInvitee();
    await stack.db.query('INSERT INTO users (id, email) VALUES ($1, $2)', [member.userId, member.email]);
    for (const organizationId of [org.organizationId, other.organizationId]) {
      await stack.db.query('INSERT INTO role_assignments (id, user_id, organization_id, role_code) VALUES ($1, $2, $3, $4)', [
        uuidv7(),
        member.userId,
        organizationId,
        'Viewer',
      ]);
    }
    const here = await stack.token({ userId: member.userId });
    const elsewhere = await stack.token({ userId: member.userId });
    expect(await status(stack.request('PUT', '/auth/context', { token: here, body: { organizationId: org.organizationId } }))).toBe(200);
    expect(await status(stack.request('PUT', '/auth/context', { token: elsewhere, body: { organizationId: other.organizationId } }))).toBe(
      200,
    );
    const admin = { token: org.adminToken };
    expect(await status(stack.request('GET', `/orgs/${org.organizationId}/members/count`, admin))).toBe(200);
    expect(await status(stack.request('GET', `/orgs/${org.organizationId}/members/count?locationId=${org.locationId}`, admin))).toBe(200);
    // Another organisation's admin is refused here, and the tenant gets that count back after the answer.
    expect(await status(stack.request('GET', `/orgs/${org.organizationId}/members/count`, { token: other.adminToken }))).toBe(403);
    await expect.poll(() => [...front.commands.keys()].some((command) => command.endsWith(' ratelimit.refundTenant'))).toBe(true);
    const memberPath = `/orgs/${org.organizationId}/members/${member.userId}`;
    expect(await status(stack.request('PATCH', memberPath, { ...admin, body: { roleCode: 'Accountant' } }))).toBe(200);
    expect(await status(stack.request('DELETE', memberPath, admin))).toBe(204);
    expect(await status(stack.request('GET', '/auth/context', { token: here }))).toBe(404);
    expect(await status(stack.request('GET', '/auth/context', { token: elsewhere }))).toBe(200);
    // An admin's removal cancels the invites they created (invites.cancelByCreator); another admin's stay.
    const inviter = newInvitee();
    await stack.db.query('INSERT INTO users (id, email) VALUES ($1, $2)', [inviter.userId, inviter.email]);
    await stack.db.query('INSERT INTO role_assignments (id, user_id, organization_id, role_code) VALUES ($1, $2, $3, $4)', [
      uuidv7(),
      inviter.userId,
      org.organizationId,
      'OrganizationAdmin',
    ]);
    const inviterToken = await stack.token({ userId: inviter.userId });
    for (const token of [inviterToken, inviterToken, org.adminToken]) {
      const body = { email: newInvitee().email, roleCode: 'Viewer' };
      expect(await status(stack.request('POST', `/orgs/${org.organizationId}/invites`, { token, body }))).toBe(201);
    }
    expect(await status(stack.request('DELETE', `/orgs/${org.organizationId}/members/${inviter.userId}`, admin))).toBe(204);
    await expectAgreement();
  });

  it('MFA: enrol, confirm, the challenge of a login, a wrong code, the right one, the same code again, a recovery code', async () => {
    const org = await stack.seedOrganization();
    const { login, password } = await signInAs(org);
    const enrolled = await stack.request('POST', '/auth/mfa/enrol', { token: org.adminToken, body: { password } });
    expect(enrolled.status).toBe(201);
    const { secret } = (await enrolled.json()) as { secret: string };
    const code = (offset = 0) => totpCode(base32Decode(secret), totpStep(Date.now()) + offset);
    const confirmed = await stack.request('POST', '/auth/mfa/enrol/confirm', { token: org.adminToken, body: { code: await code() } });
    expect(confirmed.status).toBe(200);
    const { recoveryCodes } = (await confirmed.json()) as { recoveryCodes: string[] };
    const challenged = await login();
    expect(challenged.status).toBe(200);
    const { challengeToken } = (await challenged.json()) as { challengeToken: string };
    const live = new Set(await Promise.all([-1, 0, 1].map((offset) => code(offset))));
    const wrong = ['000000', '111111', '222222', '333333'].find((candidate) => !live.has(candidate))!;
    const verify = (totp: string) => stack.request('POST', '/auth/mfa/verify', { body: { challengeToken, code: totp } });
    expect(await status(verify(wrong))).toBe(401);
    // The confirmation spent this step's code: the next step's is the one a user would type.
    const next = await code(1);
    expect(await status(verify(next))).toBe(200);
    const again = await login();
    const { challengeToken: secondChallenge } = (await again.json()) as { challengeToken: string };
    expect(await status(stack.request('POST', '/auth/mfa/verify', { body: { challengeToken: secondChallenge, code: next } }))).toBe(401);
    const recover = (recoveryCode: string) =>
      stack.request('POST', '/auth/mfa/recover', { body: { challengeToken: secondChallenge, recoveryCode } });
    expect(await status(recover('aaaaa-aaaaa'))).toBe(401);
    expect(await status(recover(recoveryCodes[0]!))).toBe(200);
    await expectAgreement();
  });

  it("passkeys and the sign-in policy: a registration, a sign-in, the same assertion again; a required second factor's enrolment token, enrolled and spent", async () => {
    const org = await stack.seedOrganization();
    const { login, password } = await signInAs(org);
    const { accessToken } = (await (await login()).json()) as { accessToken: string };
    const options = await stack.request('POST', '/auth/passkeys/registration/options', { token: accessToken, body: { password } });
    expect(options.status).toBe(200);
    const passkey = await testPasskey();
    const registration = await passkey.register((await options.json()) as RegistrationOptions);
    expect(
      await status(stack.request('POST', '/auth/passkeys/registration/verify', { token: accessToken, body: { response: registration } })),
    ).toBe(201);
    const ip = freshIp();
    const signInOptions = await stack.request('POST', '/auth/passkeys/authentication/options', {
      body: { organizationId: org.organizationId },
      headers: { [TEST_CLIENT_IP_HEADER]: ip },
    });
    const { challenge } = (await signInOptions.json()) as { challenge: string };
    const assertion = await passkey.assert(challenge);
    const verify = () =>
      stack.request('POST', '/auth/passkeys/authentication/verify', {
        body: { organizationId: org.organizationId, response: assertion },
        headers: { [TEST_CLIENT_IP_HEADER]: ip },
      });
    expect(await status(verify())).toBe(200);
    expect(await status(verify())).toBe(400);

    const policy = { requireMfa: true, allowedMethods: ['password', 'passkey'] };
    expect(await status(stack.request('PUT', `/orgs/${org.organizationId}/sign-in-policy`, { token: accessToken, body: policy }))).toBe(
      200,
    );
    const { enrolmentToken } = (await (await login()).json()) as { enrolmentToken: string };
    const started = await stack.request('POST', '/auth/mfa/enrolment/totp', { body: { enrolmentToken } });
    expect(started.status).toBe(201);
    const { secret } = (await started.json()) as { secret: string };
    const confirm = (code: string) => stack.request('POST', '/auth/mfa/enrolment/totp/confirm', { body: { enrolmentToken, code } });
    const code = await totpCode(base32Decode(secret), totpStep(Date.now()));
    expect(await status(confirm(code))).toBe(200);
    expect(await status(confirm(code))).not.toBe(200);
    await expectAgreement();
  });

  it('single-use tokens: issue and consume of every kind, a second consume, a never-issued token; password reset and SSO handoff over HTTP', async () => {
    const valueSchema = z.strictObject({ userId: z.uuid(), correlationId: z.string() });
    for (const kind of Object.keys(SINGLE_USE_TTL_SECONDS) as SingleUseKind[]) {
      const token = await singleUse.issue(stack.deps, kind, valueSchema, { userId: uuidv7(), correlationId: 'differential' });
      const kept = await singleUse.issue(stack.deps, kind, valueSchema, { userId: uuidv7(), correlationId: 'differential' });
      expect(await singleUse.peek(stack.deps, kind, valueSchema, kept)).toMatchObject({ correlationId: 'differential' });
      expect((await singleUse.consume(stack.deps, kind, valueSchema, token)).ok).toBe(true);
      expect((await singleUse.consume(stack.deps, kind, valueSchema, token)).ok).toBe(false);
      expect((await singleUse.consume(stack.deps, kind, valueSchema, `${token.slice(0, -4)}AAAA`)).ok).toBe(false);
    }
    const org = await stack.seedOrganization();
    await signInAs(org);
    const reset = { organizationId: org.organizationId, email: org.adminEmail };
    expect(await status(stack.request('POST', '/auth/password-reset', { body: reset }))).toBe(202);
    // Delivery runs after the answer.
    // The invites contract mails invitations to the same notifier: only a reset link counts here.
    const resetMail = () => mail.filter((text) => text.includes('/auth/password-reset#token='));
    for (let waited = 0; resetMail().length === 0 && waited < 5_000; waited += 50) await new Promise((resolve) => setTimeout(resolve, 50));
    const resetToken = /#token=(\S+)/.exec(resetMail().at(-1) ?? '')?.[1];
    expect(resetToken).toBeDefined();
    const confirm = () =>
      stack.request('POST', '/auth/password-reset/confirm', { body: { token: resetToken, newPassword: `new-${uuidv7()}` } });
    expect(await status(confirm())).toBe(204);
    expect(await status(confirm())).toBe(410);
    const issued = await stack.request('POST', '/auth/handoff', { token: org.adminToken, body: { audience: 'console' } });
    expect(issued.status).toBe(201);
    const { code } = (await issued.json()) as { code: string };
    const exchange = () => stack.request('POST', '/auth/handoff/exchange', { body: { code, audience: 'console' } });
    expect(await status(exchange())).toBe(200);
    expect(await status(exchange())).toBe(401);
    await expectAgreement();
  });

  it('OIDC state: consumed only with its browser binding (another cookie, none, the right one, then spent)', async () => {
    const binding = `binding-${uuidv7()}`;
    const state = await singleUse.issue(stack.deps, 'oidc-state', oidcStateSchema, {
      providerId: 'local',
      organizationId: uuidv7(),
      browserHash: await sha256Hex(binding),
      pkceVerifier: 'v'.repeat(43),
      nonce: 'n'.repeat(43),
      issuedAtUtc: new Date().toISOString(),
      correlationId: 'differential',
    });
    expect((await consumeBoundState(stack.deps, { state, bindingCookie: 'another-browser', clientIp: '127.0.0.1' })).kind).toBe(
      'other-browser',
    );
    expect((await consumeBoundState(stack.deps, { state, bindingCookie: undefined, clientIp: '127.0.0.1' })).kind).toBe('other-browser');
    expect((await consumeBoundState(stack.deps, { state, bindingCookie: binding, clientIp: '127.0.0.1' })).kind).toBe('consumed');
    expect((await consumeBoundState(stack.deps, { state, bindingCookie: binding, clientIp: '127.0.0.1' })).kind).toBe('none');
    await expectAgreement();
  });

  it('Syrve: connect, the runtime state, the first test logs in under the refresh lock, stores from the cached session, a stale 403, refused logins, a rotation', async () => {
    const org = await stack.seedOrganization();
    const connection = await connectFake(stack, org, fake, { login: 'differential', password: 'first-password' });
    const test = `/orgs/${org.organizationId}/syrve/connections/${connection.connectionId}/test`;
    // The runtime read before anything is cached and after the session is (its PTTLs agree within a second).
    const runtime = `/orgs/${org.organizationId}/syrve/connections/${connection.connectionId}/runtime`;
    expect(await status(stack.request('GET', runtime, { token: org.adminToken }))).toBe(200);
    expect(await status(stack.request('POST', test, { token: org.adminToken }))).toBe(200);
    expect(await status(stack.request('GET', runtime, { token: org.adminToken }))).toBe(200);
    expect(await status(stack.request('GET', storesPath(org, connection), { token: org.adminToken }))).toBe(200);
    fake.forbidNext(1);
    expect(await status(stack.request('GET', storesPath(org, connection), { token: org.adminToken }))).toBe(200);
    fake.expireSessions();
    fake.refuseLogins(true);
    const refused = [];
    for (let i = 0; i < 3; i += 1) refused.push(await status(stack.request('GET', storesPath(org, connection), { token: org.adminToken })));
    expect(refused.every((code) => code >= 400)).toBe(true);
    fake.refuseLogins(false);
    fake.setAccount('differential', 'second-password');
    const rotated = await sendRotation(stack, {
      organizationId: org.organizationId,
      connectionId: connection.connectionId,
      login: 'differential',
      password: 'second-password',
    });
    expect(rotated.status).toBe(200);
    await expectAgreement();
  });

  it('the scheduled function: run lock, invite index cleanup and reconciliation, Syrve housekeeping, denylist repair (a clock 4 hours on)', async () => {
    // Invites that the later clock sees expired, beside the ones the earlier contracts left.
    const org = await stack.seedOrganization();
    for (let i = 0; i < 3; i += 1) {
      const response = await stack.request('POST', `/orgs/${org.organizationId}/invites`, {
        token: org.adminToken,
        body: { email: `expiring-${i}-${uuidv7()}@example.test`, roleCode: 'Viewer' },
      });
      expect(response.status).toBe(201);
    }
    const quiet = createJsonLogger(() => undefined);
    const later = createDeps(stack.config, { logger: quiet, clock: { now: () => Date.now() + 4 * 3_600_000 } });
    const first = await runScheduled(later, { trigger: 'cli' });
    expect(first).toMatchObject({ ran: true, failed: [] });
    // A second run right after: the lock's TTL, the cursors and the leftovers as the first run left them.
    expect(await runScheduled(createDeps(stack.config, { logger: quiet }), { trigger: 'cli' })).toMatchObject({ ran: true, failed: [] });
    await expectAgreement();
  });

  it('webhook deliveries: the lease taken and given back around a send after the answer, a held lease skipped', async () => {
    const org = await stack.seedOrganization();
    const hook = await startWebhookReceiver();
    try {
      const endpoint = await seedEndpoint(stack, org.organizationId, hook.url);
      const viewer = uuidv7();
      await stack.db.query('INSERT INTO users (id, email) VALUES ($1, $2)', [viewer, `hooked-${viewer}@example.test`]);
      await stack.db.query("INSERT INTO role_assignments (id, user_id, organization_id, role_code) VALUES ($1, $2, $3, 'Viewer')", [
        uuidv7(),
        viewer,
        org.organizationId,
      ]);
      const changed = await stack.request('PATCH', `/orgs/${org.organizationId}/members/${viewer}`, {
        token: org.adminToken,
        body: { roleCode: 'Accountant' },
      });
      expect(changed.status).toBe(200);
      await expect.poll(async () => (await deliveriesOf(stack, endpoint.endpointId))[0]?.state).toBe('succeeded');
      // Another isolate's lease on a due delivery: this one skips it and leaves the lease as it was.
      await emitRoleChange(stack, org.organizationId, new Date());
      const due = (await deliveriesOf(stack, endpoint.endpointId)).find((row) => row.state === 'pending');
      const held = await takeLease(stack.deps, org.organizationId, due!.id);
      expect(held).toBeDefined();
      const report = await deliver(stack.deps, [{ deliveryId: due!.id, organizationId: org.organizationId }], { correlationId: 'held' });
      expect(report.skipped).toBe(1);
      expect(hook.received).toHaveLength(1);
      expect(await releaseLease(stack.deps, held!)).toBe(true);
    } finally {
      await hook.close();
    }
    await expectAgreement();
  });

  it('tenant resolution: a miss, a hit, an unknown name remembered, a domain, branding and settings read through, an operator suspend and invalidation', async () => {
    const tenant = await seedTenant(stack, { domains: [`${unique('d')}.example.test`] });
    const ip = freshTenantIp();
    expect(await status(resolve(stack, { slug: tenant.slug }, ip))).toBe(200);
    expect(await status(resolve(stack, { slug: tenant.slug }, ip))).toBe(200);
    expect(await status(resolve(stack, { domain: tenant.domains[0] }, ip))).toBe(200);
    expect(await status(resolve(stack, { slug: unique('nobody') }, ip))).toBe(404);
    const admin = { token: tenant.adminToken };
    expect(await status(stack.request('GET', `/orgs/${tenant.organizationId}/settings`, admin))).toBe(200);
    expect(await status(stack.request('GET', `/orgs/${tenant.organizationId}/settings`, admin))).toBe(200);
    expect(await status(stack.request('GET', `/orgs/${tenant.organizationId}/members/count`, admin))).toBe(200);
    expect(
      await status(stack.request('PATCH', `/orgs/${tenant.organizationId}/branding`, { ...admin, body: { primaryColor: '#123456' } })),
    ).toBe(200);
    const asOperator = (path: string, body?: unknown) =>
      stack.request('POST', path, { headers: { authorization: `Bearer ${operator.secret}` }, ...(body !== undefined ? { body } : {}) });
    expect(await status(asOperator(`/ops/tenants/${tenant.organizationId}/suspend`, { reason: 'differential' }))).toBe(200);
    // Suspended is still resolved (the sign-in page says so); its entry was deleted and is read again from PostgreSQL.
    expect(await status(resolve(stack, { slug: tenant.slug }, ip))).toBe(200);
    expect(await status(asOperator(`/ops/tenants/${tenant.organizationId}/cache/invalidate`))).toBe(200);
    await expectAgreement();
  });

  it('errors: a script on a key of the wrong type, a Lua runtime error, an unknown SHA, a command on a missing key', async () => {
    const org = await stack.seedOrganization();
    const index = stack.deps.keys.inviteActiveByOrg(org.organizationId);
    await stack.request('POST', `/orgs/${org.organizationId}/invites`, {
      token: org.adminToken,
      body: { email: `errors-${uuidv7()}@example.test`, roleCode: 'Viewer' },
    });
    // Declared here, after the front learnt lib's scripts, so they are not held to its coverage.
    const onIndex = (name: string, source: string) => defineScript({ name, keys: ['index'], args: [], source });
    const wrongType = onIndex('differential.wrongtype', `local index_key = KEYS[1]\nreturn redis.call('GET', index_key)`);
    const incrJson = onIndex('differential.incr-json', `local index_key = KEYS[1]\nreturn redis.pcall('INCR', index_key)`);
    const nilArithmetic = defineScript({
      name: 'differential.nil-arithmetic',
      keys: [],
      args: ['missing'],
      source: `local missing = ARGV[1]\nreturn tonumber(missing) + 1`,
    });
    const errorReply = defineScript({
      name: 'differential.error-reply',
      keys: [],
      args: [],
      source: `return redis.error_reply('CUSTOM refused on purpose')`,
    });
    const client = stack.deps.redis.retrySafe;
    const runs = [
      () => runScript(client, wrongType, { keys: { index } }),
      // '' is no number: tonumber gives nil, and the sum fails.
      () => runScript(client, nilArithmetic, { args: { missing: '' } }),
      () => runScript(client, errorReply, {}),
      () => runScript(client, incrJson, { keys: { index } }),
    ];
    const errors: string[] = [];
    for (const run of runs) errors.push(await run().then(String, (error: Error) => `error: ${error.message}`));
    expect(errors.filter((line) => line.startsWith('error:'))).toHaveLength(4);
    await stack.deps.redis.retrySafe.evalsha('0'.repeat(40), [], []).catch(() => undefined);
    expect(await stack.deps.redis.retrySafe.get(`differential:missing:${uuidv7()}`)).toBeNull();
    await expectAgreement();
  });
});

describe('coverage', () => {
  it('the contracts above ran every Lua script of the runtime on both sides', () => {
    const ran = new Set([...front.commands.keys()].map((command) => command.replace(/^EVAL(SHA)? /, '')));
    expect(LIB_SCRIPTS.map((script) => script.name).filter((name) => !ran.has(name))).toEqual([]);
  });
});

describe('self-check: the comparison fails when the two sides differ', () => {
  it('a write on the embedded side only is reported: the throttle script answers differently (named), and the key and its TTL differ', async () => {
    const org = await stack.seedOrganization();
    const { login } = await signInAs(org);
    expect(await status(login('wrong-password'))).toBe(401);
    front.take();
    const [counter] = (await realClient.keys('*throttle*')).filter((key) => key.includes(org.organizationId));
    expect(counter).toBeDefined();
    // The broken engine: its copy of the counter is ahead and lives five seconds less.
    await embeddedClient.set(counter!, '7', 'KEEPTTL');
    await embeddedClient.pexpire(counter!, (await embeddedClient.pttl(counter!)) - 5_000);
    expect(await status(login('wrong-password'))).toBe(401);

    const disagreements = front.take();
    expect(disagreements.map((d) => d.command)).toContain('EVALSHA throttle.sign-in-hit');
    const differences = await keyspaceDifferences(realClient, embeddedClient);
    expect(differences).toEqual([
      `${counter} (string): "2" on the real Redis, "8" on the embedded engine`,
      expect.stringMatching(new RegExp(`^${escape(counter!)}: PTTL \\d+ ms on the real Redis, \\d+ ms on the embedded engine$`)),
    ]);
    // Put right, so the comparison agrees again.
    await embeddedClient.del(counter!);
    await realClient.del(counter!);
    expect(await keyspaceDifferences(realClient, embeddedClient)).toEqual([]);
  });
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
