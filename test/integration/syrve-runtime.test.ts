// GET …/syrve/connections/{id}/runtime: the session cached or not, the refresh lock held or free, the reconnect circuit
// open or closed, read in one Redis round trip, and never the session's value or the password.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { uuidv7 } from 'uuidv7';
import { startStack, type TestStack } from '../support/stack.ts';
import { connectFake, startFakeSyrve, type FakeSyrve } from '../support/syrve.ts';

let stack: TestStack;
let fake: FakeSyrve;
beforeAll(async () => {
  // The denylist behind a proxy of its own: the main proxy's counts and faults are the runtime read's alone.
  stack = await startStack({ separateRevocationProxy: true });
  fake = await startFakeSyrve();
});
afterAll(async () => {
  await fake?.close();
  await stack?.close();
});
beforeEach(() => {
  fake.setDelay(0);
  fake.refuseLogins(false);
  stack.redisProxy.faults.clear();
});

type Org = Awaited<ReturnType<TestStack['seedOrganization']>>;

interface RuntimeState {
  connectionId: string;
  session: { cached: boolean; secondsLeft: number | null };
  refreshLock: { held: boolean; secondsLeft: number | null };
  reconnect: { failures: number; circuitOpen: boolean; secondsLeft: number | null };
}

const password = () => `pw-${uuidv7()}`;
const connectionPath = (org: Org, connectionId: string) => `/orgs/${org.organizationId}/syrve/connections/${connectionId}`;

async function setUp(secret = password()) {
  const org = await stack.seedOrganization();
  const connection = await connectFake(stack, org, fake, { password: secret });
  return { org, connection, path: connectionPath(org, connection.connectionId) };
}

async function runtime(org: Org, path: string): Promise<{ text: string; state: RuntimeState }> {
  const response = await stack.request('GET', `${path}/runtime`, { token: org.adminToken });
  const text = await response.text();
  expect(response.status, text).toBe(200);
  return { text, state: JSON.parse(text) as RuntimeState };
}

const NOTHING = {
  session: { cached: false, secondsLeft: null },
  refreshLock: { held: false, secondsLeft: null },
  reconnect: { failures: 0, circuitOpen: false, secondsLeft: null },
};

