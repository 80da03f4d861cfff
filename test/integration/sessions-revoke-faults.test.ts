// Revocation writes when a store fails: a denylist that cannot answer refuses every authenticated route at the check's
// deadline, not at the store's pace, and lets nothing through; a denylist write that fails (a revocation's one script)
// still answers success, reports exactly the sessions that did not land, logs no session id, and the denylist repair
// writes them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uuidv7 } from 'uuidv7';
import { createBudget } from '../../lib/runtime/cron-task/budget.ts';
import { systemClock } from '../../lib/deps.ts';
import { denylistRepairTask, revokeSessions } from '../../lib/runtime/revocation/index.ts';
import { withoutLimiterKeys } from '../support/limiter-keys.ts';
import { failingDenylistWrites } from '../support/denylist.ts';
import { authenticatedRoutes, errorCode, passwordSignIn } from '../support/sessions.ts';
import { startStack, type TestStack } from '../support/stack.ts';

let stack: TestStack;
beforeAll(async () => {
  // The denylist behind a proxy of its own, so its faults leave the main store (and the context) alone, and back.
  stack = await startStack({ separateRevocationProxy: true });
});
afterAll(async () => stack?.close());

type Org = Awaited<ReturnType<TestStack['seedOrganization']>>;

async function statusOf(token: string): Promise<[number, string | undefined]> {
  const response = await stack.request('GET', `/auth/context`, { token });
  return [response.status, await errorCode(response)];
}

function logLines(event: string): Array<Record<string, unknown>> {
  return stack.logs.map((line) => JSON.parse(line) as Record<string, unknown>).filter((line) => line.event === event);
}

/** The repair task until its window is done (the run's database is shared, so it may find other files' sessions too). */
async function repairDenylist(): Promise<void> {
  for (let run = 0; run < 20; run++) {
    const report = await denylistRepairTask.run(stack.deps, createBudget({ commands: 1_000, timeMs: 5_000 }, systemClock), {
      correlationId: uuidv7(),
    });
    if (report.done) return;
  }
  throw new Error('the denylist repair did not finish its window');
}

/** Three signed-in sessions of the org's admin. */
async function threeSessions(org: Org) {
  const signIn = await passwordSignIn(stack, { userId: org.adminId, email: org.adminEmail });
  return [await signIn(org.organizationId), await signIn(org.organizationId), await signIn(org.organizationId)] as const;
}

describe('the revocation store cannot answer', () => {
  it("every authenticated route answers 503 REVOCATION_UNAVAILABLE at the check's deadline, refused or slowed, and nothing gets through", async () => {
    const org = await stack.seedOrganization();
    const [session] = await threeSessions(org);
    const routes = await authenticatedRoutes(stack, { orgId: org.organizationId, userId: org.adminId });
    const auditBefore = (
      await stack.db.query('SELECT count(*)::int AS n FROM audit_events WHERE actor_user_id = $1 OR organization_id = $2', [
        org.adminId,
        org.organizationId,
      ])
    ).rows[0].n as number;
    const timings: number[] = [];
    const call = async (fault: object, method: string, path: string) => {
      // Bodies that would pass validation where it matters, so a route that let the token through would act.
      const body = method === 'PUT' && path === '/auth/context' ? { organizationId: org.organizationId } : undefined;
      const started = performance.now();
      const response = await stack.request(method, path, { token: session.accessToken, ...(body !== undefined ? { body } : {}) });
      const ms = performance.now() - started;
      timings.push(ms);
      const label = `${JSON.stringify(fault)} ${method} ${path}`;
      expect(response.status, label).toBe(503);
      expect(await errorCode(response), label).toBe('REVOCATION_UNAVAILABLE');
      expect(response.headers.get('retry-after'), label).not.toBeNull();
      // The check gives up at 800 ms; a store slowed to 5 s would hold a route without that deadline at least 5 s. The
      // margin is for a machine busy with other suites (every route is called at once below).
      expect(ms, label).toBeLessThan(2_500);
    };
    for (const fault of [{ refuse: true }, { delayMs: 5_000 }]) {
      stack.revocationProxy.faults.set(fault);
      try {
        // Refused: one after the other. Slowed: all at once, each waiting out the check's 800 ms deadline.
        if ('refuse' in fault) for (const [method, path] of routes) await call(fault, method, path);
        else await Promise.all(routes.map(([method, path]) => call(fault, method, path)));
      } finally {
        stack.revocationProxy.faults.clear();
      }
    }
    // Nothing was revoked, audited, stored or exported.
    expect(
      (
        await stack.db.query('SELECT count(*)::int AS n FROM audit_events WHERE actor_user_id = $1 OR organization_id = $2', [
          org.adminId,
          org.organizationId,
        ])
      ).rows[0].n,
    ).toBe(auditBefore);
    const open = await stack.db.query('SELECT count(*)::int AS n FROM sessions WHERE user_id = $1 AND revoked_at IS NULL', [org.adminId]);
    expect(open.rows[0].n).toBe(3);
    // The rate limiter's counters aside (it counts every authenticated request, refused ones too).
    expect(withoutLimiterKeys(await stack.redis.keys(`*:user:{${org.adminId}}:*`))).toEqual([]);
    // Only sign-in's own throttle counters, from making the sessions.
    const orgKeys = withoutLimiterKeys(await stack.redis.keys(`*:org:{${org.organizationId}}:*`));
    expect(orgKeys.filter((key) => !key.includes(':throttle:counter:login.') && !key.includes(':throttle:counter:login-address.'))).toEqual(
      [],
    );
    console.log(
      `503 with the revocation store refused or slowed: slowest ${Math.max(...timings).toFixed(0)} ms of ${timings.length} calls`,
    );
  });
});

