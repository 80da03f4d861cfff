// GET /public/tenants/resolve: the per-IP limiter and the cache in one round trip, a hit that never reaches PostgreSQL,
// fail-open with one WARN, exact matching (a domain never falls back to a slug or a parent domain), bounded misses.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runScript } from '../../lib/redis/index.ts';
import { REMEMBER_MISS, RESOLVE_MISSES_MAX } from '../../lib/runtime/tenants/index.ts';
import { throttleWindow } from '../../lib/runtime/throttle/index.ts';
import { composeApp } from '../../local/stack/app.ts';
import { createJsonLogger } from '../../lib/log/logger.ts';
import { CROWD_REDIS_TIMEOUT_MS } from '../support/crowd.ts';
import { startStack, type TestStack } from '../support/stack.ts';
import { dumpNamespace, freshIp, resolve, seedTenant, unique } from '../support/tenants.ts';

let stack: TestStack;
beforeAll(async () => {
  // A namespace of its own, so key counts and value scans see this file's keys only.
  stack = await startStack({ env: { KEY_PREFIX: unique('tr').slice(0, 12) } });
});
afterAll(async () => {
  await stack?.close();
});

/**
 * An app instance on the same stores whose clock stands 30 s into a one-minute window (windows start on the minute;
 * lib/runtime/throttle/window.ts reads this clock), so calls that must land in one window do however long a busy
 * machine makes them take; with a crowd's Redis deadline, so a starved CPU is not mistaken for a slow Redis (the
 * limiter fails open), and log lines of its own.
 */
function midWindowInstance() {
  const at = Math.floor(Date.now() / 60_000) * 60_000 + 30_000;
  const logs: string[] = [];
  const app = composeApp(stack.env, {
    clock: { now: () => at },
    logger: createJsonLogger((line) => logs.push(line)),
    redisTimeoutMs: CROWD_REDIS_TIMEOUT_MS,
  });
  return { ...app, logs };
}

const body = async (response: Response) => (await response.json()) as { tenant?: Record<string, unknown>; error?: { code: string } };

