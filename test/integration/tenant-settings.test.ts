// An OrganizationAdmin's tenant routes: the settings object and member counts read through the cache (a hit costs no
// PostgreSQL beyond the role check; Redis down still answers from PostgreSQL), and branding and domain changes that the
// next resolve and the next settings read reflect at once (a new domain as a pending claim: tenant-domains.test.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uuidv7 } from 'uuidv7';
import { startStack, type TestStack } from '../support/stack.ts';
import { dumpNamespace, freshIp, resolve, seedTenant, unique } from '../support/tenants.ts';
import { planCached, withoutLimiterLogs } from '../support/limiter-keys.ts';
import { clockReads } from '../support/clock-reads.ts';

let stack: TestStack;
beforeAll(async () => {
  // The denylist apart, so the main store's faults leave the token check working.
  stack = await startStack({ separateRevocationProxy: true, env: { KEY_PREFIX: unique('ts').slice(0, 12) } });
});
afterAll(async () => stack?.close());

type Tenant = Awaited<ReturnType<typeof seedTenant>>;

const settings = (t: Tenant, token = t.adminToken) => stack.request('GET', `/orgs/${t.organizationId}/settings`, { token });
const branding = (t: Tenant, body: unknown) => stack.request('PATCH', `/orgs/${t.organizationId}/branding`, { token: t.adminToken, body });
const domains = (t: Tenant, list: string[]) =>
  stack.request('PUT', `/orgs/${t.organizationId}/domains`, { token: t.adminToken, body: { domains: list } });
const memberCount = (t: Tenant, locationId?: string) =>
  stack.request('GET', `/orgs/${t.organizationId}/members/count${locationId === undefined ? '' : `?locationId=${locationId}`}`, {
    token: t.adminToken,
  });
const json = async (response: Response) => (await response.json()) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** PostgreSQL requests one call makes (the role check is one of them). */
async function pgRequests(call: () => Promise<Response>): Promise<{ response: Response; pg: number }> {
  stack.neonProxy.stats.reset();
  const response = await call();
  return { response, pg: stack.neonProxy.stats.httpRequests - clockReads(stack.neonProxy.stats) };
}

describe('settings', () => {
  it('answers the whitelist to the organisation admin only, and a hit costs no PostgreSQL beyond the role check', async () => {
    const domain = `${unique('set')}.example`;
    const tenant = await seedTenant(stack, { domains: [domain], featureFlags: { beta: true } });
    await planCached(stack.deps, tenant.organizationId);
    const miss = await pgRequests(() => settings(tenant));
    expect(miss.response.status).toBe(200);
    expect(miss.pg).toBe(2);
    expect((await json(miss.response)).settings).toEqual({
      organizationId: tenant.organizationId,
      slug: tenant.slug,
      state: 'active',
      branding: { displayName: `Brand ${tenant.slug}`, logoUrl: null, primaryColor: null },
      domains: [domain],
    });
    const hit = await pgRequests(() => settings(tenant));
    expect(hit.response.status).toBe(200);
    expect(hit.pg).toBe(1);
    const key = (await dumpNamespace(stack)).find((e) => e.key.includes(`{${tenant.organizationId}}:cache:settings:`))!.key;
    const ttl = await stack.redis.ttl(key);
    expect(ttl).toBeGreaterThan(290);
    expect(ttl).toBeLessThanOrEqual(300);
    const other = await seedTenant(stack);
    expect((await settings(tenant, other.adminToken)).status).toBe(403);
    expect((await stack.request('GET', `/orgs/${tenant.organizationId}/settings`)).status).toBe(401);
  });

  it('with Redis down answers from PostgreSQL, with one WARN naming no key', async () => {
    const tenant = await seedTenant(stack);
    expect((await settings(tenant)).status).toBe(200);
    await stack.db.query(`UPDATE organizations SET display_name = 'Renamed behind the cache' WHERE id = $1`, [tenant.organizationId]);
    const before = stack.logs.length;
    stack.redisProxy.faults.set({ refuse: true });
    let response: Response;
    try {
      response = await settings(tenant);
    } finally {
      stack.redisProxy.faults.clear();
    }
    expect(response.status).toBe(200);
    // The cache is skipped, PostgreSQL's answer stands.
    expect((await json(response)).settings.branding.displayName).toBe('Renamed behind the cache');
    const warns = withoutLimiterLogs(stack.logs.slice(before)).filter((line) => line.includes('"level":"warn"'));
    expect(warns).toHaveLength(1);
    expect(JSON.parse(warns[0]!)).toMatchObject({ event: 'cache_unavailable', cache: 'org-settings', operation: 'read' });
    expect(warns[0]).not.toContain(tenant.organizationId);
    expect(warns[0]).not.toContain(`${stack.deps.keys.prefix}:`);
  });

  it('a suspension the cache never heard of is enforced all the same: the role check reads the state in PostgreSQL', async () => {
    const tenant = await seedTenant(stack);
    expect((await json(await settings(tenant))).settings.state).toBe('active');
    // Suspended behind the cache's back (no invalidation): its entry still says "active".
    await stack.db.query(`UPDATE organizations SET state = 'suspended', suspension_reason = 'test' WHERE id = $1`, [tenant.organizationId]);
    for (const fault of [undefined, { refuse: true }]) {
      if (fault !== undefined) stack.redisProxy.faults.set(fault);
      try {
        const response = await settings(tenant);
        expect(response.status).toBe(403);
        expect((await json(response)).error.code).toBe('TENANT_SUSPENDED');
      } finally {
        stack.redisProxy.faults.clear();
      }
    }
  });

  it('with Redis failing only on the write, still answers and warns once', async () => {
    const tenant = await seedTenant(stack);
    const before = stack.logs.length;
    stack.redisProxy.faults.set({ failCommands: ['set'] });
    let response: Response;
    try {
      response = await settings(tenant);
    } finally {
      stack.redisProxy.faults.clear();
    }
    expect(response.status).toBe(200);
    const warns = stack.logs.slice(before).filter((line) => line.includes('"level":"warn"'));
    expect(warns.map((line) => JSON.parse(line) as unknown)).toEqual([
      expect.objectContaining({ event: 'cache_unavailable', operation: 'write' }),
    ]);
  });

  it("a deleted organisation's settings answer 403 FORBIDDEN, as an unknown organisation's do", async () => {
    const tenant = await seedTenant(stack, { state: 'deleted' });
    expect((await settings(tenant)).status).toBe(403);
  });
});