describe('the denylist write fails', () => {
  it('every write script fails: logout and sign out everywhere still succeed, report every session as pending, one log line without session ids', async () => {
    const org = await stack.seedOrganization();
    const [a, b, c] = await threeSessions(org);
    stack.revocationProxy.faults.set(await failingDenylistWrites());
    let revokeAll: Response;
    try {
      const correlationId = `logout-${uuidv7()}`;
      expect(
        (await stack.request('POST', '/auth/logout', { token: c.accessToken, headers: { 'x-correlation-id': correlationId } })).status,
      ).toBe(204);
      expect(logLines('revocation_write_failed').filter((line) => line.correlationId === correlationId)).toHaveLength(1);
      revokeAll = await stack.request('POST', '/auth/sessions/revoke-all', {
        token: a.accessToken,
        headers: { 'x-correlation-id': 'revoke-all-whole-failure' },
      });
    } finally {
      stack.revocationProxy.faults.clear();
    }
    expect(revokeAll.status).toBe(200);
    const body = (await revokeAll.json()) as { revoked: number; denylistPending: string[] };
    // c was logged out before; its entry is written again with the rest (it may be the one lost).
    expect(body.revoked).toBe(2);
    expect(body.denylistPending.sort()).toEqual([a.sessionId, b.sessionId].sort());
    const lines = logLines('revocation_write_failed').filter((line) => line.correlationId === 'revoke-all-whole-failure');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 'error', userId: org.adminId, failedCount: 2, sessionCount: 2 });
    for (const id of [a.sessionId, b.sessionId, c.sessionId]) expect(JSON.stringify(lines)).not.toContain(id);
    // PostgreSQL holds the truth; the failed write dropped the denylist's state, so the check asks PostgreSQL and the
    // tokens are refused at once, before any repair has run.
    expect(await statusOf(a.accessToken)).toEqual([401, 'TOKEN_REVOKED']);
    await repairDenylist();
    for (const session of [a, b, c]) expect(await statusOf(session.accessToken)).toEqual([401, 'TOKEN_REVOKED']);
  });

  it("one session's entry refused: the revocation's one script fails as a whole, every id of it is reported, all are refused at once, the repair writes them", async () => {
    const org = await stack.seedOrganization();
    const [a, b, c] = await threeSessions(org);
    // Any command naming b fails: the write script carries all three entries, so none is written (a script is atomic).
    // (b's revocation check would fail too, so the fault is off again before b's token is used.)
    stack.revocationProxy.faults.set({ failArgsContaining: [b.sessionId] });
    let response: Response;
    try {
      response = await stack.request('POST', '/auth/sessions/revoke-all', {
        token: a.accessToken,
        headers: { 'x-correlation-id': 'revoke-all-one-item' },
      });
    } finally {
      stack.revocationProxy.faults.clear();
    }
    expect(response.status).toBe(200);
    const body = (await response.json()) as { revoked: number; denylistPending: string[] };
    expect(body.revoked).toBe(3);
    expect(body.denylistPending.sort()).toEqual([a.sessionId, b.sessionId, c.sessionId].sort());
    for (const session of [a, b, c]) expect(await stack.redis.exists(stack.deps.keys.revokedSession(session.sessionId))).toBe(0);
    const lines = logLines('revocation_write_failed').filter((line) => line.correlationId === 'revoke-all-one-item');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ userId: org.adminId, failedCount: 3, sessionCount: 3 });
    for (const session of [a, b, c]) expect(JSON.stringify(lines[0])).not.toContain(session.sessionId);
    // The missed entries are named in the answer; the failed write dropped the denylist's state, so every token is
    // refused at once through PostgreSQL, and the repair writes the entries back.
    for (const session of [a, b, c]) expect(await statusOf(session.accessToken)).toEqual([401, 'TOKEN_REVOKED']);
    await repairDenylist();
    for (const session of [a, b, c]) {
      expect(await statusOf(session.accessToken)).toEqual([401, 'TOKEN_REVOKED']);
      const ttl = await stack.redis.ttl(stack.deps.keys.revokedSession(session.sessionId));
      expect(ttl).toBeGreaterThan(890);
      expect(ttl).toBeLessThanOrEqual(900);
    }
  });

  it("an admin's revoke reports the member's missed entries the same way: every session of the failed write", async () => {
    const org = await stack.seedOrganization();
    const member = { userId: uuidv7(), email: `member-${uuidv7().slice(-12)}@example.test` };
    await stack.db.query('INSERT INTO users (id, email) VALUES ($1, $2)', [member.userId, member.email]);
    await stack.db.query(
      "INSERT INTO role_assignments (id, user_id, organization_id, location_id, role_code) VALUES ($1, $2, $3, NULL, 'Accountant')",
      [uuidv7(), member.userId, org.organizationId],
    );
    const signIn = await passwordSignIn(stack, member);
    const first = await signIn(org.organizationId);
    const second = await signIn(org.organizationId);
    stack.revocationProxy.faults.set({ failArgsContaining: [second.sessionId] });
    let response: Response;
    try {
      response = await stack.request('POST', `/orgs/${org.organizationId}/members/${member.userId}/sessions/revoke`, {
        token: org.adminToken,
      });
    } finally {
      stack.revocationProxy.faults.clear();
    }
    const body = (await response.json()) as { revoked: number; denylistPending: string[] };
    expect(body.revoked).toBe(2);
    expect(body.denylistPending.sort()).toEqual([first.sessionId, second.sessionId].sort());
    expect(await statusOf(first.accessToken)).toEqual([401, 'TOKEN_REVOKED']);
    await repairDenylist();
    for (const session of [first, second]) expect(await statusOf(session.accessToken)).toEqual([401, 'TOKEN_REVOKED']);
  });

  it('a write that fails as a whole (the store unreachable) reports every id, once each, in one log line', async () => {
    // Called directly: through a route, the revocation check before it would already have answered 503.
    const userId = uuidv7();
    const sessionIds = [uuidv7(), uuidv7(), uuidv7()];
    stack.revocationProxy.faults.set({ refuse: true });
    let write: Awaited<ReturnType<typeof revokeSessions>>;
    try {
      write = await revokeSessions(stack.deps.revocation, stack.deps.keys, stack.deps.logger, {
        userId,
        sessionIds: [...sessionIds, sessionIds[0]!],
        tokenExpiresAt: 0,
        sessionCoverSeconds: 900,
        nowMs: Date.now(),
        correlationId: 'whole-pipeline',
        revocationSeq: null,
      });
    } finally {
      stack.revocationProxy.faults.clear();
    }
    expect(write).toEqual({ notLanded: sessionIds, ttlSeconds: 900 });
    const lines = logLines('revocation_write_failed').filter((line) => line.correlationId === 'whole-pipeline');
    expect(lines).toEqual([expect.objectContaining({ userId, failedCount: 3, sessionCount: 3, exposureSeconds: 900 })]);
    for (const id of sessionIds) expect(JSON.stringify(lines)).not.toContain(id);
  });
});

