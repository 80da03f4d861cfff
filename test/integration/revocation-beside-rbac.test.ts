// The RBAC read runs beside the revocation check, and the check still decides first: revoked is 401, no answer is 503, on every route.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uuidv7 } from 'uuidv7';
import { newInvitee, startStack, type TestStack } from '../support/stack.ts';
import { withoutLimiterKeys } from '../support/limiter-keys.ts';

let stack: TestStack;
beforeAll(async () => {
  stack = await startStack({ separateRevocationProxy: true });
});
afterAll(async () => stack?.close());

type Org = Awaited<ReturnType<TestStack['seedOrganization']>>;

/** Every authenticated route, with a body that passes validation, and create once more with one that does not. */
function everyRoute(org: Org): Array<[string, string, unknown]> {
  const invites = `/orgs/${org.organizationId}/invites`;
  return [
    ['POST', invites, { email: 'beside@example.test', roleCode: 'Viewer' }],
    ['POST', invites, { email: 'not an email', roleCode: 'Nobody' }],
    ['GET', invites, undefined],
    ['DELETE', `${invites}/${uuidv7()}`, undefined],
    ['POST', '/invites/accept', { token: 'rsi_unknown' }],
    ['POST', '/auth/logout', undefined],
    // The settings and member-count reads send their cache read beside the check too, and use nothing of it before.
    ['GET', `/orgs/${org.organizationId}/settings`, undefined],
    ['GET', `/orgs/${org.organizationId}/members/count`, undefined],
    ['PATCH', `/orgs/${org.organizationId}/branding`, { displayName: 'Beside' }],
    ['PUT', `/orgs/${org.organizationId}/domains`, { domains: [] }],
  ];
}

async function expectEveryRoute(org: Org, token: string, status: number, code: string): Promise<void> {
  for (const [method, path, body] of everyRoute(org)) {
    const response = await stack.request(method, path, { token, ...(body !== undefined ? { body } : {}) });
    const label = `${method} ${path} ${JSON.stringify(body)}`;
    expect(response.status, label).toBe(status);
    expect(((await response.json()) as { error: { code: string } }).error.code, label).toBe(code);
  }
}

async function nothingWritten(org: Org, auditBefore: number): Promise<void> {
  expect(withoutLimiterKeys(await stack.redis.keys(`*:org:{${org.organizationId}}:*`))).toEqual([]);
  const audit = await stack.db.query('SELECT count(*)::int AS n FROM audit_events WHERE organization_id = $1', [org.organizationId]);
  expect(audit.rows[0].n).toBe(auditBefore);
}

describe('reads beside the revocation check', () => {
  it('a revoked token is 401 TOKEN_REVOKED on every route, admin or not, even when RBAC answers first', async () => {
    const org = await stack.seedOrganization();
    const outsider = newInvitee();
    const tokens = [];
    for (const userId of [org.adminId, outsider.userId]) {
      const sessionId = uuidv7();
      expect((await stack.request('POST', '/auth/logout', { token: await stack.token({ userId, sessionId }) })).status).toBe(204);
      tokens.push(await stack.token({ userId, sessionId, email: outsider.email }));
    }
    // A slow denylist: the RBAC read (a 403 for the outsider) is back long before the check.
    stack.revocationProxy.faults.set({ delayMs: 250 });
    try {
      for (const token of tokens) await expectEveryRoute(org, token, 401, 'TOKEN_REVOKED');
    } finally {
      stack.revocationProxy.faults.clear();
    }
    await nothingWritten(org, 0);
  });

  it('a denylist that cannot answer is 503 REVOCATION_UNAVAILABLE on every route, whatever RBAC says', async () => {
    const org = await stack.seedOrganization();
    const outsider = await stack.token({ userId: newInvitee().userId });
    stack.revocationProxy.faults.set({ refuse: true });
    try {
      for (const token of [org.adminToken, outsider]) await expectEveryRoute(org, token, 503, 'REVOCATION_UNAVAILABLE');
    } finally {
      stack.revocationProxy.faults.clear();
    }
    await nothingWritten(org, 0);
    const sessions = await stack.db.query('SELECT count(*)::int AS n FROM sessions WHERE user_id = $1', [org.adminId]);
    expect(sessions.rows[0].n).toBe(0);
  });

  it('the RBAC query reaches PostgreSQL before the denylist has even run the check, and the request then succeeds', async () => {
    const org = await stack.seedOrganization();
    stack.neonProxy.stats.reset();
    stack.revocationProxy.stats.reset();
    // The revocation proxy holds the check this long before running its commands (and counts them only then).
    stack.revocationProxy.faults.set({ delayMs: 400 });
    try {
      let answered = false;
      const pending = stack.request('GET', `/orgs/${org.organizationId}/invites`, { token: org.adminToken }).finally(() => {
        answered = true;
      });
      while (!answered && stack.neonProxy.stats.httpRequests === 0) await new Promise((resolve) => setTimeout(resolve, 2));
      const checkCommandsWhenRbacArrived = stack.revocationProxy.stats.commands;
      expect(stack.neonProxy.stats.httpRequests).toBe(1);
      expect(checkCommandsWhenRbacArrived).toBe(0);
      expect((await pending).status).toBe(200);
      expect(stack.revocationProxy.stats.commands).toBeGreaterThan(0);
    } finally {
      stack.revocationProxy.faults.clear();
    }
  });
});
