// The operator routes: who may call them (an operator's own secret, never a tenant's token), suspension and reactivation
// that the next resolve reflects, tenant-wide invalidation in one round trip that touches no other tenant, and canaries:
// neither a suspended tenant's server-only fields nor an operator's secret ever reach an answer, a Redis value or a log.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uuidv7 } from 'uuidv7';
import { newOperator } from '../support/operators.ts';
import { startStack, type TestStack } from '../support/stack.ts';
import { dumpNamespace, freshIp, resolve, seedTenant, unique } from '../support/tenants.ts';
import { clockReads } from '../support/clock-reads.ts';
import { CROWD_REDIS_TIMEOUT_MS } from '../support/crowd.ts';

const alice = newOperator('alice');
const bob = newOperator('bob');
let stack: TestStack;
beforeAll(async () => {
  stack = await startStack({
    separateRevocationProxy: true,
    // The invalidation test counts every cache hit exactly; a read that waits past a production deadline for CPU on a
    // busy machine would go to PostgreSQL instead (test/support/crowd.ts). No test here breaks a store.
    deps: { redisTimeoutMs: CROWD_REDIS_TIMEOUT_MS },
    env: { KEY_PREFIX: unique('to').slice(0, 12), OPERATOR_TOKEN_HASHES: `${alice.entry},${bob.entry}` },
  });
});
afterAll(async () => stack?.close());

type Tenant = Awaited<ReturnType<typeof seedTenant>>;
const json = async (response: Response) => (await response.json()) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
/** `secret` null: no authorization header at all. */
const op = (path: string, secret: string | null, body?: unknown) =>
  stack.request('POST', path, {
    ...(secret !== null ? { headers: { authorization: `Bearer ${secret}` } } : {}),
    ...(body !== undefined ? { body } : {}),
  });
const suspend = (t: Tenant, reason = 'overdue invoices', secret: string | null = alice.secret) =>
  op(`/ops/tenants/${t.organizationId}/suspend`, secret, { reason });
const reactivate = (t: Tenant, secret = alice.secret) => op(`/ops/tenants/${t.organizationId}/reactivate`, secret);
const invalidate = (t: Tenant, secret = alice.secret) => op(`/ops/tenants/${t.organizationId}/cache/invalidate`, secret);

describe('operator auth', () => {
  it('refuses a missing, malformed or unknown secret and any tenant token with one 401, logging why but never what was sent', async () => {
    const tenant = await seedTenant(stack);
    const before = stack.logs.length;
    const wrongShape = `rsop_${'A'.repeat(42)}`;
    const unknown = newOperator('mallory').secret;
    for (const secret of [null, 'garbage', wrongShape, unknown, tenant.adminToken, `${alice.secret}x`, alice.secret.toLowerCase()]) {
      const response = await suspend(tenant, 'should not happen', secret);
      expect(response.status, String(secret)).toBe(401);
      expect(response.headers.get('cache-control')).toBe('no-store');
      expect((await json(response)).error.code).toBe('UNAUTHENTICATED');
    }
    const refusals = stack.logs.slice(before).filter((line) => line.includes('operator_auth_refused'));
    expect(refusals.map((line) => JSON.parse(line).reason)).toEqual([
      'missing',
      'malformed',
      'malformed',
      'unknown',
      'malformed',
      'malformed',
      'unknown',
    ]);
    for (const line of refusals) {
      for (const sent of [unknown, tenant.adminToken, alice.secret]) expect(line).not.toContain(sent);
    }
    const row = await stack.db.query('SELECT state FROM organizations WHERE id = $1', [tenant.organizationId]);
    expect(row.rows[0].state).toBe('active');
  });

  it('an OrganizationAdmin of the tenant is no operator', async () => {
    const tenant = await seedTenant(stack);
    const response = await stack.request('POST', `/ops/tenants/${tenant.organizationId}/reactivate`, { token: tenant.adminToken });
    expect(response.status).toBe(401);
  });

  it('without OPERATOR_TOKEN_HASHES every operator route is 503 NOT_CONFIGURED, whatever is sent', async () => {
    const bare = await startStack({ env: { KEY_PREFIX: unique('tb').slice(0, 12) } });
    try {
      for (const action of ['suspend', 'reactivate', 'cache/invalidate']) {
        const response = await bare.request('POST', `/ops/tenants/${uuidv7()}/${action}`, {
          headers: { authorization: `Bearer ${alice.secret}` },
          body: { reason: 'x' },
        });
        expect(response.status).toBe(503);
        expect((await json(response)).error.code).toBe('NOT_CONFIGURED');
      }
      // An answer the deployment chose is no fault: logged at info, so an alert on error lines stays quiet.
      const failures = bare.logs.map((line) => JSON.parse(line) as { level: string; event: string; code?: string });
      const refused = failures.filter((line) => line.event === 'request_failed');
      expect(refused).toHaveLength(3);
      for (const line of refused) expect(line).toMatchObject({ level: 'info', code: 'NOT_CONFIGURED' });
      expect(failures.filter((line) => line.level === 'error')).toEqual([]);
    } finally {
      await bare.close();
    }
  });
});

