// Redis error replies through the real app and a real Redis (lib/redis/reply-class.ts): a defect of ours (WRONGTYPE
// provoked for real) answers 500 INTERNAL_ERROR with an ERROR log, on fail-open throttles and fail-closed routes alike,
// and never lets a request through; a reply that means the store cannot serve now (READONLY from a real replica) keeps
// each route's fail-open or fail-closed rule, as a store that does not answer does.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redis as IORedis } from 'ioredis';
import { uuidv7 } from 'uuidv7';
import { CORRELATION_HEADER } from '../../lib/http/correlation.ts';
import { RESOLVE_SCOPE } from '../../lib/runtime/tenants/resolve-keys.ts';
import { ipSubject, throttleWindow } from '../../lib/runtime/throttle/index.ts';
import { startRedisServer, type RedisServerHandle } from '../../local/processes/redis-server.ts';
import { TEST_CLIENT_IP_HEADER } from '../../local/stack/app.ts';
import { setPassword } from '../support/fixtures.ts';
import { errorCode, passwordSignIn } from '../support/sessions.ts';
import { startStack, type TestStack } from '../support/stack.ts';

let stack: TestStack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(async () => stack?.close());

let ipCounter = 0;
const freshIp = () => `127.5.${Math.floor(++ipCounter / 250)}.${ipCounter % 250}`;

/** The log lines of one request, by the correlation id its answer carries. */
function linesOf(s: TestStack, response: Response): Array<Record<string, unknown>> {
  const id = response.headers.get(CORRELATION_HEADER);
  return s.logs.map((line) => JSON.parse(line) as Record<string, unknown>).filter((line) => line.correlationId === id);
}

async function expectDefect(s: TestStack, response: Response, operation: string, secrets: string[]) {
  expect(response.status).toBe(500);
  expect(await errorCode(response)).toBe('INTERNAL_ERROR');
  const lines = linesOf(s, response);
  expect(lines).toContainEqual(
    expect.objectContaining({
      level: 'error',
      event: 'request_failed',
      errorKind: 'RedisDefectError',
      replyCode: 'WRONGTYPE',
      cause: operation,
    }),
  );
  // Not read as an outage: no fail-open WARN, no 503.
  expect(lines.filter((line) => /_unavailable$|_degraded$/.test(String(line.event)))).toEqual([]);
  const logged = lines.map((line) => JSON.stringify(line)).join('\n');
  for (const secret of secrets) expect(logged).not.toContain(secret);
}

/** Puts a hash where a string counter or entry lives: every script and command that reads it as a string gets WRONGTYPE. */
async function wrongType(redis: IORedis, key: string) {
  await redis.hset(key, 'wrong', 'type');
  await redis.expire(key, 600);
}