describe('resolution', () => {
  it('answers the public whitelist by slug and by domain, case-insensitively, a trailing dot dropped', async () => {
    const domain = `${unique('shop')}.example`;
    const tenant = await seedTenant(stack, { domains: [domain], displayName: 'Fresh & Co' });
    const ip = freshIp();
    const bySlug = await resolve(stack, { slug: tenant.slug.toUpperCase() }, ip);
    expect(bySlug.status).toBe(200);
    expect(bySlug.headers.get('cache-control')).toBe('no-store');
    const expected = {
      organizationId: tenant.organizationId,
      slug: tenant.slug,
      state: 'active',
      displayName: 'Fresh & Co',
      logoUrl: null,
      primaryColor: null,
    };
    expect((await body(bySlug)).tenant).toEqual(expected);
    const byDomain = await resolve(stack, { domain: `${domain.toUpperCase()}.` }, ip);
    expect(byDomain.status).toBe(200);
    expect((await body(byDomain)).tenant).toEqual(expected);
  });

  it('a hit costs one Redis round trip and no PostgreSQL; the entry lives 60 s', async () => {
    const tenant = await seedTenant(stack);
    const ip = freshIp();
    expect((await resolve(stack, { slug: tenant.slug }, ip)).status).toBe(200);
    stack.neonProxy.stats.reset();
    stack.redisProxy.stats.reset();
    const hit = await resolve(stack, { slug: tenant.slug }, ip);
    expect(hit.status).toBe(200);
    expect(stack.neonProxy.stats.httpRequests + stack.neonProxy.stats.wsConnections).toBe(0);
    expect(stack.redisProxy.stats.requests).toBe(1);
    const entries = (await dumpNamespace(stack)).filter((e) => e.key.includes(':tenant:resolve-slug:'));
    const ttls = await Promise.all(entries.map((e) => stack.redis.ttl(e.key)));
    for (const ttl of ttls) expect(ttl).toBeGreaterThan(0);
    expect(Math.max(...ttls)).toBeLessThanOrEqual(60);
  });

  it('answers 404 for an unknown or deleted tenant, and remembers the miss for 10 s without asking PostgreSQL again', async () => {
    const deleted = await seedTenant(stack, { state: 'deleted' });
    const ip = freshIp();
    for (const query of [{ slug: deleted.slug }, { slug: unique('nobody') }, { domain: `${unique('nowhere')}.example` }]) {
      const first = await resolve(stack, query, ip);
      expect(first.status).toBe(404);
      expect((await body(first)).error?.code).toBe('NOT_FOUND');
      expect(first.headers.get('cache-control')).toBe('no-store');
      stack.neonProxy.stats.reset();
      expect((await resolve(stack, query, ip)).status).toBe(404);
      expect(stack.neonProxy.stats.httpRequests).toBe(0);
    }
    const misses = await stack.redis.ttl(stack.deps.keys.tenantResolveSlugMisses());
    expect(misses).toBeGreaterThan(0);
    expect(misses).toBeLessThanOrEqual(10);
  });

  it('refuses anything but exactly one well-formed slug or host (400), and non-ASCII hosts rather than converting them', async () => {
    const ip = freshIp();
    for (const query of [
      '',
      'slug=a&domain=b.example',
      'slug=has.dot',
      'slug=-lead',
      `slug=${'a'.repeat(64)}`,
      'domain=b%C3%BCcher.example',
      'domain=example.com:443',
      'domain=10.0.0.1',
      'domain=a..b',
      'domain=exa%20mple.com',
      'slug=a&slug=b',
    ]) {
      const response = await stack.request('GET', `/public/tenants/resolve?${query}`, { headers: { 'x-runstate-test-client-ip': ip } });
      expect(response.status, query).toBe(400);
    }
    const idna = await stack.request('GET', '/public/tenants/resolve?domain=b%C3%BCcher.example', {
      headers: { 'x-runstate-test-client-ip': ip },
    });
    expect((await idna.json()) as unknown).toMatchObject({ error: { message: expect.stringContaining('punycode') } });
  });
});

describe('exact matching', () => {
  it("a domain equal to another tenant's slug never resolves to it, cached or not; a slug never finds a domain", async () => {
    const a = await seedTenant(stack);
    const b = await seedTenant(stack, { domains: [`${a.slug}.example`] });
    const ip = freshIp();
    // A's slug entry is cached first: a domain lookup of the same text must not find it.
    expect((await body(await resolve(stack, { slug: a.slug }, ip))).tenant?.organizationId).toBe(a.organizationId);
    stack.neonProxy.stats.reset();
    expect((await resolve(stack, { domain: a.slug }, ip)).status).toBe(404);
    // It went to PostgreSQL (a miss of its own namespace), not to A's entry.
    expect(stack.neonProxy.stats.httpRequests).toBe(1);
    expect((await resolve(stack, { domain: a.slug }, ip)).status).toBe(404);
    expect((await body(await resolve(stack, { domain: `${a.slug}.example` }, ip))).tenant?.organizationId).toBe(b.organizationId);
    expect((await body(await resolve(stack, { slug: a.slug }, ip))).tenant?.organizationId).toBe(a.organizationId);
  });

  it('sub.example.com never resolves example.com, nor the other way round', async () => {
    const parent = `${unique('parent')}.example`;
    const child = `shop.${unique('child')}.example`;
    const p = await seedTenant(stack, { domains: [parent] });
    const c = await seedTenant(stack, { domains: [child] });
    const ip = freshIp();
    expect((await resolve(stack, { domain: `sub.${parent}` }, ip)).status).toBe(404);
    expect((await resolve(stack, { domain: child.slice('shop.'.length) }, ip)).status).toBe(404);
    expect((await body(await resolve(stack, { domain: parent }, ip))).tenant?.organizationId).toBe(p.organizationId);
    expect((await body(await resolve(stack, { domain: child }, ip))).tenant?.organizationId).toBe(c.organizationId);
  });
});

