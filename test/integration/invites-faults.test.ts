// Failure semantics: with Redis refused, slow or dead, or PostgreSQL down, invite operations fail with 503 and leave nothing half-written.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedisServer, type RedisServerHandle } from '../../local/processes/redis-server.ts';
import { newInvitee, startStack, type TestStack } from '../support/stack.ts';
import { withoutLimiterKeys } from '../support/limiter-keys.ts';
import { waitForWholeDenylist } from '../support/denylist.ts';

let stack: TestStack;
beforeAll(async () => {
  stack = await startStack({ separateRevocationProxy: true });
});
afterAll(async () => stack?.close());

type Org = Awaited<ReturnType<TestStack['seedOrganization']>>;

async function create(s: TestStack, org: Org, email: string) {
  const response = await s.request('POST', `/orgs/${org.organizationId}/invites`, {
    token: org.adminToken,
    body: { email, roleCode: 'Viewer' },
  });
  expect(response.status).toBe(201);
  return (await response.json()) as { invite: { inviteId: string }; token: string };
}

async function auditCount(s: TestStack, organizationId: string): Promise<number> {
  const result = await s.db.query('SELECT count(*)::int AS n FROM audit_events WHERE organization_id = $1', [organizationId]);
  return result.rows[0].n as number;
}

async function expectStoreUnavailable(response: Response) {
  expect(response.status).toBe(503);
  expect(((await response.json()) as { error: { code: string } }).error.code).toBe('STORE_UNAVAILABLE');
}

describe('Redis refused or slower than its deadline', () => {
  for (const fault of [{ refuse: true }, { delayMs: 2_600 }]) {
    it(`create, cancel and accept answer 503 with no role row and no stray audit row (${JSON.stringify(fault)})`, async () => {
      const org = await stack.seedOrganization();
      const person = newInvitee();
      const { invite, token } = await create(stack, org, person.email);
      const bearer = await stack.token({ userId: person.userId, email: person.email });
      const before = await auditCount(stack, org.organizationId);

      stack.redisProxy.faults.set(fault);
      try {
        await expectStoreUnavailable(
          await stack.request('POST', `/orgs/${org.organizationId}/invites`, {
            token: org.adminToken,
            body: { email: 'other@example.test', roleCode: 'Viewer' },
          }),
        );
        await expectStoreUnavailable(
          await stack.request('DELETE', `/orgs/${org.organizationId}/invites/${invite.inviteId}`, { token: org.adminToken }),
        );
        await expectStoreUnavailable(await stack.request('POST', '/invites/accept', { token: bearer, body: { token } }));
      } finally {
        stack.redisProxy.faults.clear();
      }
      // Let a delayed command that was already on its way land before looking.
      await new Promise((resolve) => setTimeout(resolve, 'delayMs' in fault ? 3_000 : 0));
      const roles = await stack.db.query('SELECT count(*)::int AS n FROM role_assignments WHERE user_id = $1', [person.userId]);
      expect(roles.rows[0].n).toBe(0);
      expect(await auditCount(stack, org.organizationId)).toBe(before);
      // The refused create left no invite behind, even where its late script landed after the 503.
      const { hashEmail } = await import('../../lib/keys/index.ts');
      const otherIndex = stack.deps.keys.inviteActiveByEmailHash(
        org.organizationId,
        await hashEmail(stack.config.indexHashKey, 'other@example.test'),
      );
      expect(await stack.redis.exists(otherIndex)).toBe(0);
      const members = await stack.redis.zrange(stack.deps.keys.inviteActiveByOrg(org.organizationId), 0, -1);
      expect(members.length).toBeLessThanOrEqual(1);
    });
  }
});

/**
 * Another file's failed denylist write may have dropped the shared store's `whole` state; until a repair restores it the
 * check asks PostgreSQL, and with PostgreSQL down that answers 503 REVOCATION_UNAVAILABLE before the route is reached.
 */
async function wholeDenylist(org: { organizationId: string; adminToken: string }): Promise<void> {
  await waitForWholeDenylist(stack, () => stack.request('GET', `/orgs/${org.organizationId}/invites`, { token: org.adminToken }));
}