describe('suspension', () => {
  it('suspends and reactivates; the next resolve shows the state at once, never the reason; each action is audited with the operator', async () => {
    const domain = `${unique('susp')}.example`;
    const tenant = await seedTenant(stack, { domains: [domain] });
    const ip = freshIp();
    expect((await json(await resolve(stack, { slug: tenant.slug }, ip))).tenant.state).toBe('active');
    expect((await json(await resolve(stack, { domain }, ip))).tenant.state).toBe('active');
    const reason = `reason-${uuidv7()}`;
    const suspended = await suspend(tenant, reason);
    expect(suspended.status).toBe(200);
    expect(await json(suspended)).toEqual({ organizationId: tenant.organizationId, state: 'suspended', previousState: 'active' });
    for (const query of [{ slug: tenant.slug }, { domain }]) {
      const response = await resolve(stack, query, ip);
      const text = await response.text();
      expect(JSON.parse(text).tenant.state).toBe('suspended');
      expect(text).not.toContain(reason);
    }
    const row = await stack.db.query('SELECT state, suspension_reason FROM organizations WHERE id = $1', [tenant.organizationId]);
    expect(row.rows[0]).toEqual({ state: 'suspended', suspension_reason: reason });
    const back = await reactivate(tenant, bob.secret);
    expect(await json(back)).toEqual({ organizationId: tenant.organizationId, state: 'active', previousState: 'suspended' });
    expect((await json(await resolve(stack, { slug: tenant.slug }, ip))).tenant.state).toBe('active');
    const cleared = await stack.db.query('SELECT suspension_reason, suspended_at FROM organizations WHERE id = $1', [
      tenant.organizationId,
    ]);
    expect(cleared.rows[0]).toEqual({ suspension_reason: null, suspended_at: null });
    const audit = await stack.db.query(
      `SELECT action, actor_user_id, details FROM audit_events WHERE organization_id = $1 AND action LIKE 'tenant.%' ORDER BY occurred_at`,
      [tenant.organizationId],
    );
    expect(audit.rows.map((r) => [r.action, r.actor_user_id, r.details.operatorId])).toEqual([
      ['tenant.suspended', null, 'alice'],
      ['tenant.reactivated', null, 'bob'],
    ]);
    expect(JSON.stringify(audit.rows)).not.toContain(reason);
  });

  it('a deleted or unknown organisation is 404, and a suspension needs a reason', async () => {
    const deleted = await seedTenant(stack, { state: 'deleted' });
    expect((await suspend(deleted)).status).toBe(404);
    expect((await reactivate(deleted)).status).toBe(404);
    expect((await op(`/ops/tenants/${uuidv7()}/cache/invalidate`, alice.secret)).status).toBe(404);
    const tenant = await seedTenant(stack);
    expect((await op(`/ops/tenants/${tenant.organizationId}/suspend`, alice.secret, { reason: '' })).status).toBe(400);
    expect((await op(`/ops/tenants/${tenant.organizationId}/suspend`, alice.secret, {})).status).toBe(400);
  });
});

describe('tenant-wide invalidation', () => {
  async function warm(t: Tenant, outlets: string[], ip: string): Promise<void> {
    const get = (path: string) => stack.request('GET', `/orgs/${t.organizationId}${path}`, { token: t.adminToken });
    expect((await get('/settings')).status).toBe(200);
    expect((await get('/members/count')).status).toBe(200);
    for (const outlet of outlets) expect((await get(`/members/count?locationId=${outlet}`)).status).toBe(200);
    expect((await resolve(stack, { slug: t.slug }, ip)).status).toBe(200);
  }

  /** PostgreSQL requests beyond the role checks when every entry is read again: 0 means every one was a hit. */
  async function sourceReads(t: Tenant, outlets: string[], ip: string): Promise<number> {
    stack.neonProxy.stats.reset();
    await warm(t, outlets, ip);
    // One role check per settings and member-count read; the resolve has none.
    return stack.neonProxy.stats.httpRequests - clockReads(stack.neonProxy.stats) - (2 + outlets.length);
  }

  async function outletsOf(t: Tenant, count: number): Promise<string[]> {
    const ids = Array.from({ length: count }, () => uuidv7());
    for (const id of ids)
      await stack.db.query('INSERT INTO locations (id, organization_id, name) VALUES ($1, $2, $3)', [id, t.organizationId, 'Outlet']);
    return [t.locationId, ...ids];
  }

  it("makes every cached entry of that organisation miss, and no other organisation's, in one Redis round trip", async () => {
    const a = await seedTenant(stack);
    const b = await seedTenant(stack);
    const [outletsA, outletsB] = [await outletsOf(a, 5), await outletsOf(b, 5)];
    const ip = freshIp();
    await warm(a, outletsA, ip);
    await warm(b, outletsB, ip);
    expect(await sourceReads(a, outletsA, ip)).toBe(0);
    expect(await sourceReads(b, outletsB, ip)).toBe(0);
    stack.redisProxy.stats.reset();
    const response = await invalidate(a);
    expect(response.status).toBe(200);
    expect(await json(response)).toEqual({ organizationId: a.organizationId, landed: true });
    expect(stack.redisProxy.stats.requests).toBe(1);
    // Every entry of A (settings, 7 member counts, the resolve entry, and the plan its first request reads back) goes
    // back to PostgreSQL once; B's are all hits.
    expect(await sourceReads(a, outletsA, ip)).toBe(1 + 7 + 1 + 1);
    expect(await sourceReads(b, outletsB, ip)).toBe(0);
    expect(await sourceReads(a, outletsA, ip)).toBe(0);
    const audit = await stack.db.query(
      `SELECT details FROM audit_events WHERE organization_id = $1 AND action = 'tenant.cache_invalidated'`,
      [a.organizationId],
    );
    expect(audit.rows.map((r) => r.details.operatorId)).toEqual(['alice']);
  });
});

