// The active context: PUT checks the role in PostgreSQL and stores the context for the session's remaining life; GET
// is one Redis round trip beside the revocation check; logout and DELETE drop it; Redis down is 503, never a guess.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uuidv7 } from 'uuidv7';
import { RETRY_AFTER_UNAVAILABLE_SECONDS } from '../../lib/http/error-handler.ts';
import { errorCode, passwordSignIn } from '../support/sessions.ts';
import { newInvitee, startStack, type TestStack } from '../support/stack.ts';

let stack: TestStack;
beforeAll(async () => {
  // Separate stores, so the main proxy counts the context's round trips alone and its faults leave auth working.
  stack = await startStack({ separateRevocationProxy: true });
});
afterAll(async () => stack?.close());

type Org = Awaited<ReturnType<TestStack['seedOrganization']>>;

const put = (token: string, body: unknown) => stack.request('PUT', '/auth/context', { token, body });
const get = (token: string) => stack.request('GET', '/auth/context', { token });

async function addLocation(org: Org): Promise<string> {
  const locationId = uuidv7();
  await stack.db.query('INSERT INTO locations (id, organization_id, name) VALUES ($1, $2, $3)', [locationId, org.organizationId, 'Second']);
  return locationId;
}

async function newUser(grants: Array<{ organizationId: string; locationId: string | null; roleCode: string }>) {
  const user = newInvitee();
  await stack.db.query('INSERT INTO users (id, email) VALUES ($1, $2)', [user.userId, user.email]);
  for (const grant of grants) {
    await stack.db.query(
      'INSERT INTO role_assignments (id, user_id, organization_id, location_id, role_code) VALUES ($1, $2, $3, $4, $5)',
      [uuidv7(), user.userId, grant.organizationId, grant.locationId, grant.roleCode],
    );
  }
  return user;
}