describe('PostgreSQL down', () => {
  it('create fails with 503 before touching Redis when PostgreSQL is unreachable', async () => {
    const org = await stack.seedOrganization();
    await wholeDenylist(org);
    stack.neonProxy.faults.set({ refuse: true });
    let response: Response;
    try {
      response = await stack.request('POST', `/orgs/${org.organizationId}/invites`, {
        token: org.adminToken,
        body: { email: 'pg.down@example.test', roleCode: 'Viewer' },
      });
    } finally {
      stack.neonProxy.faults.clear();
    }
    await expectStoreUnavailable(response);
    expect(withoutLimiterKeys(await stack.redis.keys(`*:org:{${org.organizationId}}:*`))).toEqual([]);
  });

  it('when only the audit write fails, create takes its Redis object and index entries back', async () => {
    const org = await stack.seedOrganization();
    // Refuse the audit INSERT alone: the RBAC query before it still succeeds.
    await stack.db.query(`CREATE OR REPLACE FUNCTION test_refuse_audit() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF NEW.organization_id = '${org.organizationId}' THEN RAISE EXCEPTION 'audit refused by test'; END IF; RETURN NEW; END $$`);
    await stack.db.query(
      'CREATE TRIGGER test_refuse_audit BEFORE INSERT ON audit_events FOR EACH ROW EXECUTE FUNCTION test_refuse_audit()',
    );
    try {
      const response = await stack.request('POST', `/orgs/${org.organizationId}/invites`, {
        token: org.adminToken,
        body: { email: 'audit.fails@example.test', roleCode: 'Viewer' },
      });
      expect(response.status).toBeGreaterThanOrEqual(500);
    } finally {
      await stack.db.query('DROP TRIGGER test_refuse_audit ON audit_events');
      await stack.db.query('DROP FUNCTION test_refuse_audit()');
    }
    // Only the attempt's throttle count stays (it counts attempts, not invites).
    const left = withoutLimiterKeys(await stack.redis.keys(`*:org:{${org.organizationId}}:*`));
    expect(left.filter((key) => !key.includes(':throttle:counter:'))).toEqual([]);
  });

  it('accept with PostgreSQL down answers 503 and keeps its receipt: the same account retries to one grant, anyone else gets 410', async () => {
    const org = await stack.seedOrganization();
    const person = newInvitee();
    const { invite, token } = await create(stack, org, person.email);
    const bearer = await stack.token({ userId: person.userId, email: person.email });
    await wholeDenylist(org);
    stack.neonProxy.faults.set({ refuse: true });
    try {
      await expectStoreUnavailable(await stack.request('POST', '/invites/accept', { token: bearer, body: { token } }));
    } finally {
      stack.neonProxy.faults.clear();
    }
    // Consumed, not given back: nobody else can take it while its outcome is unknown.
    const list = await stack.request('GET', `/orgs/${org.organizationId}/invites`, { token: org.adminToken });
    expect(((await list.json()) as { invites: unknown[] }).invites).toHaveLength(0);
    const other = newInvitee();
    const otherBearer = await stack.token({ userId: other.userId, email: person.email });
    expect((await stack.request('POST', '/invites/accept', { token: otherBearer, body: { token } })).status).toBe(410);
    expect((await stack.request('POST', '/invites/accept', { token: bearer, body: { token } })).status).toBe(200);
    const roles = await stack.db.query('SELECT count(*)::int AS n FROM role_assignments WHERE user_id = $1', [person.userId]);
    expect(roles.rows[0].n).toBe(1);
    const audit = await stack.db.query("SELECT count(*)::int AS n FROM audit_events WHERE target_id = $1 AND action = 'invite.accepted'", [
      invite.inviteId,
    ]);
    expect(audit.rows[0].n).toBe(1);
  });
});

describe('a Redis server that dies', () => {
  let own: RedisServerHandle;
  let dying: TestStack;
  beforeAll(async () => {
    own = await startRedisServer();
    dying = await startStack({ redisUrl: own.url });
  });
  afterAll(async () => {
    await dying?.close();
    await own?.stop();
  });

  it('answers 503 on every invite route, and health names redis as down', async () => {
    const org = await dying.seedOrganization();
    const { invite, token } = await create(dying, org, 'before.death@example.test');
    await own.stop();
    const bearer = await dying.token({ userId: newInvitee().userId, email: 'before.death@example.test' });
    for (const [method, path, body] of [
      ['POST', `/orgs/${org.organizationId}/invites`, { email: 'x@example.test', roleCode: 'Viewer' }],
      ['GET', `/orgs/${org.organizationId}/invites`, undefined],
      ['DELETE', `/orgs/${org.organizationId}/invites/${invite.inviteId}`, undefined],
      ['POST', '/invites/accept', { token }],
    ] as const) {
      const response = await dying.request(method, path, {
        token: path === '/invites/accept' ? bearer : org.adminToken,
        ...(body ? { body } : {}),
      });
      expect(response.status, `${method} ${path}`).toBe(503);
    }
    const health = await dying.request('GET', '/healthz');
    expect(health.status).toBe(503);
    expect(await health.json()).toEqual({
      status: 'degraded',
      redis: 'down',
      revocation: 'down',
      postgres: 'ok',
      eviction: { redis: 'unknown', revocation: 'unknown' },
    });
  });
});