describe('the runtime state of a connection', () => {
  it('is empty before the first call, then shows the cached session with its seconds left, in one Redis round trip', async () => {
    const { org, connection, path } = await setUp();
    expect((await runtime(org, path)).state).toEqual({ connectionId: connection.connectionId, ...NOTHING });

    expect((await stack.request('POST', `${path}/test`, { token: org.adminToken })).status).toBe(200);
    stack.redisProxy.stats.reset();
    const { state } = await runtime(org, path);
    // The state's one script, and the API rate limiter's counts beside the revocation check: the organisation's, and
    // (the seeded admin's token carries no org claim) the user's own scope's.
    expect(stack.redisProxy.stats.requests).toBe(3);
    const sessionKey = stack.deps.keys.syrveRuntimeToken(org.organizationId, connection.connectionId);
    const pttl = await stack.redis.pttl(sessionKey);
    expect(state.session.cached).toBe(true);
    // SYRVE_SESSION_CACHE_SECONDS (600) bounds the session; the answer is Redis's own TTL, rounded up.
    expect(state.session.secondsLeft).toBeLessThanOrEqual(600);
    expect(Math.abs(state.session.secondsLeft! - Math.ceil(pttl / 1000))).toBeLessThanOrEqual(1);
    expect(state.refreshLock).toEqual(NOTHING.refreshLock);
    expect(state.reconnect).toEqual(NOTHING.reconnect);
  });

  it('does not count a session of other credentials, or an unreadable one, as cached (the hot path would not use it)', async () => {
    const { org, connection, path } = await setUp();
    expect((await stack.request('POST', `${path}/test`, { token: org.adminToken })).status).toBe(200);
    const sessionKey = stack.deps.keys.syrveRuntimeToken(org.organizationId, connection.connectionId);
    const stored = JSON.parse((await stack.redis.get(sessionKey))!) as { credentialVersion: number };
    await stack.redis.set(sessionKey, JSON.stringify({ ...stored, credentialVersion: stored.credentialVersion + 1 }), 'KEEPTTL');
    expect((await runtime(org, path)).state.session).toEqual({ cached: false, secondsLeft: null });
    await stack.redis.set(sessionKey, 'not json', 'KEEPTTL');
    expect((await runtime(org, path)).state.session).toEqual({ cached: false, secondsLeft: null });
  });

  it('shows the refresh lock held while a login is in flight, and free once it is done', async () => {
    const { org, connection, path } = await setUp();
    fake.setDelay(800);
    const testing = stack.request('POST', `${path}/test`, { token: org.adminToken });
    const lockKey = stack.deps.keys.syrveRuntimeTokenRefreshLock(org.organizationId, connection.connectionId);
    for (let waited = 0; (await stack.redis.exists(lockKey)) === 0 && waited < 5_000; waited += 20) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const during = (await runtime(org, path)).state;
    expect(during.refreshLock.held).toBe(true);
    // The lock's TTL is 15 s (registry row syrveRuntimeTokenRefreshLock).
    expect(during.refreshLock.secondsLeft).toBeGreaterThan(10);
    expect(during.refreshLock.secondsLeft).toBeLessThanOrEqual(15);
    expect(during.session.cached).toBe(false);
    expect((await testing).status).toBe(200);
    const after = (await runtime(org, path)).state;
    expect(after.refreshLock).toEqual({ held: false, secondsLeft: null });
    expect(after.session.cached).toBe(true);
  });

  it('counts failed reconnects, shows the circuit open at 7 with the cooldown left, and closed again after enable', async () => {
    const { org, path } = await setUp();
    fake.refuseLogins(true);
    for (let i = 0; i < 3; i += 1) expect((await stack.request('GET', `${path}/stores`, { token: org.adminToken })).status).toBe(502);
    const closed = (await runtime(org, path)).state.reconnect;
    expect(closed).toMatchObject({ failures: 3, circuitOpen: false });
    // SYRVE_RECONNECT_COOLDOWN_SECONDS (900): every failure sets the counter's TTL again.
    expect(closed.secondsLeft).toBeGreaterThan(890);
    expect(closed.secondsLeft).toBeLessThanOrEqual(900);

    for (let i = 0; i < 4; i += 1) await stack.request('GET', `${path}/stores`, { token: org.adminToken });
    const open = (await runtime(org, path)).state.reconnect;
    expect(open).toMatchObject({ failures: 7, circuitOpen: true });
    expect(open.secondsLeft).toBeGreaterThan(890);
    // The hot path agrees: the next call fails fast without an upstream request.
    fake.resetStats();
    expect((await stack.request('GET', `${path}/stores`, { token: org.adminToken })).status).toBe(502);
    expect(fake.stats().failedLogins).toBe(0);

    fake.refuseLogins(false);
    expect((await stack.request('POST', `${path}/enable`, { token: org.adminToken })).status).toBe(204);
    expect((await runtime(org, path)).state.reconnect).toEqual(NOTHING.reconnect);
  });

  it('canary: no answer carries the session value, the upstream session id or the password', async () => {
    const secret = `canary-password-${uuidv7()}`;
    const { org, connection, path } = await setUp(secret);
    expect((await stack.request('POST', `${path}/test`, { token: org.adminToken })).status).toBe(200);
    fake.setDelay(300);
    await stack.request('DELETE', path, { token: org.adminToken });
    await stack.request('POST', `${path}/enable`, { token: org.adminToken });
    const testing = stack.request('POST', `${path}/test`, { token: org.adminToken });
    const texts = [(await runtime(org, path)).text];
    await testing;
    texts.push((await runtime(org, path)).text);
    const sessionKey = stack.deps.keys.syrveRuntimeToken(org.organizationId, connection.connectionId);
    const stored = (await stack.redis.get(sessionKey))!;
    const { sessionId } = JSON.parse(stored) as { sessionId: string };
    const all = texts.join('\n');
    // Positive control: the last answer is about this very session.
    expect(JSON.parse(texts.at(-1)!)).toMatchObject({ session: { cached: true } });
    for (const value of [stored, sessionId, secret, ...fake.issuedSessions()]) expect(all).not.toContain(value);
  });

  it('answers an unknown connection 404, another organisation admin 403, and 503 when Redis fails', async () => {
    const { org, path } = await setUp();
    const other = await stack.seedOrganization();
    const foreign = await connectFake(stack, other, fake);
    for (const target of [connectionPath(org, uuidv7()), connectionPath(org, foreign.connectionId)]) {
      const response = await stack.request('GET', `${target}/runtime`, { token: org.adminToken });
      expect(response.status).toBe(404);
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe('NOT_FOUND');
    }
    const refused = await stack.request('GET', `${path}/runtime`, { token: other.adminToken });
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('FORBIDDEN');
    stack.redisProxy.faults.set({ refuse: true });
    const down = await stack.request('GET', `${path}/runtime`, { token: org.adminToken });
    expect(down.status).toBe(503);
    expect(((await down.json()) as { error: { code: string } }).error.code).toBe('STORE_UNAVAILABLE');
  });
});