describe('limiter', () => {
  it('100 parallel requests from one address against 60 a minute: exactly 60 answered, 40 told when to retry; another address is unaffected', async () => {
    const tenant = await seedTenant(stack);
    const ip = freshIp();
    const app = midWindowInstance();
    // Loaded once first, so the burst is 100 EVALSHAs rather than 100 NOSCRIPTs answered by 100 EVALs.
    expect((await resolve(app, { slug: tenant.slug }, freshIp())).status).toBe(200);
    const statuses = await Promise.all(
      Array.from({ length: 100 }, async () => {
        const response = await resolve(app, { slug: tenant.slug }, ip);
        return { status: response.status, retryAfter: response.headers.get('retry-after') };
      }),
    );
    // A limiter that failed open answers everything: say so rather than count.
    const degraded = app.logs.filter((line) => line.includes('tenant_resolve_degraded'));
    expect(degraded, 'the limiter failed open during the burst').toEqual([]);
    expect(statuses.filter((s) => s.status === 200)).toHaveLength(60);
    const limited = statuses.filter((s) => s.status === 429);
    expect(limited).toHaveLength(40);
    for (const { retryAfter } of limited) {
      expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
      expect(Number(retryAfter)).toBeLessThanOrEqual(60);
    }
    expect((await resolve(app, { slug: tenant.slug }, freshIp())).status).toBe(200);
  });

  it('counts unknown names too: a caller guessing workspaces gets 60 a minute, then 429 without a lookup', async () => {
    const ip = freshIp();
    const app = midWindowInstance();
    for (let i = 0; i < 60; i++) expect((await resolve(app, { slug: unique('guess') }, ip)).status).toBe(404);
    stack.neonProxy.stats.reset();
    expect((await resolve(app, { slug: unique('guess') }, ip)).status).toBe(429);
    expect(stack.neonProxy.stats.httpRequests).toBe(0);
  });

  it('gives a counter found without a TTL one on the next hit (never a wedged window)', async () => {
    const ip = freshIp();
    const app = midWindowInstance();
    const window = await throttleWindow(app.deps, {
      action: 'tenant-resolve',
      scope: { kind: 'platform', tag: 'tenant-resolve' },
      subject: ip,
    });
    await stack.redis.set(window.key, '5');
    expect(await stack.redis.ttl(window.key)).toBe(-1);
    await resolve(app, { slug: unique('heal') }, ip);
    expect(await stack.redis.get(window.key)).toBe('6');
    const ttl = await stack.redis.ttl(window.key);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(60);
  });

  it('keys the counter by a keyed hash of the address, never the address', async () => {
    const ip = freshIp();
    await resolve(stack, { slug: unique('any') }, ip);
    const keys = (await dumpNamespace(stack)).map((e) => e.key);
    expect(keys.some((key) => key.includes(':throttle:counter:tenant-resolve.'))).toBe(true);
    expect(keys.join('\n')).not.toContain(ip);
  });

  it('with Redis down, every request still answers from PostgreSQL, past the limit, and logs exactly one WARN without key or address', async () => {
    const tenant = await seedTenant(stack);
    const ip = freshIp();
    const before = stack.logs.length;
    stack.redisProxy.faults.set({ refuse: true });
    let statuses: number[];
    try {
      statuses = await Promise.all(Array.from({ length: 70 }, async () => (await resolve(stack, { slug: tenant.slug }, ip)).status));
    } finally {
      stack.redisProxy.faults.clear();
    }
    expect(statuses.filter((s) => s === 200)).toHaveLength(70);
    const lines = stack.logs.slice(before);
    const warns = lines.filter((line) => line.includes('"level":"warn"'));
    expect(warns).toHaveLength(70);
    for (const line of warns) {
      expect(JSON.parse(line)).toMatchObject({ event: 'tenant_resolve_degraded', kind: 'slug' });
      expect(line).not.toContain(ip);
      expect(line).not.toContain(tenant.slug);
      expect(line).not.toContain(`${stack.deps.keys.prefix}:`);
      expect(line).not.toMatch(/throttle:|\{tenant-resolve\}|resolve-slug/);
    }
    // Nothing else complained: no failed write, no error.
    expect(lines.filter((line) => !line.includes('"level":"warn"') && line.includes('"level":"error"'))).toEqual([]);
  });
});

