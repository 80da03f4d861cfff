// Tenant, role and token checks: each refusal has the status docs/api.md gives it and touches no key.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uuidv7 } from 'uuidv7';
import { SignJWT } from 'jose';
import { newInvitee, startStack, type TestStack } from '../support/stack.ts';
import { withoutLimiterKeys } from '../support/limiter-keys.ts';
import { failingDenylistChecks, failingDenylistWrites, waitForWholeDenylist } from '../support/denylist.ts';

let stack: TestStack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(async () => stack?.close());

async function orgKeyCount(organizationId: string): Promise<number> {
  const keys = withoutLimiterKeys(await stack.redis.keys(`*:org:{${organizationId}}:*`));
  return keys.length;
}

describe('refusals', () => {
  it('another organisation admin, a plain member, no token, a bad token: refused, nothing written', async () => {
    const org = await stack.seedOrganization();
    const other = await stack.seedOrganization();
    const member = newInvitee();
    await stack.db.query('INSERT INTO users (id, email) VALUES ($1, $2)', [member.userId, member.email]);
    await stack.db.query(
      "INSERT INTO role_assignments (id, user_id, organization_id, location_id, role_code) VALUES ($1, $2, $3, NULL, 'Viewer')",
      [uuidv7(), member.userId, org.organizationId],
    );
    const memberToken = await stack.token({ userId: member.userId, email: member.email });
    const body = { email: 'x@example.test', roleCode: 'Viewer' };
    const path = `/orgs/${org.organizationId}/invites`;
    const auditBefore = await stack.db.query('SELECT count(*)::int AS n FROM audit_events WHERE organization_id = $1', [
      org.organizationId,
    ]);

    const cases: Array<[string | undefined, number, string]> = [
      [other.adminToken, 403, 'FORBIDDEN'],
      [memberToken, 403, 'FORBIDDEN'],
      [undefined, 401, 'UNAUTHENTICATED'],
      ['not.a.jwt', 401, 'UNAUTHENTICATED'],
      [
        await new SignJWT({ sid: uuidv7() })
          .setProtectedHeader({ alg: 'HS256' })
          .setSubject(org.adminId)
          .setJti(uuidv7())
          .setIssuedAt()
          .setExpirationTime('5m')
          .sign(new TextEncoder().encode('a-different-secret-of-at-least-32-chars')),
        401,
        'UNAUTHENTICATED',
      ],
      [await stack.token({ userId: org.adminId, expiresInSeconds: -10 }), 401, 'UNAUTHENTICATED'],
    ];
    for (const [token, status, code] of cases) {
      for (const [method, target] of [
        ['POST', path],
        ['GET', path],
        ['DELETE', `${path}/${uuidv7()}`],
      ] as const) {
        const response = await stack.request(method, target, {
          ...(token !== undefined ? { token } : {}),
          ...(method === 'POST' ? { body } : {}),
        });
        expect(response.status, `${method} ${code}`).toBe(status);
        expect(((await response.json()) as { error: { code: string } }).error.code).toBe(code);
      }
    }
    expect(await orgKeyCount(org.organizationId)).toBe(0);
    const auditAfter = await stack.db.query('SELECT count(*)::int AS n FROM audit_events WHERE organization_id = $1', [org.organizationId]);
    expect(auditAfter.rows[0].n).toBe(auditBefore.rows[0].n);
  });

  it('a revoked session: logout gives 204, then every token of that session is 401 TOKEN_REVOKED', async () => {
    const org = await stack.seedOrganization();
    const sessionId = uuidv7();
    const first = await stack.token({ userId: org.adminId, sessionId });
    const second = await stack.token({ userId: org.adminId, sessionId });
    const elsewhere = await stack.token({ userId: org.adminId });
    expect((await stack.request('POST', '/auth/logout', { token: first })).status).toBe(204);
    for (const token of [first, second]) {
      const response = await stack.request('POST', `/orgs/${org.organizationId}/invites`, {
        token,
        body: { email: 'x@example.test', roleCode: 'Viewer' },
      });
      expect(response.status).toBe(401);
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe('TOKEN_REVOKED');
    }
    expect(await orgKeyCount(org.organizationId)).toBe(0);
    // Another session of the same user is unaffected.
    expect((await stack.request('GET', `/orgs/${org.organizationId}/invites`, { token: elsewhere })).status).toBe(200);
    const session = await stack.db.query('SELECT revoked_at FROM sessions WHERE id = $1', [sessionId]);
    expect(session.rows[0].revoked_at).toBeInstanceOf(Date);
    // The entry lives as long as the longest access token may (900 s by default), not only as long as the presenting one.
    const ttl = await stack.redis.ttl(stack.deps.keys.revokedSession(sessionId));
    expect(ttl).toBeGreaterThan(890);
    expect(ttl).toBeLessThanOrEqual(900);
  });

  it('logout with a short token keeps refusing a later token of the same session after the short one has expired', async () => {
    const org = await stack.seedOrganization();
    const sessionId = uuidv7();
    const shortLived = await stack.token({ userId: org.adminId, sessionId, expiresInSeconds: 2 });
    const longerLived = await stack.token({ userId: org.adminId, sessionId, expiresInSeconds: 600 });
    expect((await stack.request('POST', '/auth/logout', { token: shortLived })).status).toBe(204);
    // Before, the entry lived as long as the presenting token and the 600 s token came back to life after that.
    const ttl = await stack.redis.ttl(stack.deps.keys.revokedSession(sessionId));
    expect(ttl).toBeGreaterThanOrEqual(899);
    expect(ttl).toBeLessThanOrEqual(900);
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    expect((await stack.request('GET', `/orgs/${org.organizationId}/invites`, { token: shortLived })).status).toBe(401);
    const response = await stack.request('GET', `/orgs/${org.organizationId}/invites`, { token: longerLived });
    expect(response.status).toBe(401);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('TOKEN_REVOKED');
  });

  it('a revocation store that fails answers 503 REVOCATION_UNAVAILABLE, never lets the token through', async () => {
    const org = await stack.seedOrganization();
    for (const fault of [await failingDenylistChecks(), { refuse: true }, { delayMs: 1_500 }]) {
      stack.redisProxy.faults.set(fault);
      try {
        const response = await stack.request('GET', `/orgs/${org.organizationId}/invites`, { token: org.adminToken });
        expect(response.status, JSON.stringify(fault)).toBe(503);
        expect(((await response.json()) as { error: { code: string } }).error.code).toBe('REVOCATION_UNAVAILABLE');
      } finally {
        stack.redisProxy.faults.clear();
      }
    }
  });

  it('logout still succeeds when the denylist write fails, and says so in a log line with ids only', async () => {
    const org = await stack.seedOrganization();
    const sessionId = uuidv7();
    const token = await stack.token({ userId: org.adminId, sessionId });
    stack.redisProxy.faults.set(await failingDenylistWrites());
    try {
      expect((await stack.request('POST', '/auth/logout', { token })).status).toBe(204);
    } finally {
      stack.redisProxy.faults.clear();
    }
    const line = stack.logs
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .find((l) => l.event === 'revocation_write_failed' && l.userId === org.adminId);
    expect(line).toBeDefined();
    expect(JSON.stringify(line)).not.toContain(sessionId);
    const session = await stack.db.query('SELECT revoked_at FROM sessions WHERE id = $1', [sessionId]);
    expect(session.rows[0].revoked_at).toBeInstanceOf(Date);
    // The failed write dropped the shared store's `whole` state: see it repaired (a live token's request starts the
    // repair), so files that fault PostgreSQL meanwhile do not meet the check's PostgreSQL fallback.
    await waitForWholeDenylist(stack, () => stack.request('GET', `/orgs/${org.organizationId}/invites`, { token: org.adminToken }));
    expect(await stack.request('GET', `/orgs/${org.organizationId}/invites`, { token })).toMatchObject({ status: 401 });
  });
});