describe('set and read', () => {
  it('PUT stores the context, GET returns it with one main-store round trip beside one revocation check', async () => {
    const org = await stack.seedOrganization();
    const sessionId = uuidv7();
    const token = await stack.token({ userId: org.adminId, sessionId });
    const stored = await put(token, { organizationId: org.organizationId.toUpperCase(), locationId: org.locationId });
    expect(stored.status).toBe(200);
    const { context } = (await stored.json()) as { context: Record<string, unknown> };
    expect(context).toEqual({
      userId: org.adminId,
      organizationId: org.organizationId,
      locationId: org.locationId,
      roleCode: 'OrganizationAdmin',
      setAtUtc: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      correlationId: stored.headers.get('x-correlation-id'),
    });
    stack.redisProxy.stats.reset();
    stack.revocationProxy.stats.reset();
    stack.neonProxy.stats.reset();
    const read = await get(token);
    expect(read.status).toBe(200);
    expect(await read.json()).toEqual({ context });
    // The context read and the rate limiter's count, both beside the check.
    expect(stack.redisProxy.stats.requests).toBe(2);
    expect(stack.revocationProxy.stats.requests).toBe(1);
    expect(stack.neonProxy.stats.httpRequests).toBe(0);
    // Stored under the session, as the registry row says, with nothing of the token in it.
    const raw = await stack.redis.get(stack.deps.keys.activeContext(org.adminId, sessionId));
    expect(raw).not.toBeNull();
    expect(raw).not.toContain(sessionId);
    // Another session of the same user has none of its own.
    expect((await get(await stack.token({ userId: org.adminId }))).status).toBe(404);
  });

  it('the read is sent beside the revocation check: it reaches the main store before the check has run', async () => {
    const org = await stack.seedOrganization();
    const token = await stack.token({ userId: org.adminId });
    expect((await put(token, { organizationId: org.organizationId })).status).toBe(200);
    stack.redisProxy.stats.reset();
    stack.revocationProxy.stats.reset();
    // The revocation proxy holds the check this long before running its commands (and counts them only then).
    stack.revocationProxy.faults.set({ delayMs: 300 });
    try {
      let answered = false;
      const pending = get(token).finally(() => {
        answered = true;
      });
      // Both reach it while the check is held: the context read and the rate limiter's count.
      while (!answered && stack.redisProxy.stats.requests < 2) await new Promise((resolve) => setTimeout(resolve, 2));
      expect(stack.redisProxy.stats.requests).toBe(2);
      expect(stack.revocationProxy.stats.commands).toBe(0);
      expect((await pending).status).toBe(200);
      expect(stack.revocationProxy.stats.commands).toBe(1);
    } finally {
      stack.revocationProxy.faults.clear();
    }
  });

  it("the TTL is the session's remaining life: sessions.expires_at for a signed-in session, the token's end for one without a row", async () => {
    const org = await stack.seedOrganization();
    const signIn = await passwordSignIn(stack, { userId: org.adminId, email: org.adminEmail });
    const signedIn = await signIn(org.organizationId);
    expect((await put(signedIn.accessToken, { organizationId: org.organizationId })).status).toBe(200);
    const sessionTtl = await stack.redis.ttl(stack.deps.keys.activeContext(org.adminId, signedIn.sessionId));
    const row = await stack.db.query('SELECT extract(epoch FROM expires_at - now())::int AS left FROM sessions WHERE id = $1', [
      signedIn.sessionId,
    ]);
    expect(Math.abs(sessionTtl - (row.rows[0].left as number))).toBeLessThanOrEqual(2);
    expect(sessionTtl).toBeGreaterThan(stack.config.signIn.sessionTtlSeconds - 10);
    expect(sessionTtl).toBeLessThanOrEqual(stack.config.signIn.sessionTtlSeconds);

    // A session about to end: the context ends with it, not with the token.
    const ending = await signIn(org.organizationId);
    await stack.db.query("UPDATE sessions SET expires_at = now() + interval '100 seconds' WHERE id = $1", [ending.sessionId]);
    expect((await put(ending.accessToken, { organizationId: org.organizationId })).status).toBe(200);
    const endingTtl = await stack.redis.ttl(stack.deps.keys.activeContext(org.adminId, ending.sessionId));
    expect(Math.abs(endingTtl - 100)).toBeLessThanOrEqual(2);

    // An identity provider's session has no row: its token's remaining life stands in.
    const sessionId = uuidv7();
    const idpToken = await stack.token({ userId: org.adminId, sessionId, expiresInSeconds: 300 });
    expect((await put(idpToken, { organizationId: org.organizationId })).status).toBe(200);
    const idpTtl = await stack.redis.ttl(stack.deps.keys.activeContext(org.adminId, sessionId));
    expect(Math.abs(idpTtl - 300)).toBeLessThanOrEqual(2);
  });

  it('the role hint: the outlet role wins at its outlet; an outlet-only member may choose that outlet, not the whole organisation', async () => {
    const org = await stack.seedOrganization();
    const second = await addLocation(org);
    const both = await newUser([
      { organizationId: org.organizationId, locationId: null, roleCode: 'Viewer' },
      { organizationId: org.organizationId, locationId: second, roleCode: 'Accountant' },
    ]);
    const bothToken = await stack.token({ userId: both.userId });
    const roleAt = async (token: string, body: unknown) => {
      const response = await put(token, body);
      return response.status === 200 ? ((await response.json()) as { context: { roleCode: string } }).context.roleCode : response.status;
    };
    expect(await roleAt(bothToken, { organizationId: org.organizationId })).toBe('Viewer');
    expect(await roleAt(bothToken, { organizationId: org.organizationId, locationId: second })).toBe('Accountant');
    expect(await roleAt(bothToken, { organizationId: org.organizationId, locationId: org.locationId })).toBe('Viewer');

    const outletOnly = await newUser([{ organizationId: org.organizationId, locationId: second, roleCode: 'Accountant' }]);
    const outletToken = await stack.token({ userId: outletOnly.userId });
    expect(await roleAt(outletToken, { organizationId: org.organizationId, locationId: second })).toBe('Accountant');
    expect(await roleAt(outletToken, { organizationId: org.organizationId, locationId: null })).toBe(403);
    expect(await roleAt(outletToken, { organizationId: org.organizationId, locationId: org.locationId })).toBe(403);
  });

  it('refusals: no role there 403, an outlet of another organisation 400, bad bodies 400; nothing stored', async () => {
    const org = await stack.seedOrganization();
    const other = await stack.seedOrganization();
    const sessionId = uuidv7();
    const token = await stack.token({ userId: org.adminId, sessionId });
    const cases: Array<[unknown, number, string]> = [
      [{ organizationId: other.organizationId }, 403, 'FORBIDDEN'],
      [{ organizationId: uuidv7() }, 403, 'FORBIDDEN'],
      [{ organizationId: org.organizationId, locationId: other.locationId }, 400, 'VALIDATION_FAILED'],
      [{ organizationId: 'nope' }, 400, 'VALIDATION_FAILED'],
      [{ organizationId: org.organizationId, roleCode: 'OrganizationAdmin' }, 400, 'VALIDATION_FAILED'],
    ];
    for (const [body, status, code] of cases) {
      const response = await put(token, body);
      expect([response.status, await errorCode(response)], JSON.stringify(body)).toEqual([status, code]);
    }
    expect(await stack.redis.exists(stack.deps.keys.activeContext(org.adminId, sessionId))).toBe(0);
  });

  it('a stored value that fails its schema reads as none', async () => {
    const org = await stack.seedOrganization();
    const sessionId = uuidv7();
    const token = await stack.token({ userId: org.adminId, sessionId });
    const key = stack.deps.keys.activeContext(org.adminId, sessionId);
    for (const value of ['not json', JSON.stringify({ userId: org.adminId, organizationId: org.organizationId, permissions: ['*'] })]) {
      await stack.redis.set(key, value, 'EX', 60);
      expect((await get(token)).status).toBe(404);
    }
  });
});