describe('canaries', () => {
  it("a suspended tenant's reason, integration settings and flags reach no answer, no Redis value and no log (with a positive control)", async () => {
    const canary = (name: string) => `canary-${name}-${uuidv7()}`;
    const reason = canary('reason');
    const integration = canary('integration');
    const flag = canary('flag');
    const brand = canary('brand');
    const domain = `${unique('canary')}.example`;
    const tenant = await seedTenant(stack, {
      domains: [domain],
      displayName: brand,
      integrationSettings: { apiKey: integration, nested: { token: integration } },
      featureFlags: { [flag]: true, beta: flag },
    });
    const ip = freshIp();
    const bodies: string[] = [];
    const keep = async (response: Promise<Response>) => bodies.push(`${(await response).status} ${await (await response).text()}`);
    // Active first (cached), then suspended by an operator with the reason, then every read again.
    await keep(resolve(stack, { slug: tenant.slug }, ip));
    await keep(stack.request('GET', `/orgs/${tenant.organizationId}/settings`, { token: tenant.adminToken }));
    await keep(suspend(tenant, reason));
    await keep(resolve(stack, { slug: tenant.slug }, ip));
    await keep(resolve(stack, { domain }, ip));
    await keep(resolve(stack, { domain: `${domain}.` }, ip));
    await keep(stack.request('GET', `/orgs/${tenant.organizationId}/settings`, { token: tenant.adminToken }));
    await keep(stack.request('GET', `/orgs/${tenant.organizationId}/members/count`, { token: tenant.adminToken }));
    await keep(
      stack.request('PATCH', `/orgs/${tenant.organizationId}/branding`, { token: tenant.adminToken, body: { primaryColor: '#123456' } }),
    );
    await keep(resolve(stack, { slug: tenant.slug }, ip));
    await keep(invalidate(tenant));
    await keep(stack.request('GET', '/openapi.json'));
    const values = await dumpNamespace(stack);
    const haystacks = {
      answers: bodies.join('\n'),
      redis: values.map((v) => `${v.key} ${v.value}`).join('\n'),
      logs: stack.logs.join('\n'),
    };
    // Positive control: the public branding is in the answers and in the cache, so the scan sees what is there.
    expect(haystacks.answers).toContain(brand);
    expect(haystacks.redis).toContain(brand);
    expect(haystacks.answers).toContain('"state":"suspended"');
    for (const [where, haystack] of Object.entries(haystacks)) {
      for (const secret of [reason, integration, flag]) expect(haystack, `${where} holds ${secret.split('-')[1]}`).not.toContain(secret);
    }
  });

  it("an operator's secret reaches no answer, Redis value, audit row or log; the audit row names the operator (positive control)", async () => {
    const tenant = await seedTenant(stack);
    const bodies: string[] = [];
    for (const response of [
      await suspend(tenant),
      await reactivate(tenant),
      await invalidate(tenant),
      await suspend(tenant, 'x', `${alice.secret}A`),
    ]) {
      bodies.push(await response.text());
    }
    const audit = await stack.db.query('SELECT * FROM audit_events WHERE organization_id = $1', [tenant.organizationId]);
    const values = await dumpNamespace(stack);
    const auditText = JSON.stringify(audit.rows);
    expect(auditText).toContain('"operatorId":"alice"');
    for (const haystack of [bodies.join('\n'), auditText, values.map((v) => `${v.key} ${v.value}`).join('\n'), stack.logs.join('\n')]) {
      expect(haystack).not.toContain(alice.secret);
      expect(haystack).not.toContain(alice.secret.slice(5));
    }
  });
});