describe('bounded misses', () => {
  it('10 000 random unknown hosts from 200 addresses leave a bounded keyspace: one miss set of at most its cap, one counter per address', async () => {
    const before = new Set((await dumpNamespace(stack)).map((e) => e.key));
    // Two hundred distinct addresses: a repeat would put 100 calls on one counter of 60.
    const distinct = new Set<string>();
    while (distinct.size < 200) distinct.add(freshIp());
    const ips = [...distinct];
    const names = Array.from({ length: 10_000 }, (_, i) => ({ domain: `${unique(`r${i}`)}.example`, ip: ips[i % ips.length]! }));
    let next = 0;
    const statuses = new Map<number, number>();
    await Promise.all(
      Array.from({ length: 32 }, async () => {
        for (let i = next++; i < names.length; i = next++) {
          const { status } = await resolve(stack, { domain: names[i]!.domain }, names[i]!.ip);
          statuses.set(status, (statuses.get(status) ?? 0) + 1);
        }
      }),
    );
    expect(Object.fromEntries(statuses)).toEqual({ 404: 10_000 });
    const added = (await dumpNamespace(stack)).filter((e) => !before.has(e.key));
    const counters = added.filter((e) => e.key.includes(':throttle:counter:tenant-resolve.'));
    const others = added.filter((e) => !counters.includes(e));
    const members = await stack.redis.zcard(stack.deps.keys.tenantResolveDomainMisses());
    console.log(
      `10 000 unknown hosts from 200 addresses: ${added.length} new keys (${counters.length} counters, ${others.length} other), ${members} remembered misses`,
    );
    expect(counters.length).toBeLessThanOrEqual(200);
    // No entry per name: at most the domain miss set (new, if an earlier test had not made it).
    expect(others.map((e) => e.key.replace(/^.*:tenant:/, ''))).toEqual(others.length === 0 ? [] : ['resolve-domain-misses:all']);
    expect(members).toBeLessThanOrEqual(RESOLVE_MISSES_MAX);
  }, 180_000);

  it('the miss set holds at most its cap: the soonest-expiring members go first, and expired ones are pruned on add', async () => {
    const key = stack.deps.keys.tenantResolveSlugMisses();
    await stack.redis.del(key);
    const now = Date.now();
    const generation = stack.deps.keys.tenantResolveGeneration();
    const seenGeneration = (await stack.redis.get(generation)) ?? '0';
    const add = (member: string, expiresAt: number, at = now) =>
      runScript(stack.deps.redis.atMostOnce, REMEMBER_MISS, {
        keys: { generation, misses: key },
        args: { seenGeneration, member, expiresAt, now: at, maxMembers: RESOLVE_MISSES_MAX, setTtl: 10 },
      });
    for (let i = 0; i < RESOLVE_MISSES_MAX + 500; i++) await add(i.toString(16).padStart(64, '0'), now + 10_000 + i);
    expect(await stack.redis.zcard(key)).toBe(RESOLVE_MISSES_MAX);
    // The first 500 (soonest to expire) were evicted.
    expect(await stack.redis.zscore(key, (0).toString(16).padStart(64, '0'))).toBeNull();
    expect(await stack.redis.zscore(key, (500).toString(16).padStart(64, '0'))).not.toBeNull();
    // An add at a later instant prunes every member already expired by then.
    await add('f'.repeat(64), now + 60_000, now + 10_000 + 1_200);
    expect(await stack.redis.zcard(key)).toBe(RESOLVE_MISSES_MAX + 500 - 1_200);
    expect(await stack.redis.ttl(key)).toBeLessThanOrEqual(10);
  }, 60_000);
});