describe('revoked sessions and resets', () => {
  it('logout deletes the context; DELETE resets it (204, then 404), and a second DELETE is 204 too', async () => {
    const org = await stack.seedOrganization();
    const first = uuidv7();
    const firstToken = await stack.token({ userId: org.adminId, sessionId: first });
    expect((await put(firstToken, { organizationId: org.organizationId })).status).toBe(200);
    expect((await stack.request('POST', '/auth/logout', { token: firstToken })).status).toBe(204);
    expect(await stack.redis.exists(stack.deps.keys.activeContext(org.adminId, first))).toBe(0);

    const second = await stack.token({ userId: org.adminId });
    expect((await put(second, { organizationId: org.organizationId })).status).toBe(200);
    expect((await stack.request('DELETE', '/auth/context', { token: second })).status).toBe(204);
    expect((await get(second)).status).toBe(404);
    expect((await stack.request('DELETE', '/auth/context', { token: second })).status).toBe(204);
  });

  it('a revoked token gets 401 even though its context is still stored, and the read beside the check is not handed out', async () => {
    const org = await stack.seedOrganization();
    const sessionId = uuidv7();
    const token = await stack.token({ userId: org.adminId, sessionId });
    expect((await put(token, { organizationId: org.organizationId })).status).toBe(200);
    // The denylist entry alone, as if another instance revoked it: the context key is still there.
    await stack.redis.set(stack.deps.keys.revokedSession(sessionId), '1', 'EX', 60);
    stack.revocationProxy.faults.set({ delayMs: 200 });
    try {
      for (const method of ['GET', 'PUT', 'DELETE']) {
        const response = await stack.request(method, '/auth/context', {
          token,
          ...(method === 'PUT' ? { body: { organizationId: org.organizationId } } : {}),
        });
        expect([response.status, await errorCode(response)], method).toEqual([401, 'TOKEN_REVOKED']);
      }
    } finally {
      stack.revocationProxy.faults.clear();
    }
    expect(await stack.redis.exists(stack.deps.keys.activeContext(org.adminId, sessionId))).toBe(1);
  });

  it('PUT for a session PostgreSQL holds as revoked is 401, even when its denylist entry is missing', async () => {
    const org = await stack.seedOrganization();
    const sessionId = uuidv7();
    await stack.db.query('INSERT INTO sessions (id, user_id, revoked_at) VALUES ($1, $2, now())', [sessionId, org.adminId]);
    const token = await stack.token({ userId: org.adminId, sessionId });
    const response = await put(token, { organizationId: org.organizationId });
    expect([response.status, await errorCode(response)]).toEqual([401, 'TOKEN_REVOKED']);
    expect(await stack.redis.exists(stack.deps.keys.activeContext(org.adminId, sessionId))).toBe(0);
  });
});

describe('the main store fails', () => {
  it('PUT, GET and DELETE fail closed with 503 STORE_UNAVAILABLE and retry-after; the token check still works', async () => {
    const org = await stack.seedOrganization();
    const token = await stack.token({ userId: org.adminId });
    expect((await put(token, { organizationId: org.organizationId })).status).toBe(200);
    for (const fault of [{ refuse: true }, { failCommands: ['get', 'set', 'del', 'evalsha', 'eval'] }, { delayMs: 2_500 }]) {
      stack.redisProxy.faults.set(fault);
      try {
        for (const method of ['PUT', 'GET', 'DELETE']) {
          const response = await stack.request(method, '/auth/context', {
            token,
            ...(method === 'PUT' ? { body: { organizationId: org.organizationId } } : {}),
          });
          const label = `${JSON.stringify(fault)} ${method}`;
          expect([response.status, await errorCode(response)], label).toEqual([503, 'STORE_UNAVAILABLE']);
          expect(response.headers.get('retry-after'), label).toBe(String(RETRY_AFTER_UNAVAILABLE_SECONDS));
        }
      } finally {
        stack.redisProxy.faults.clear();
      }
    }
    // The slowed DEL and SET still ran late at the proxy; whatever they left, the context answers again.
    expect([200, 404]).toContain((await get(token)).status);
  });
});
