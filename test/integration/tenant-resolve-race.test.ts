// The resolve cache's generation guard, as a deterministic race: a fill is held between its PostgreSQL read and its
// Redis write, an invalidation lands, the fill is released, and what it read is not stored; the next resolve reads fresh.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Deps } from '../../lib/deps.ts';
import type { Db } from '../../lib/pg/db.ts';
import { tenants } from '../../lib/runtime/tenants/index.ts';
import { resolveKeys } from '../../lib/runtime/tenants/resolve-keys.ts';
import { startFakeDoh, type FakeDoh } from '../../local/emulators/doh/index.ts';
import { startStack, type TestStack } from '../support/stack.ts';
import { freshIp, resolve, seedTenant, unique } from '../support/tenants.ts';

let stack: TestStack;
// The fake DNS-over-HTTPS resolver on loopback: a domain resolves once its TXT record proves it.
let doh: FakeDoh;
beforeAll(async () => {
  doh = await startFakeDoh();
  stack = await startStack({ env: { KEY_PREFIX: unique('rr').slice(0, 12), DOMAIN_VERIFY_DOH_URL: doh.url } });
});
afterAll(async () => {
  await stack?.close();
  await doh?.close();
});

/**
 * The stack's own Deps, with the real PostgreSQL behind it, whose reads wait after they have answered until the test
 * releases them: the fill then holds what it read while the test changes the truth under it.
 */
function heldAfterRead(): { deps: Deps; read: Promise<void>; release: () => void } {
  let release!: () => void;
  let reached!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const read = new Promise<void>((resolve) => (reached = resolve));
  const real = stack.deps.db;
  const db: Db = {
    query: async <T>(text: string, params?: unknown[], options?: Parameters<Db['query']>[2]) => {
      const rows = await real.query<T>(text, params, options);
      reached();
      await released;
      return rows;
    },
    transaction: (statements, options) => real.transaction(statements, options),
  };
  return { deps: { ...stack.deps, db }, read, release };
}

const body = async (response: Response) => (await response.json()) as { tenant?: { displayName: string }; error?: { code: string } };

describe('a fill read before an invalidation is not stored after it', () => {
  it('branding: the held fill read the old name, the change lands, the release stores nothing; the next resolve is fresh', async () => {
    const tenant = await seedTenant(stack, { displayName: 'Before the change' });
    const keys = await resolveKeys(stack.deps, { kind: 'slug', slug: tenant.slug });
    const held = heldAfterRead();
    const fill = tenants.resolve(held.deps, {
      query: { kind: 'slug', slug: tenant.slug },
      clientIp: freshIp(),
      correlationId: 'race-fill',
    });
    await held.read;
    const changed = await tenants.updateBranding(stack.deps, {
      organizationId: tenant.organizationId,
      actorUserId: tenant.adminId,
      change: { displayName: 'After the change' },
      correlationId: 'race-change',
    });
    expect(changed.ok).toBe(true);
    held.release();
    // The held request still answers what it read: it began before the change.
    const answered = await fill;
    expect(answered).toMatchObject({ ok: true, tenant: { displayName: 'Before the change' } });
    expect(await stack.redis.get(keys.entry)).toBeNull();
    stack.neonProxy.stats.reset();
    const next = await resolve(stack, { slug: tenant.slug }, freshIp());
    expect((await body(next)).tenant?.displayName).toBe('After the change');
    expect(stack.neonProxy.stats.httpRequests + stack.neonProxy.stats.wsConnections).toBeGreaterThan(0);
    // And the fresh answer is the one cached.
    expect(JSON.parse((await stack.redis.get(keys.entry))!)).toMatchObject({ displayName: 'After the change' });
  });

  it('domains: the held fill read "no such domain", the domain is verified, the release remembers no miss; it resolves at once', async () => {
    const tenant = await seedTenant(stack);
    const domain = `${unique('new')}.example`;
    const change = { organizationId: tenant.organizationId, actorUserId: tenant.adminId, correlationId: 'race-change' };
    // Claimed (pending) and its TXT record published first: only the verification makes it resolve.
    const claimed = await tenants.setDomains(stack.deps, { ...change, domains: [domain] });
    if (!claimed.ok) throw new Error('the claim was refused');
    const record = claimed.domains.find((d) => d.domain === domain)?.txtRecord;
    if (record === undefined || record === null) throw new Error('no TXT record shown for the claim');
    doh.records.set(record.name, [record.value]);
    const keys = await resolveKeys(stack.deps, { kind: 'domain', host: domain });
    const held = heldAfterRead();
    const fill = tenants.resolve(held.deps, { query: { kind: 'domain', host: domain }, clientIp: freshIp(), correlationId: 'race-fill' });
    await held.read;
    expect(await tenants.verifyDomain(stack.deps, { ...change, domain })).toMatchObject({ ok: true });
    held.release();
    expect(await fill).toEqual({ ok: false, reason: 'not-found' });
    expect(await stack.redis.zscore(keys.misses, keys.member)).toBeNull();
    const next = await resolve(stack, { domain }, freshIp());
    expect(next.status).toBe(200);
    expect((await body(next)).tenant).toMatchObject({ slug: tenant.slug });
  });

  it('the control: a held fill with no invalidation meanwhile is stored, so the hold alone refuses nothing', async () => {
    const tenant = await seedTenant(stack, { displayName: 'Unchanged' });
    const keys = await resolveKeys(stack.deps, { kind: 'slug', slug: tenant.slug });
    const held = heldAfterRead();
    const fill = tenants.resolve(held.deps, {
      query: { kind: 'slug', slug: tenant.slug },
      clientIp: freshIp(),
      correlationId: 'race-fill',
    });
    await held.read;
    held.release();
    expect(await fill).toMatchObject({ ok: true });
    expect(JSON.parse((await stack.redis.get(keys.entry))!)).toMatchObject({ displayName: 'Unchanged' });
    const ttl = await stack.redis.ttl(keys.entry);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(60);
  });

  it('an invalidation leaves the generation as 32 random hex for 3 600 s', async () => {
    const key = stack.deps.keys.tenantResolveGeneration();
    const tenant = await seedTenant(stack);
    await tenants.updateBranding(stack.deps, {
      organizationId: tenant.organizationId,
      actorUserId: tenant.adminId,
      change: { displayName: 'Bumped' },
      correlationId: 'race-bump',
    });
    expect(await stack.redis.get(key)).toMatch(/^[0-9a-f]{32}$/);
    const ttl = await stack.redis.ttl(key);
    expect(ttl).toBeGreaterThan(3_590);
    expect(ttl).toBeLessThanOrEqual(3_600);
  });
});