describe('a defect reply (WRONGTYPE, for real)', () => {
  it('at the per-address login throttle: 500 with an ERROR log, never a sign-in let through; the next address signs in', async () => {
    const org = await stack.seedOrganization();
    const password = `pw-${uuidv7()}`;
    await setPassword(stack.db, org.adminId, password);
    const ip = freshIp();
    const window = await throttleWindow(stack.deps, { action: 'login-ip', scope: { kind: 'platform' }, subject: ipSubject(ip) });
    await wrongType(stack.redis, window.key);
    const body = { organizationId: org.organizationId, email: org.adminEmail, password };
    const broken = await stack.request('POST', '/auth/login', { body, headers: { [TEST_CLIENT_IP_HEADER]: ip } });
    await expectDefect(stack, broken, 'throttle.hit', [window.key, password]);
    const sessions = await stack.db.query('SELECT count(*)::int AS n FROM sessions WHERE user_id = $1', [org.adminId]);
    expect(sessions.rows[0].n).toBe(0);
    // The control: the same sign-in from an address whose counter is a counter.
    expect((await stack.request('POST', '/auth/login', { body, headers: { [TEST_CLIENT_IP_HEADER]: freshIp() } })).status).toBe(200);
  });

  it("at the tenant resolve limiter (its own fail-open script): 500, not PostgreSQL's answer without a limit", async () => {
    const ip = freshIp();
    const window = await throttleWindow(stack.deps, { action: 'tenant-resolve', scope: RESOLVE_SCOPE, subject: ipSubject(ip) });
    await wrongType(stack.redis, window.key);
    const slug = `nobody-${uuidv7().slice(-12)}`;
    const broken = await stack.request('GET', `/public/tenants/resolve?slug=${slug}`, { headers: { [TEST_CLIENT_IP_HEADER]: ip } });
    await expectDefect(stack, broken, 'tenants.resolve', [window.key]);
    expect(
      (await stack.request('GET', `/public/tenants/resolve?slug=${slug}`, { headers: { [TEST_CLIENT_IP_HEADER]: freshIp() } })).status,
    ).toBe(404);
  });

  it("at the API rate limiter's counters: 500, never a request let through unlimited, and the process keeps serving", async () => {
    const org = await stack.seedOrganization();
    const session = await (await passwordSignIn(stack, { userId: org.adminId, email: org.adminEmail }))(org.organizationId);
    const before = new Set(await stack.redis.keys('*:ratelimit:counter:*'));
    expect((await stack.request('GET', '/auth/memberships', { token: session.accessToken })).status).toBe(200);
    // The counters this user's first request created (their subjects are hashed, so they are found by what is new).
    const counters = (await stack.redis.keys('*:ratelimit:counter:*')).filter((key) => !before.has(key));
    expect(counters.length).toBeGreaterThan(0);
    for (const key of counters) {
      await stack.redis.del(key);
      await wrongType(stack.redis, key);
    }
    const broken = await stack.request('GET', '/auth/memberships', { token: session.accessToken });
    await expectDefect(stack, broken, 'ratelimit.countUser', [...counters, session.accessToken]);
    for (const key of counters) await stack.redis.del(key);
    expect((await stack.request('GET', '/auth/memberships', { token: session.accessToken })).status).toBe(200);
  });

  it('at a fail-closed read (the active context): 500, not 503 STORE_UNAVAILABLE', async () => {
    const org = await stack.seedOrganization();
    const session = await (await passwordSignIn(stack, { userId: org.adminId, email: org.adminEmail }))(org.organizationId);
    const key = stack.deps.keys.activeContext(org.adminId, session.sessionId);
    await wrongType(stack.redis, key);
    const broken = await stack.request('GET', '/auth/context', { token: session.accessToken });
    expect(broken.status).toBe(500);
    expect(await errorCode(broken)).toBe('INTERNAL_ERROR');
    expect(linesOf(stack, broken)).toContainEqual(
      expect.objectContaining({ level: 'error', errorKind: 'RedisDefectError', replyCode: 'WRONGTYPE' }),
    );
    await stack.redis.del(key);
    expect((await stack.request('GET', '/auth/context', { token: session.accessToken })).status).toBe(404);
  });
});

describe('a store that cannot serve now (READONLY from a real replica)', () => {
  let primary: RedisServerHandle;
  let replica: RedisServerHandle;
  let onReplica: TestStack;
  beforeAll(async () => {
    [primary, replica] = await Promise.all([startRedisServer(), startRedisServer()]);
    // Started on its own Redis first (the stack writes at start), which then becomes a replica of an empty primary:
    // replica-read-only is Redis's default, so every write, a script's included, answers READONLY, and reads still work.
    onReplica = await startStack({ redisUrl: replica.url });
    const admin = new IORedis(replica.url);
    try {
      await admin.replicaof('127.0.0.1', primary.port);
      const deadline = Date.now() + 10_000;
      while (!(await admin.info('replication')).includes('master_link_status:up')) {
        if (Date.now() > deadline) throw new Error('the replica did not sync with its primary within 10 s');
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    } finally {
      admin.disconnect();
    }
  });
  afterAll(async () => {
    await onReplica?.close();
    await Promise.all([replica?.stop(), primary?.stop()]);
  });

  it('keeps the throttles open (sign-in answers, one WARN) and the fail-closed writes closed (503 STORE_UNAVAILABLE)', async () => {
    const org = await onReplica.seedOrganization();
    const password = `pw-${uuidv7()}`;
    await setPassword(onReplica.db, org.adminId, password);
    const login = await onReplica.request('POST', '/auth/login', {
      body: { organizationId: org.organizationId, email: org.adminEmail, password },
      headers: { [TEST_CLIENT_IP_HEADER]: freshIp() },
    });
    expect(login.status).toBe(200);
    expect(linesOf(onReplica, login)).toContainEqual(expect.objectContaining({ level: 'warn', event: 'throttle_unavailable' }));
    expect(linesOf(onReplica, login).filter((line) => line.level === 'error')).toEqual([]);
    const { accessToken } = (await login.json()) as { accessToken: string };
    const set = await onReplica.request('PUT', '/auth/context', { token: accessToken, body: { organizationId: org.organizationId } });
    expect(set.status).toBe(503);
    expect(await errorCode(set)).toBe('STORE_UNAVAILABLE');
    expect(linesOf(onReplica, set).filter((line) => line.errorKind === 'RedisDefectError')).toEqual([]);
  });
});