describe('member count', () => {
  it('counts the organisation or one Outlet, read through the cache', async () => {
    const tenant = await seedTenant(stack);
    const outletOnly = uuidv7();
    await stack.db.query('INSERT INTO users (id, email) VALUES ($1, $2)', [outletOnly, `outlet-${outletOnly}@example.test`]);
    const otherLocation = uuidv7();
    await stack.db.query('INSERT INTO locations (id, organization_id, name) VALUES ($1, $2, $3)', [
      otherLocation,
      tenant.organizationId,
      'Other',
    ]);
    await stack.db.query(
      `INSERT INTO role_assignments (id, user_id, organization_id, location_id, role_code) VALUES ($1, $2, $3, $4, 'Viewer')`,
      [uuidv7(), outletOnly, tenant.organizationId, otherLocation],
    );
    expect(await json(await memberCount(tenant))).toEqual({ organizationId: tenant.organizationId, locationId: null, count: 2 });
    expect((await json(await memberCount(tenant, tenant.locationId))).count).toBe(1);
    expect((await json(await memberCount(tenant, otherLocation))).count).toBe(2);
    const hit = await pgRequests(() => memberCount(tenant, otherLocation));
    expect(hit.pg).toBe(1);
    const foreign = await seedTenant(stack);
    expect((await memberCount(tenant, foreign.locationId)).status).toBe(400);
  });
});