describe('the main store fails', () => {
  it('logout and sign out everywhere do not depend on it: the contexts stay until their TTL, a WARN without ids says so', async () => {
    const org = await stack.seedOrganization();
    const [a, b] = await threeSessions(org);
    expect(
      (await stack.request('PUT', '/auth/context', { token: b.accessToken, body: { organizationId: org.organizationId } })).status,
    ).toBe(200);
    stack.redisProxy.faults.set({ refuse: true });
    try {
      expect(
        (await stack.request('POST', '/auth/logout', { token: b.accessToken, headers: { 'x-correlation-id': 'ctx-down' } })).status,
      ).toBe(204);
      const all = await stack.request('POST', '/auth/sessions/revoke-all', { token: a.accessToken });
      expect(await all.json()).toMatchObject({ revoked: 2, denylistPending: [] });
    } finally {
      stack.redisProxy.faults.clear();
    }
    const warns = logLines('context_delete_failed').filter((line) => line.correlationId === 'ctx-down');
    expect(warns).toEqual([expect.objectContaining({ level: 'warn', userId: org.adminId, contextCount: 1 })]);
    expect(JSON.stringify(warns)).not.toContain(b.sessionId);
    expect(await statusOf(b.accessToken)).toEqual([401, 'TOKEN_REVOKED']);
    // The context outlived the failed DEL, but no token of its session can read it.
    expect(await stack.redis.exists(stack.deps.keys.activeContext(org.adminId, b.sessionId))).toBe(1);
  });
});
