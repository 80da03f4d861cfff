// Tenant resolution and tenant-wide invalidation: resolve.hit (target 1 Redis round trip, 0 PostgreSQL), resolve.miss
// (the script, PostgreSQL, the write), tenant.invalidate with 10 000 cached entries of the organisation (target 1), and
// tenant.delete of an organisation with one live session (one statement, then the Redis steps side by side).
import { uuidv7 } from 'uuidv7';
import { TEST_CLIENT_IP_HEADER } from '../../local/stack/app.ts';
import { expectStatus, type OperationBench } from '../operation.ts';

/** A client address per call: the limiter allows 60 a minute per address, and the bench measures the cache, not it. */
const address = (i: number) => `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;

const resolveRequest = (slug: string, i: number) => ({
  headers: { [TEST_CLIENT_IP_HEADER]: address(i) },
  path: `/public/tenants/resolve?slug=${slug}`,
});

export const resolveHitBench: OperationBench = {
  name: 'resolve.hit',
  roundTrips: { redis: 1, revocation: 0, pg: 0 },
  describe: 'GET /public/tenants/resolve?slug= of a cached tenant: the limiter and the cache read in one script, no PostgreSQL',
  async prepare(stack) {
    const org = await stack.seedOrganization();
    const slug = `bench-hit-${org.organizationId.slice(-12)}`;
    await stack.db.query('UPDATE organizations SET slug = $2 WHERE id = $1', [org.organizationId, slug]);
    // The first warm-up call misses and caches it; the entry lives 60 s, far longer than a run of this bench.
    return async (i) => {
      const { path, headers } = resolveRequest(slug, i);
      await expectStatus('resolve.hit', await stack.request('GET', path, { headers }), 200);
    };
  },
};

export const resolveMissBench: OperationBench = {
  name: 'resolve.miss',
  describe:
    'the same for a tenant not cached yet, one per call: the script, the slug lookup in PostgreSQL, the guarded fill of the payload',
  async prepare(stack, count) {
    const ids = Array.from({ length: count }, () => uuidv7());
    const slugs = ids.map((id) => `bench-miss-${id.slice(-12)}`);
    // One statement for all of them: fixtures, outside the proxies and the timed section.
    await stack.db.query('INSERT INTO organizations (id, name, slug) SELECT * FROM unnest($1::uuid[], $2::text[], $3::text[])', [
      ids,
      slugs.map(() => 'Bench tenant'),
      slugs,
    ]);
    return async (i) => {
      const { path, headers } = resolveRequest(slugs[i] as string, 1_000_000 + i);
      await expectStatus('resolve.miss', await stack.request('GET', path, { headers }), 200);
    };
  },
};

const CACHED_ENTRIES = 10_000;

export const tenantInvalidateBench: OperationBench = {
  name: 'tenant.invalidate',
  describe: `POST /ops/tenants/{orgId}/cache/invalidate of an organisation with ${CACHED_ENTRIES} cached entries: its names and audit row (1 statement), then the generation bump and the resolve DELs in one pipeline`,
  async prepare(stack) {
    const org = await stack.seedOrganization();
    const outlets = Array.from({ length: CACHED_ENTRIES - 1 }, () => uuidv7());
    await stack.db.query(`INSERT INTO locations (id, organization_id, name) SELECT u, $2, 'Bench outlet' FROM unnest($1::uuid[]) AS u`, [
      outlets,
      org.organizationId,
    ]);
    // 10 000 entries the app would read (the member count of each outlet, and the settings), under the generation the
    // organisation has now ("0": never bumped), written straight into Redis with the app's key builders.
    const { keys } = stack.deps;
    const pipeline = stack.redis.pipeline();
    for (const locationId of outlets) {
      pipeline.set(
        keys.orgMemberCountCache(org.organizationId, '0', locationId),
        JSON.stringify({ organizationId: org.organizationId, locationId, count: 1 }),
        'EX',
        600,
      );
    }
    const settings = await stack.request('GET', `/orgs/${org.organizationId}/settings`, { token: org.adminToken });
    await expectStatus('tenant.invalidate (settings)', settings, 200);
    await pipeline.exec();
    const headers = { authorization: `Bearer ${stack.operatorSecret}` };
    const path = `/ops/tenants/${org.organizationId}/cache/invalidate`;
    const call = async () => expectStatus('tenant.invalidate', await stack.request('POST', path, { headers }), 200);
    return Object.assign(call, {
      // After the timed calls: the organisation has a generation of its own, so none of the 10 000 is reachable any more.
      finish: async () => {
        const generation = await stack.redis.get(keys.orgCacheGeneration(org.organizationId));
        if (generation === null || !/^[0-9a-f]{32}$/.test(generation)) throw new Error('tenant.invalidate: no generation was bumped');
      },
    });
  },
};

export const tenantDeleteBench: OperationBench = {
  name: 'tenant.delete',
  describe:
    'POST /ops/tenants/{orgId}/delete of an organisation with one live session and no invites: one statement, then side by side the denylist write script, the invite listing, the invalidation pipeline and the context drop',
  async prepare(stack, count) {
    const orgs = await Promise.all(Array.from({ length: count }, () => stack.seedOrganization()));
    // One live session per organisation, as sign-in writes it: fixtures, outside the proxies and the timed section.
    await stack.db.query(
      `INSERT INTO sessions (id, user_id, organization_id, created_at, expires_at, last_seen_at, method)
       SELECT s, u, o, now(), now() + interval '1 hour', now(), 'password' FROM unnest($1::uuid[], $2::uuid[], $3::uuid[]) AS t(s, u, o)`,
      [orgs.map(() => uuidv7()), orgs.map((org) => org.adminId), orgs.map((org) => org.organizationId)],
    );
    const headers = { authorization: `Bearer ${stack.operatorSecret}` };
    return async (i) => {
      const org = orgs[i]!;
      const response = await stack.request('POST', `/ops/tenants/${org.organizationId}/delete`, { headers, body: { reason: 'bench' } });
      await expectStatus('tenant.delete', response, 200);
    };
  },
};

export const tenantBenches: OperationBench[] = [resolveHitBench, resolveMissBench, tenantInvalidateBench, tenantDeleteBench];