describe('branding', () => {
  it('a change is what the next resolve (slug and domain) and the next settings read show; the old slug stops resolving', async () => {
    const domain = `${unique('brand')}.example`;
    const tenant = await seedTenant(stack, { domains: [domain] });
    const ip = freshIp();
    // Everything cached first.
    expect((await resolve(stack, { slug: tenant.slug }, ip)).status).toBe(200);
    expect((await resolve(stack, { domain }, ip)).status).toBe(200);
    expect((await settings(tenant)).status).toBe(200);
    const slug = unique('renamed');
    const change = { slug, displayName: 'Renamed & Co', logoUrl: 'https://cdn.example/logo.svg', primaryColor: '#0a7f3c' };
    const response = await branding(tenant, change);
    expect(response.status).toBe(200);
    expect((await json(response)).branding).toEqual(change);
    expect((await resolve(stack, { slug: tenant.slug }, ip)).status).toBe(404);
    const expected = {
      organizationId: tenant.organizationId,
      slug,
      state: 'active',
      displayName: 'Renamed & Co',
      logoUrl: change.logoUrl,
      primaryColor: '#0a7f3c',
    };
    expect((await json(await resolve(stack, { slug }, ip))).tenant).toEqual(expected);
    expect((await json(await resolve(stack, { domain }, ip))).tenant).toEqual(expected);
    expect((await json(await settings(tenant))).settings.branding).toEqual({
      displayName: 'Renamed & Co',
      logoUrl: change.logoUrl,
      primaryColor: '#0a7f3c',
    });
    // Clearing a field with null, the rest untouched.
    expect((await json(await branding(tenant, { logoUrl: null }))).branding).toEqual({ ...change, logoUrl: null });
    const audit = await stack.db.query(
      `SELECT actor_user_id, details FROM audit_events WHERE organization_id = $1 AND action = 'tenant.branding_updated' ORDER BY occurred_at`,
      [tenant.organizationId],
    );
    expect(audit.rows.map((r) => r.details.fields)).toEqual(['slug,displayName,logoUrl,primaryColor', 'logoUrl']);
    expect(audit.rows[0].actor_user_id).toBe(tenant.adminId);
  });

  it('refuses a slug another organisation has (409 SLUG_TAKEN), and bad values (400), changing nothing', async () => {
    const a = await seedTenant(stack);
    const b = await seedTenant(stack);
    const taken = await branding(b, { slug: a.slug });
    expect(taken.status).toBe(409);
    expect((await json(taken)).error.code).toBe('SLUG_TAKEN');
    for (const body of [
      {},
      { slug: 'Has Space' },
      { slug: `o-${'a'.repeat(32)}` },
      { logoUrl: 'http://insecure.example/logo.png' },
      { logoUrl: 'javascript:alert(1)' },
      { primaryColor: 'red' },
      { primaryColor: '#FFF' },
      { displayName: '' },
      { displayName: 'bell\u0007' },
      { unknown: 'field' },
    ]) {
      expect((await branding(b, body)).status, JSON.stringify(body)).toBe(400);
    }
    expect((await json(await settings(b))).settings.slug).toBe(b.slug);
  });

  it('with Redis failing on the invalidation, the change still commits and answers; one WARN names the organisation, no key', async () => {
    const tenant = await seedTenant(stack);
    const before = stack.logs.length;
    stack.redisProxy.faults.set({ failCommands: ['set', 'eval'] });
    let response: Response;
    try {
      response = await branding(tenant, { displayName: 'Lost invalidation' });
    } finally {
      stack.redisProxy.faults.clear();
    }
    expect(response.status).toBe(200);
    const warns = stack.logs.slice(before).filter((line) => line.includes('tenant_invalidation_failed'));
    expect(warns).toHaveLength(1);
    expect(JSON.parse(warns[0]!)).toMatchObject({ organizationId: tenant.organizationId, generation: false, resolve: false });
    expect(warns[0]).not.toContain(tenant.slug);
  });
});

describe('domains', () => {
  it('replaces the set: a removed domain stops resolving, an added one is a pending claim that resolves nowhere until verified', async () => {
    const kept = `${unique('kept')}.example`;
    const dropped = `${unique('dropped')}.example`;
    const added = `${unique('added')}.example`;
    const tenant = await seedTenant(stack, { domains: [kept, dropped] });
    const ip = freshIp();
    expect((await resolve(stack, { domain: dropped }, ip)).status).toBe(200);
    expect((await resolve(stack, { domain: added }, ip)).status).toBe(404);
    const response = await domains(tenant, [kept, `${added.toUpperCase()}.`]);
    expect(response.status).toBe(200);
    const answer = (await json(response)).domains as Array<{ domain: string; status: string }>;
    expect(answer.map((d) => [d.domain, d.status])).toEqual([
      [added, 'pending'],
      [kept, 'verified'],
    ]);
    expect((await resolve(stack, { domain: dropped }, ip)).status).toBe(404);
    // Proof of ownership is test/integration/tenant-domains.test.ts's; until then the claim resolves nowhere.
    expect((await resolve(stack, { domain: added }, ip)).status).toBe(404);
    expect((await json(await settings(tenant))).settings.domains).toEqual([kept]);
  });

  it('refuses a domain another organisation holds (409 DOMAIN_TAKEN) and changes nothing; refuses malformed ones (400)', async () => {
    const owned = `${unique('owned')}.example`;
    const a = await seedTenant(stack, { domains: [owned] });
    const mine = `${unique('mine')}.example`;
    const b = await seedTenant(stack, { domains: [mine] });
    const taken = await domains(b, [`${unique('new')}.example`, owned]);
    expect(taken.status).toBe(409);
    const answer = await json(taken);
    expect(answer.error.code).toBe('DOMAIN_TAKEN');
    // Whose it is stays unsaid.
    expect(JSON.stringify(answer)).not.toContain(a.organizationId);
    expect((await json(await settings(b))).settings.domains).toEqual([mine]);
    for (const bad of ['localhost', 'b\u00fccher.example', '10.0.0.1', 'a.example:8443', 'a_b.example', '*.example.com']) {
      expect((await domains(b, [bad])).status, bad).toBe(400);
    }
    expect(
      (
        await domains(
          b,
          Array.from({ length: 21 }, (_, i) => `d${i}.${mine}`),
        )
      ).status,
    ).toBe(400);
  });
});
